"""Every read the feed, wall, incoming and post pages need.

One pager serves news and walls under every timeline model: it asks the
configured store for entries, merges a news page's pulled authors' posts
(timelines/selectors/pulled.py), resolves linked entries with one `$in` query,
filters, and falls back to the read model where the store cannot answer
(docs/performance.md: a `cache` news page with link entries is 2 round trips).
"""

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from django.conf import settings

from feeds.selectors.filtering import keeping, without_hidden
from feeds.selectors.lookups import PageLookups
from feeds.selectors.pages import FeedPage, live_posts
from feeds.selectors.streams import news_blockers, posts_page
from feeds.selectors.visibility import Sight, news_hidden, visible_posts
from feeds.types import FOUND, PULLED_IN
from profiles import selectors as people
from profiles.documents import User
from profiles.filters import filters_for
from socialsite.clock import aware
from socialsite.cursors import Cursor
from timelines.selectors import pulled as pulls
from timelines.selectors.entries import reads_copies, resolve
from timelines.selectors.pins import Pins
from timelines.selectors.repeats import Once
from timelines.stores import get_store
from timelines.stores.base import Chunk
from timelines.stores.read import read_entries

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor

# A wall whose entries are mostly hidden from this viewer needs several
# chunks; this bounds the work of one page.
MAX_CHUNKS = 25


# A page's filter: the posts of one chunk it keeps, in order.
Keep = Callable[[list[dict]], list[dict]]


def _resolve(entries: list[dict]) -> list[dict]:
    """Posts for entries, in order: embedded copies, or one `$in` query for
    links and reposted originals together (a deleted post's stale link is
    skipped). Each knows its entry's place (`_at`) and its reposter."""
    return resolve(entries, live_posts)


def position(post: dict) -> Cursor:
    """Where a page's post sits in its timeline: its entry's (ts, id), which
    for a repost is the repost's, not the original's (a cursor made of the
    original's would skip everything between the two)."""
    ts, entry_id = post.get("_at") or (post["ts"], post["_id"])
    return Cursor(aware(ts), entry_id)


def _page(
    kind: str,
    owner: User,
    before: Cursor | None,
    keep: Keep,
    *,
    force_read: bool = False,
    limit: int | None = None,
    keep_read: Keep | None = None,
    hidden: list[str] | None = None,
    reader: str | None = None,
    wall_owner: str | None = None,
    pins: Pins | None = None,
) -> FeedPage:
    """`keep` filters each chunk of posts; `keep_read`, when given, replaces it
    for chunks the read model answered (its query may decide everything).
    `hidden`: the authors the read model's news query leaves out (default:
    the owner's blocks). `reader`: the signed-in viewer, whose likes, votes
    and circle edges the timeline's read looks up beside the entries
    (feeds/selectors/lookups.py). `pins`: a wall's first page's pinned posts,
    read with the first chunk and left out of the chronological posts."""
    pins = pins or Pins(owner.handle, [], owner)  # none: nothing read, nothing left out
    hidden = owner.blocked if hidden is None else hidden
    limit = limit or settings.FEED_PAGE_SIZE
    store = get_store()
    use_read = force_read or not store.stores_entries
    lookups = PageLookups(reader, wall_owner)
    # News under a stored model merges the pulled authors' posts and the
    # followed tags' (timelines/selectors/pulled.py); the read model's query holds them already.
    own_news = kind == "news" and reader == owner.handle
    tags = tuple(owner.followed_tags) if own_news else ()
    pulling = own_news and (bool(pulls.authors()) or bool(tags))
    # Who blocked the reader, once for the whole page and every model's
    # followed-tags read (its query leaves them out): one read on the
    # `user.blocked` index, only when the reader follows tags
    # (docs/performance.md#round-trip-budgets).
    blockers = news_blockers(owner.handle, tags)
    pulled_ids: set = set()
    collected: list[dict] = []
    # Each post once, however many of its reposts the timeline holds
    # (timelines/selectors/repeats.py: at its newest place, not again on an older page).
    once = Once(kind, owner.handle, before, hidden)
    cursor = before
    for _ in range(MAX_CHUNKS):
        # Room for the pins the page leaves out, so that they cost no second chunk.
        want = limit + 1 - len(collected) + pins.room
        if use_read:
            chunk = read_entries(
                kind, owner.handle, cursor, want, hidden, tags=tags, blockers=blockers
            )
        else:
            # Twice what is wanted: room for the repeats of reposted posts,
            # which `pick` skips before anything is resolved, so that a page
            # of them needs no second chunk. Stored entries are small.
            # A link read leaves the embedded copies on the server
            # (docs/storage-models.md#shadow-models: one set of stored entries serves both).
            ask = 2 * want
            # Pulled posts are each a post of its own: a page takes at most
            # `want` of them, and one more says whether more are left.
            window = pulls.Window(
                want + 1, before=cursor, hidden=frozenset(hidden), tags=tags, blockers=blockers
            )
            chunk = store.entries(
                kind,
                owner.handle,
                cursor,
                ask,
                copies=reads_copies(),
                lookups=pins.asking(
                    replace(lookups, beside=pulls.Beside(window)) if pulling else lookups
                ),
            )
            if pulling:
                chunk = _with_pulled(chunk, owner.handle, window, ask)
                pulled_ids |= {entry["id"] for entry in chunk.pulled or ()}
        pins.found(chunk)
        entries, used = once.pick(chunk.entries, want)
        posts = _resolve(entries)
        for post in posts:
            if post["_id"] in pulled_ids and not post.get("reposted_by"):
                post[PULLED_IN] = True
        posts = pins.drop((keep_read or keep)(posts) if use_read else keep(posts))
        collected += once.first_sightings(posts, store=None if use_read else store)
        if used:
            cursor = Cursor.of(chunk.entries[used - 1])
        if len(collected) > limit:
            break
        if used < len(chunk.entries):
            continue  # the rest of this chunk, from the cursor
        if not chunk.complete:
            use_read = True
            continue
        if chunk.exhausted:
            break
    page = collected[:limit]
    more = len(collected) > limit
    next_cursor = position(page[-1]).encode() if more and page else None
    return FeedPage(page, next_cursor, pinned=pins.posts)


def _with_pulled(chunk: Chunk, reader: str, window: pulls.Window, limit: int) -> Chunk:
    """The chunk with the pulled authors' posts merged in: read with it (a
    store that takes lookups), else by one aggregate of their own. The
    result's `pulled` are the entries it took from them."""
    found = chunk.pulled
    if found is None:
        found = pulls.entries(pulls.read(reader, window))
    merged = pulls.merge(chunk, found, limit, asked=window.limit)
    taken = {id(entry) for entry in found}  # not a stored entry of the same post
    merged.pulled = [entry for entry in merged.entries if id(entry) in taken]
    return merged


def news_page(viewer: User, before: Cursor | None = None) -> FeedPage:
    """The viewer's news feed. Delivery chose the audience when the post was
    written; visibility is decided again now (docs/privacy.md), so whoever was
    unfollowed, taken out of a circle or blocked since loses sight of the
    circle posts already in their timeline at once. Blocks cost nothing (the
    viewer's list is on their document); circle posts by others cost one
    graph query per page. The read model's query already applies the live
    graph, the blocks and the mutes, so its chunks are kept as they are.
    Muted authors leave at read time too (`Sight(news=True)`): a mute empties
    nothing, and an unmute brings their posts back at once."""
    rebuilding = viewer.feed_rebuild is not None
    sight = Sight(viewer, news=True)
    # The home filters' hidden posts leave every chunk, the read model's too
    # (docs/privacy.md#keyword-filters): as a mute, at read time.
    home = filters_for(viewer, "home")
    page = _page(
        "news",
        viewer,
        before,
        keeping(sight.visible, home),
        force_read=rebuilding,
        keep_read=keeping(list, home),
        hidden=sorted(news_hidden(viewer)),
        reader=viewer.handle,
    )
    page.rebuilding = rebuilding
    return page


def wall_page(
    owner: User, viewer: "User | AnonymousVisitor", before: Cursor | None = None
) -> FeedPage:
    """Posts by or to `owner` with *Storing Updates and Profiles*'s filters: on a wall, posts by
    others appear only if the owner follows them (the rest is on the owner's
    incoming page), never from someone the owner blocked, and only those the
    viewer may see."""
    blocked = set(owner.blocked)

    def keep(posts: list[dict]) -> list[dict]:
        # The owner's reposts are theirs to show, as their own posts are.
        # Whether the owner follows a guest came with the timeline's read
        # (FOUND), unless the store does not take lookups: then one query.
        guests = {p["by"]["id"] for p in posts if not p.get("reposted_by")} - {owner.handle}
        known = {
            p["by"]["id"]: p[FOUND]["owner_follows"]
            for p in posts
            if "owner_follows" in (p.get(FOUND) or {})
        }
        followed = {guest for guest, follows in known.items() if follows}
        followed |= people.followed_among(owner.handle, guests - known.keys())
        posts = [
            p
            for p in posts
            if p["by"]["id"] == owner.handle
            or p.get("reposted_by") == owner.handle
            or (p["by"]["id"] in followed and p["by"]["id"] not in blocked)
        ]
        return visible_posts(viewer, posts)

    # The first page starts with the owner's pins (docs/discovery.md#pins),
    # which the owner does not hold up to someone they blocked.
    shows_pins = before is None and not (viewer.is_authenticated and viewer.handle in blocked)
    pins = Pins(owner.handle, list(owner.pinned or ()) if shows_pins else [], viewer)
    # A wall is "public" to the viewer's keyword filters (docs/privacy.md#keyword-filters).
    public = filters_for(viewer, "public")
    page = _page(
        "wall",
        owner,
        before,
        keeping(keep, public),
        reader=viewer.handle,
        wall_owner=owner.handle,
        pins=pins,
    )
    page.pinned = without_hidden(public, page.pinned)
    return page


def incoming_page(owner: User, before: Cursor | None = None) -> FeedPage:
    """Seed 000's incoming page: every post directed to the owner, from anyone
    they have not blocked. One aggregate on the (to, ts) index, with the
    owner's likes and votes looked up beside each post."""
    limit = settings.FEED_PAGE_SIZE
    query: dict = {"to": owner.handle}
    if owner.blocked:
        query["by.id"] = {"$nin": list(owner.blocked)}
    posts = posts_page(query, before, limit + 1, lookups=PageLookups(owner.handle))
    page = posts[:limit]
    more = len(posts) > limit
    cursor = Cursor(page[-1]["ts"], page[-1]["_id"]).encode() if more else None
    # After the cursor: it moves past a post the owner's home filters hide.
    return FeedPage(without_hidden(filters_for(owner, "home"), page), cursor)
