"""Comment stores behind one interface; COMMENTS_STORE picks one (*Storing Comments*).

- `documents` (default): one document per comment, `slug`/`full_slug` paths,
  keyset pages, threaded and chronological.
- `embedded`: the discussion inside the post: a chronological `comments`
  array (`$slice` pages) and nested `replies` for threading.
- `buckets`: about COMMENTS_BUCKET_SIZE comments per document, race-safe
  rollover, chronological only (threaded raises ThreadingUnsupported).
"""

from django.utils.module_loading import import_string

from comments.stores.base import (
    Comment,
    CommentError,
    CommentPage,
    CommentStore,
    DiscussionFull,
    DiscussionNotFound,
    InvalidCursor,
    ReplyTooDeep,
    ThreadingUnsupported,
    UnknownParent,
)
from socialsite import active

STORES = {
    "documents": "comments.stores.documents.DocumentsStore",
    "embedded": "comments.stores.embedded.EmbeddedStore",
    "buckets": "comments.stores.buckets.BucketsStore",
}

__all__ = [
    "STORES",
    "Comment",
    "CommentError",
    "CommentPage",
    "CommentStore",
    "DiscussionFull",
    "DiscussionNotFound",
    "InvalidCursor",
    "ReplyTooDeep",
    "ThreadingUnsupported",
    "UnknownParent",
    "get_store",
]


def get_store(name: str | None = None) -> CommentStore:
    # COMMENTS_STORE, unless the developer's lens reads this request through
    # another store (socialsite/active.py).
    name = name or active.comment_store()
    try:
        return import_string(STORES[name])()
    except KeyError as exc:
        raise ValueError(
            f"COMMENTS_STORE must be one of {', '.join(STORES)}, not {name!r}"
        ) from exc
