"""Keeping delivered timelines right: after a graph change (`resync`), for a
returning reader (`rebuild`), when a post goes (`remove_*`) and when an
embedded copy must follow its post (`refresh_copies`, and `refresh_counts`
for its likes and reposts).

Every write goes to `write_stores()`: the configured model and, with
FEED_SHADOW_MODELS, the other stored models (docs/storage-models.md#shadow-models).
"""

from bson import ObjectId
from django.conf import settings

from feeds.documents import PUBLIC
from feeds.selectors import pages as post_pages
from feeds.selectors import posts as feed_posts
from feeds.selectors import streams
from feeds.selectors.visibility import can_see, circles_placed_in
from feeds.services import counts as count_writes
from profiles.documents import FollowingEdge, User
from profiles.services import standing
from timelines.delivery import pulled as pulling
from timelines.selectors.entries import SNAPSHOT_FIELDS, bounded_snapshot, entry_for
from timelines.stores import stores_copies, write_stores
from timelines.stores.read import read_entries, reposts_page


def resync(reader: str, author: str) -> None:
    """Make `reader`'s news hold exactly the author's recent posts they may see.

    Runs after a follow, an unfollow, a block or a circle change between the
    two: the author's entries are taken out, then up to FEED_BACKFILL of their
    newest posts that the reader may now see are put back.
    """
    stores = write_stores()
    if not stores:
        return
    for store in stores:
        store.remove_author("news", reader, author)
    viewer = User.objects(handle=reader).only("handle", "blocked", "status").first()
    if viewer is None or author in viewer.blocked or viewer.status != "active":
        return
    follows = FollowingEdge.objects(follower=reader, followee=author).count() > 0
    placed = circles_placed_in(reader, [author])

    pulled = pulling.pulls(author)

    def delivered_to_reader(post: dict) -> bool:
        # The rule `fanout.deliver_post` applies: public posts reach followers
        # (unless their author is pulled: pages read those when shown),
        # circle posts reach the circles' members.
        if PUBLIC in post["circles"]:
            return follows and not pulled
        return can_see(viewer, {**post, "to": None}, placed)

    recent = streams.newest_by(author, settings.FEED_BACKFILL * 4)
    visible = [p for p in recent if delivered_to_reader(p)]
    entries = [entry_for(p) for p in visible[: settings.FEED_BACKFILL]]
    if follows:
        # Their recent reposts come with the follow, as their posts do (the
        # originals are read, and checked, when a page shows them).
        entries += reposts_page([author], None, settings.FEED_BACKFILL)
    for store in stores:
        store.append("news", reader, entries)


def rebuild(owner: str, kind: str) -> None:
    """Rebuild one timeline from the read model (returning readers, the command)."""
    stores = write_stores()
    user = User.objects(handle=owner).only("handle", "blocked").first()
    if stores and user is not None:
        limit = settings.FEED_REBUILD_LIMIT
        chunk = read_entries(kind, owner, None, limit, user.blocked)
        # A repost's entry stays a link to its original (timelines/selectors/entries.py).
        entries = [e if e.get("of") else entry_for(_post_of(e)) for e in chunk.entries]
        for store in stores:
            store.replace(kind, owner, entries)
    standing.feed_rebuild_set(handle=owner, started=None)


def _post_of(entry: dict) -> dict:
    return {**entry["post"], "_id": entry["id"], "ts": entry["ts"]}


def remove_everywhere(post_id: ObjectId) -> None:
    for store in write_stores():
        store.remove_post(post_id)


def remove_entries_everywhere(entry_ids: list) -> None:
    for store in write_stores():
        store.remove_entries(entry_ids)


def remove_author_everywhere(author: str) -> None:
    for store in write_stores():
        store.remove_author_everywhere(author)


def refresh_copies(post_id: ObjectId, fields: list[str]) -> None:
    """Copy the live values of `fields` into every embedded copy of the post.

    The whole post is read, because a change may take the copy past
    FEED_EMBED_MAX_BYTES: then every copy becomes a link entry instead."""
    if not stores_copies() or not set(fields) & set(SNAPSHOT_FIELDS):
        return
    post = post_pages.post_by_id(post_id)
    if post is None:
        return
    copy = bounded_snapshot(post)
    for store in write_stores():
        if copy is None:
            store.unembed(post_id)
        else:
            store.update_embedded(post_id, {name: copy.get(name) for name in fields})


COUNTS = ("likes_count", "reposts_count")


def refresh_post_copies(post_id: ObjectId, fields: list[str]) -> None:
    """One run of a coalesced refresh: `fields` are what every like, vote,
    edit or comment since the last run changed (COUNTS for the likes and
    reposts, which keep their version)."""
    if set(fields) & set(COUNTS):
        refresh_counts(post_id)
    others = [name for name in fields if name not in COUNTS]
    if others:
        refresh_copies(post_id, others)


def refresh_counts(post_id: ObjectId) -> None:
    """Copy the post's likes and reposts counts into its embedded copies, in
    every store, unless a later run copied them already.

    A burst of likes queues one task each, but one run copies whatever the
    counts are when it reads them, and every run that reads the same or an
    older `counts_v` than the one copied does nothing (one read). The copies
    carry their `counts_v`, and a store writes only copies that hold an
    older one: two runs landing out of order never put an older count over
    a newer one."""
    if not stores_copies():
        return
    post = feed_posts.counts_of(post_id)
    if post is None:
        return
    version = post.get("counts_v") or 0
    if (post.get("counts_copied") or 0) >= version:
        return
    counts = {name: post.get(name) or 0 for name in COUNTS}
    for store in write_stores():
        store.update_counts(post_id, counts, version)
    count_writes.counts_copied_set(post_id=post_id, version=version)


def refresh_circle_copies(owner: str, circle: str) -> int:
    """After a circle rename: refresh the `circles` of the embedded copies of
    the owner's posts shared with `circle` (its new name). Returns the posts.

    One multi-document update per post, since reaching every matching entry
    of one array needs `arrayFilters`, which the embedded demo database
    lacks. Renames are rare and run in a task; link entries need nothing."""
    if not stores_copies():
        return 0
    post_ids = streams.ids_shared_with(owner, circle)
    for post_id in post_ids:
        refresh_copies(post_id, ["circles"])
    return len(post_ids)
