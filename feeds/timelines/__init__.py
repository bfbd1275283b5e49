"""Timeline storage models behind one interface; FEED_MODEL picks one.

- `cache`: one document per user and kind with a capped array (the article's
  "cache the top"), `$push` + `$each` + `$sort` + `$slice`.
- `month`: one document per user per month (seed 000's `social.wall`/`news`).
- `size`: buckets of FEED_BUCKET_SIZE entries (the article's "grouped by size").
- `read`: nothing stored; pages are assembled from `post` at read time.
"""

from django.conf import settings
from django.utils.module_loading import import_string

from feeds.timelines.base import TimelineStore

MODELS = {
    "cache": "feeds.timelines.cache.CacheStore",
    "month": "feeds.timelines.month.MonthStore",
    "size": "feeds.timelines.size.SizeStore",
    "read": "feeds.timelines.read.ReadStore",
}


def get_store(name: str | None = None) -> TimelineStore:
    name = name or settings.FEED_MODEL
    try:
        return import_string(MODELS[name])()
    except KeyError as exc:
        raise ValueError(f"FEED_MODEL must be one of {', '.join(MODELS)}, not {name!r}") from exc
