"""Timeline entries and the post views built from them."""

from collections.abc import Callable

import bson
from bson import ObjectId
from django.conf import settings

from feeds.page_keys import FOUND
from socialsite import active
from timelines.stores import stores_copies

# The fields of a post that an embedded entry copies (everything a card shows).
SNAPSHOT_FIELDS = (
    "by",
    "to",
    "circles",
    "type",
    "detail",
    "mentions",
    "edited",
    "comments_count",
    "comments_shown",
    "likes_count",
    # Pages ask whether an older page showed a post already only for posts
    # that were reposted (feeds/services/reposts.py `Once`): the copy must say so.
    "reposts_count",
    # The version of the two counts, so that a late refresh never writes
    # older counts over newer ones (timelines/delivery/upkeep.py `refresh_counts`).
    "counts_v",
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
    pages): their copy is the whole post, with no byte budget. A stored
    entry embeds when FEED_EMBED is on or shadows are (`stores_copies`)."""
    embed = stores_copies() if embed is None else embed
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


def reads_copies() -> bool:
    """Whether this request's pages use the embedded copies (an embed read)
    or leave them on the server and load posts from `post` (a link read):
    FEED_EMBED, unless an admin switched it for their session at /dev/
    (docs/developer-lens.md#the-models-in-use-for-a-request, `socialsite.active.embed`)."""
    return active.embed()


def post_from_entry(entry: dict) -> dict:
    """A post document rebuilt from an embedded entry."""
    return {**entry["post"], "_id": entry["id"], "ts": entry["ts"]}


def repost_entry(repost: dict, circles: list[str]) -> dict:
    """The timeline entry of a repost (a raw `post_repost` document).

    Its own id and time, so that it sorts where the repost happened and is
    delivered, deduplicated on delivery and taken out (`remove_post` of its
    id) apart from the original's entry; `by` is the reposter, so unfollowing
    or blocking them takes it out like their posts. `of` names the original,
    which pages read from `post` with the page's linked posts (one `$in`):
    never an embedded copy, so a deleted or removed original is gone from
    every timeline at once, under every model, and an edit shows everywhere."""
    return {
        "id": repost["_id"],
        "ts": repost["ts"],
        "by": repost["by"],
        "circles": circles,
        "of": repost["post"],
    }


def post_id_of(entry: dict) -> ObjectId:
    """The post an entry shows: the original for a repost."""
    return entry.get("of") or entry["id"]


def resolve(entries: list[dict], fetch: Callable[[list[ObjectId]], dict]) -> list[dict]:
    """Posts for entries, newest first, each a fresh dict that knows its
    place in the timeline (`_at`: the entry's (ts, id), what a page's cursor
    is made of) and, for a repost, `reposted_by`.

    Embedded copies are used as they are; linked posts and reposted originals
    are those the timeline's read looked up already (`FOUND`,
    feeds/selectors/lookups.py), the rest read in one batch by
    `fetch(ids) -> {id: post}` (one `$in` query, live posts only, so a stale
    link is skipped). What the lookups found stays on the post, for the
    page's sight and cards."""
    linked = sorted(
        {post_id_of(e) for e in entries if "post" not in e and FOUND not in e}, key=str
    )
    fetched = fetch(linked) if linked else {}
    posts = []
    for entry in entries:
        found = entry.get(FOUND)
        if "post" in entry:
            post = post_from_entry(entry)
        elif found is not None and found["linked"] is not None:
            post = dict(found["linked"])
        elif found is None and post_id_of(entry) in fetched:
            post = dict(fetched[post_id_of(entry)])
        else:
            continue
        post["_at"] = (entry["ts"], entry["id"])
        if entry.get("of") is not None:
            post["reposted_by"] = entry["by"]
        if found is not None:
            post[FOUND] = {k: v for k, v in found.items() if k != "linked"}
        posts.append(post)
    return posts
