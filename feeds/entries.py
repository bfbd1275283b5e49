"""Timeline entries and the post views built from them."""

import bson
from django.conf import settings

# The fields of a post that an embedded entry copies (everything a card shows).
SNAPSHOT_FIELDS = (
    "by",
    "to",
    "circles",
    "type",
    "detail",
    "edited",
    "comments_count",
    "comments_shown",
)


def snapshot(post: dict) -> dict:
    return {name: post.get(name) for name in SNAPSHOT_FIELDS}


def bounded_snapshot(post: dict) -> dict | None:
    """The copy of a post that a stored entry may embed, or None when it is
    larger than FEED_EMBED_MAX_BYTES: a timeline holds up to FEED_CACHE_SIZE
    (or FEED_MONTH_CAP) entries in one document of at most 16 MB, so each
    copy has a budget. Past it the entry links to the post instead, and the
    page reads the post in full with the other links (one `$in` query): a
    trimmed copy would show a wrong card, and a full one could not be stored."""
    copy = snapshot(post)
    if len(bson.encode(copy)) > settings.FEED_EMBED_MAX_BYTES:
        return None
    return copy


def entry_for(post: dict, *, embed: bool | None = None, stored: bool = True) -> dict:
    """The timeline entry for a post (a raw `post` document).

    `stored=False` for entries that only live in memory (the read model's
    pages): their copy is the whole post, with no byte budget."""
    embed = settings.FEED_EMBED if embed is None else embed
    entry = {
        "id": post["_id"],
        "ts": post["ts"],
        "by": post["by"]["id"],
        "circles": post["circles"],
    }
    if embed:
        copy = bounded_snapshot(post) if stored else snapshot(post)
        if copy is not None:
            entry["post"] = copy
    return entry


def post_from_entry(entry: dict) -> dict:
    """A post document rebuilt from an embedded entry."""
    return {**entry["post"], "_id": entry["id"], "ts": entry["ts"]}
