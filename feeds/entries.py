"""Timeline entries and the post views built from them."""

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


def entry_for(post: dict, *, embed: bool | None = None) -> dict:
    """The timeline entry for a post (a raw `post` document)."""
    embed = settings.FEED_EMBED if embed is None else embed
    entry = {
        "id": post["_id"],
        "ts": post["ts"],
        "by": post["by"]["id"],
        "circles": post["circles"],
    }
    if embed:
        entry["post"] = snapshot(post)
    return entry


def post_from_entry(entry: dict) -> dict:
    """A post document rebuilt from an embedded entry."""
    return {**entry["post"], "_id": entry["id"], "ts": entry["ts"]}
