"""The demo's deliveries (socialsite/demo.py stages): every post and repost
the other demos left pending, delivered into every timeline store the site
keeps (`write_stores()`, shadows too).

While the timelines are empty, in bulk: every timeline's documents built
in memory with the entries the fan-out would have delivered to it
(`_fan_out` applies the rules of `audience` and `active_readers`,
timelines/delivery/audience.py, to the graph read once) and inserted by the
stores' `fill`, a thousand documents an insert: a few dozen inserts for a
world of 1,500 users rather than an upsert or array push per timeline, or
per entry. Else each through the site's own fan-out. tests/test_seed_bulk.py
builds a small world both ways (feeds/demo.py `one_by_one`) and compares
them; tests/timelines/test_fill.py fills timelines past every cap and bucket
both ways.
"""

from collections import defaultdict
from datetime import timedelta
from typing import Any

from django.conf import settings

from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.selectors import delivery as records
from feeds.services import delivery as record_writes
from profiles import selectors as people
from socialsite.clock import now
from socialsite.cursors import EPOCH
from timelines.delivery import fanout, pulled
from timelines.selectors.entries import entry_for, repost_entry
from timelines.stores import stores_copies, write_stores
from timelines.stores.base import KINDS


def _fan_out(
    post_ids: list, pulled_authors: set[str], owners: list[str], reposts: list | None = None
) -> None:
    """What `fanout.deliver_post` does for each post, for all of them at once:
    walls (author and `to`), and news for the audience (followers of a
    public post, the author's circle members otherwise, and the author) who
    are active, not suspended and have not blocked the author; a pulled
    author's public post, the author only. `reposts` (pending `post_repost`
    rows) as `deliver_repost` goes: the reposter's wall and news, and their
    followers' news, but not a reader who blocked the reposter or the
    original's author. Each store then fills every timeline of `owners`
    at once (`fill`: the `cache` model's empty ones too, as sign-up makes
    them)."""
    stores = write_stores()
    copies = stores_copies()
    posts = records.posts_oldest_first(post_ids)
    followers, placed = people.graph_all()  # placed: author -> [(member, circles)]
    # handle -> whom they blocked, for readers fan-out reaches
    readers = people.recent_readers(now() - timedelta(days=settings.FEED_ACTIVE_DAYS))
    # (kind, owner) -> entries, oldest first (None each when no store keeps them)
    timelines: defaultdict[tuple[str, str], list[Any]] = defaultdict(list)
    for owner in owners:
        for kind in KINDS:
            timelines[kind, owner] = []
    delivered: dict = {}
    copied: dict = {}
    for post in posts:
        author, circles = post["by"]["id"], post["circles"]
        if PUBLIC in circles:
            audience = [] if author in pulled_authors else followers.get(author, [])
        elif ALL_CIRCLES in circles:
            audience = [member for member, named in placed.get(author, []) if named]
        else:
            audience = [member for member, named in placed.get(author, []) if named & set(circles)]
        news = [
            reader
            for reader in sorted(set(audience) | {author})
            if reader == author or (reader in readers and author not in readers[reader])
        ]
        entry = entry_for(post) if stores else None
        for owner in sorted({author, post.get("to")} - {None}):
            timelines["wall", owner].append(entry)
        for owner in news:
            timelines["news", owner].append(entry)
        delivered[post["_id"]] = len(news)
        if entry is not None and copies and post.get("counts_v"):
            # The copies carry the seeded counts: none to refresh.
            copied[post["_id"]] = post["counts_v"]
    reposted = []
    for repost in reposts or []:
        by, author = repost["by"], repost["author"]
        news = [
            reader
            for reader in sorted(set(followers.get(by, [])) | {by})
            if reader == by or (reader in readers and not {by, author} & set(readers[reader]))
        ]
        entry = repost_entry(repost, [PUBLIC]) if stores else None
        timelines["wall", by].append(entry)
        for owner in news:
            timelines["news", owner].append(entry)
        reposted.append(({"post": repost["post"], "by": by}, len(news)))
    for store in stores:
        store.fill(timelines)
    record_writes.deliveries_done_seed(posts=delivered, reposts=reposted, counts_copied=copied)


def deliver_pending() -> int:
    """Deliver every post still waiting for its delivery (the demo's, when
    `seed_more` was told not to deliver); returns how many. In bulk while the
    timelines are empty, as when seeding; else each through the site's own
    fan-out, since the bulk path's `fill` writes timelines from nothing."""
    post_ids, reposts = records.pending_posts()
    # The most followed are pulled, as `fanout.deliver_post` would find them,
    # from before the first post: their public posts go to no follower's
    # timeline (docs/performance.md#celebrities-are-pulled).
    pulled_authors = pulled.mark_over_threshold(since=EPOCH)
    owners = people.handles_all()
    stores = write_stores()
    filling = bool(post_ids or reposts) and not any(store.stats()["entries"] for store in stores)
    if filling:
        _fan_out(post_ids, pulled_authors, owners, reposts)
        return len(post_ids)
    for store in stores:
        store.ensure_owner(owners)
    for post_id in post_ids:
        fanout.deliver_post(post_id)
    for repost in reposts:
        fanout.deliver_repost(repost["post"], repost["by"])
    return len(post_ids)


def delivery_stage(seeding: Any) -> None:
    delivered = deliver_pending()
    if seeding.stdout:
        seeding.stdout.write(f"  {delivered} posts delivered into the timelines")
