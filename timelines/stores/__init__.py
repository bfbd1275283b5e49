"""Timeline storage models behind one interface; FEED_MODEL picks one.

- `cache`: one document per user and kind with a capped array (the article's
  "cache the top"), `$push` + `$each` + `$sort` + `$slice`.
- `month`: one document per user per month (*Storing Updates and Profiles*'s `social.wall`/`news`).
- `size`: buckets of FEED_BUCKET_SIZE entries (the article's "grouped by size").
- `read`: nothing stored; pages are assembled from `post` at read time.
"""

from django.conf import settings
from django.utils.module_loading import import_string

from socialsite import active, shadows
from timelines.stores.base import EntryArrayStore, TimelineStore

MODELS = {
    "cache": "timelines.stores.cache.CacheStore",
    "month": "timelines.stores.month.MonthStore",
    "size": "timelines.stores.size.SizeStore",
    "read": "timelines.stores.read.ReadStore",
}


def get_store(name: str | None = None) -> TimelineStore:
    # FEED_MODEL, unless the developer's lens reads this request through
    # another model (socialsite/active.py).
    name = name or active.timeline_model()
    try:
        return import_string(MODELS[name])()
    except KeyError as exc:
        raise ValueError(f"FEED_MODEL must be one of {', '.join(MODELS)}, not {name!r}") from exc


def shadow_models() -> list[str]:
    """The stored models FEED_SHADOW_MODELS keeps current besides FEED_MODEL
    ("" none, "all" every stored model, or a comma list)."""
    # The read model stores nothing.
    return [n for n in shadows.named("FEED_SHADOW_MODELS", MODELS) if n != "read"]


def write_stores() -> list[TimelineStore]:
    """Every store a write must keep current (docs/storage-models.md#shadow-models): the configured
    model first (it is what pages read unless an admin switched at /dev/),
    then the shadows. Never the session's override: writes serve everyone.
    The read model stores nothing, so it is never listed."""
    names = dict.fromkeys([settings.FEED_MODEL, *shadow_models()])
    stores = [get_store(name) for name in names]
    return [store for store in stores if store.stores_entries]


def stored_models() -> list[EntryArrayStore]:
    """A store of every model that stores entries, configured or not: repair
    tools (e.g. trimming `comments_shown`) reach whatever a past setting left."""
    stores = [get_store(name) for name in MODELS]
    return [store for store in stores if isinstance(store, EntryArrayStore)]


def stores_copies() -> bool:
    """Whether stored entries carry the embedded copy of their post: with
    FEED_EMBED, and with shadows on, so that one set of stored documents
    serves embed reads and link reads (which project the copy away) alike."""
    return bool(settings.FEED_EMBED or shadow_models())
