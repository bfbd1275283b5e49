"""Shadow comment stores: COMMENTS_SHADOW_STORES keeps the other stores
current besides COMMENTS_STORE (docs/storage-models.md#shadow-models), so the developer's lens can
read
any thread under any store for one session (docs/developer-lens.md).

COMMENTS_STORE stays the system of record: a write goes there first, with
all its checks and its random slug, and is then copied into each shadow
under the same id, slugs and time (`CommentStore.put`), or replayed there
(edit, soft delete, restore by slug). A shadow that refuses (the embedded
store's byte budget, say) logs a warning and is left behind rather than
failing the user's write: `manage.py convert_comments --to <store>` brings
it level again, as it does for comments written before shadows were on.

`buckets` keeps every comment but cannot thread: read under it, a thread
page shows the chronological order with the store's notice
(ThreadingUnsupported), as it does when `buckets` is COMMENTS_STORE.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bson import ObjectId
from django.conf import settings

from comments.stores import STORES, CommentError, get_store
from comments.stores.base import Comment, CommentStore, stored_form
from feeds.selectors.posts import post_ids_with_comments
from socialsite import shadows

log = logging.getLogger(__name__)


def shadow_names() -> list[str]:
    """The stores COMMENTS_SHADOW_STORES keeps current besides COMMENTS_STORE."""
    names = shadows.named("COMMENTS_SHADOW_STORES", STORES)
    return [n for n in names if n != settings.COMMENTS_STORE]


def primary() -> CommentStore:
    """The store of record, whatever store this request reads through."""
    return get_store(settings.COMMENTS_STORE)


def shadow_stores() -> list[CommentStore]:
    return [get_store(name) for name in shadow_names()]


def write_stores() -> list[CommentStore]:
    """The store of record first, then the shadows."""
    return [primary(), *shadow_stores()]


def _missed(store: CommentStore, what: str, discussion_id: ObjectId, exc: Exception) -> None:
    log.warning(
        "comment shadow %s missed %s on post %s (%s): run convert_comments --to %s",
        store.name,
        what,
        discussion_id,
        exc,
        store.name,
    )


def copy_comment(discussion_id: ObjectId, comment: Comment) -> None:
    """Copy a comment the store of record just took into every shadow."""
    doc = stored_form(comment)
    for store in shadow_stores():
        try:
            store.put(discussion_id, doc)
        except CommentError as exc:
            _missed(store, f"comment {comment.slug}", discussion_id, exc)


def replay(action: str, discussion_id: ObjectId, slug: str, **arguments: object) -> None:
    """Replay an edit, soft delete or restore (`action`, a store method) on
    every shadow: each is guarded by the comment's state, so a replay that
    runs twice changes nothing the second time."""
    for store in shadow_stores():
        try:
            getattr(store, action)(discussion_id, slug, **arguments)
        except CommentError as exc:
            _missed(store, f"{action} of {slug}", discussion_id, exc)


#: Comments read from the source store per page while converting a thread.
CONVERT_PAGE = 1000


def thread_of(store: CommentStore, discussion_id: ObjectId) -> list[dict]:
    """A whole discussion as stored forms, oldest first: `oldest` pages, which
    every store serves (keyset or `$slice`), CONVERT_PAGE at a time."""
    comments, after = [], None
    while True:
        page = store.page(discussion_id, order="oldest", after=after, limit=CONVERT_PAGE)
        comments += [stored_form(c) for c in page.comments]
        if page.next is None:
            return comments
        after = page.next


#: Posts read per batch while looking for threads to convert: one short
#: query each, on the `_id` index.
CONVERT_BATCH = 500


@dataclass
class Progress:
    """Where a conversion stands: every post up to `after` (in `_id` order)
    is converted, `threads` and `comments` written so far."""

    after: ObjectId | None = None
    threads: int = 0
    comments: int = 0


def convert(
    *,
    source: CommentStore,
    target: CommentStore,
    after: ObjectId | None = None,
    on_batch: Callable[[Progress], None] | None = None,
) -> Progress:
    """Make `target` hold every thread as `source` holds it (`manage.py
    convert_comments`), for the posts after `after` in `_id` order.

    Threads are the posts with comments (`comments_count`, refreshed after
    every comment write). They are found CONVERT_BATCH posts at a time, each
    batch its own query read whole before any thread is converted: a
    conversion runs for hours, and a cursor held open that long, idle
    between batches, is killed by the server (docs/performance.md). Each
    thread is read whole from the source and written whole into the target
    (`replace_thread`, so doing one twice changes nothing). After each batch
    `on_batch` hears the position: a run that stopped (a crash, a refused
    thread) resumes from the last one it reported with `after`."""
    done = Progress(after=after)
    while True:
        post_ids, last = post_ids_with_comments(done.after, CONVERT_BATCH)
        if last is None:
            return done
        done.threads += len(post_ids)
        done.comments += convert_threads(source=source, target=target, post_ids=post_ids)
        done.after = last
        if on_batch is not None:
            on_batch(done)


def convert_threads(*, source: CommentStore, target: CommentStore, post_ids: list) -> int:
    """`convert` for the threads of `post_ids` only, one after another, when
    the caller knows which posts have them (the demo, which has just written
    them): no walk of every post. Returns the comments written."""
    written = 0
    for post_id in post_ids:
        comments = thread_of(source, post_id)
        target.replace_thread(post_id, comments)
        written += len(comments)
    return written
