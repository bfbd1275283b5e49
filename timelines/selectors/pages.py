"""Every read the feed, wall, incoming and post pages need.

One pager serves news and walls under every timeline model: it asks the
configured store for entries, merges a news page's pulled authors' posts
(timelines/selectors/beside.py), resolves linked entries with one `$in` query,
filters, and falls back to the read model where the store cannot answer
(docs/performance.md: a `cache` news page with link entries is 2 round trips).
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from django.conf import settings

from feeds.documents import LIVE
from feeds.page_keys import FOUND, PULLED_IN
from feeds.selectors.filtering import keeping, without_hidden
from feeds.selectors.lookups import PageLookups
from feeds.selectors.pages import FeedPage, live_posts
from feeds.selectors.streams import news_blockers, posts_page
from feeds.selectors.visibility import Sight, news_hidden, visible_posts
from profiles import selectors as people
from profiles.documents import User
from profiles.filters import Filters, filters_for
from socialsite.clock import aware
from socialsite.cursors import Cursor
from timelines.selectors import beside
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
# chunks (reads of the timeline); this bounds the work of one page.
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


@dataclass
class PageAsk:
    """What one page asks of a timeline. `keep` filters each chunk of posts;
    `keep_read`, when given, replaces it for chunks the read model answered
    (its query may decide everything). `hidden`: the authors the read
    model's news query leaves out (default: the owner's blocks). `reader`:
    the signed-in viewer, whose likes, votes and circle edges the
    timeline's read looks up beside the entries (feeds/selectors/lookups.py).
    `pins`: a wall's first page's pinned posts, read with the first chunk
    and left out of the chronological posts."""

    kind: str
    owner: User
    keep: Keep
    force_read: bool = False
    limit: int | None = None
    keep_read: Keep | None = None
    hidden: list[str] | None = None
    reader: str | None = None
    wall_owner: str | None = None
    pins: Pins | None = None


class _Pager:
    """One page, read chunk by chunk: ask the configured store (or the read
    model) for entries (`_chunk`), keep the posts the page shows
    (`_kept`), and go on with the rest of the chunk, then with a chunk read
    from where it was used up, while the page is short (`page`)."""

    def __init__(self, ask: PageAsk):
        self.kind, self.owner, self.keep, self.keep_read = (
            ask.kind,
            ask.owner,
            ask.keep,
            ask.keep_read,
        )
        # No pins: nothing read, nothing left out.
        self.pins = ask.pins or Pins(ask.owner.handle, [], ask.owner)
        self.hidden = ask.owner.blocked if ask.hidden is None else ask.hidden
        self.limit = ask.limit or settings.FEED_PAGE_SIZE
        self.store = get_store()
        self.use_read = ask.force_read or not self.store.stores_entries
        self.lookups = PageLookups(ask.reader, ask.wall_owner)
        # News under a stored model merges the pulled authors' posts and the
        # followed tags' (timelines/selectors/beside.py); the read model's
        # query holds them already.
        own_news = ask.kind == "news" and ask.reader == ask.owner.handle
        self.tags = tuple(ask.owner.followed_tags) if own_news else ()
        self.pulling = own_news and (bool(pulls.authors()) or bool(self.tags))
        # Who blocked the reader, once for the whole page and every model's
        # followed-tags read (its query leaves them out): one read on the
        # `user.blocked` index, only when the reader follows tags
        # (docs/performance.md#round-trip-budgets).
        self.blockers = news_blockers(ask.owner.handle, self.tags)
        self.pulled_ids: set = set()
        self.once: Once | None = None

    def page(self, before: Cursor | None) -> FeedPage:
        # Each post once, however many of its reposts the timeline holds
        # (timelines/selectors/repeats.py: at its newest place, not again on an older page).
        self.once = once = Once(self.kind, self.owner.handle, before, self.hidden)
        collected: list[dict] = []
        cursor = before
        chunk: Chunk | None = None
        left: list[dict] = []  # the entries of the last chunk not used yet
        reads = 0
        while True:
            if left:
                # The rest of the chunk read already, all of it: a page whose
                # first posts the reader may not see (a wall's circle posts)
                # reads no more, and a model whose entries came without their
                # lookups resolves the rest in one batch
                # (docs/performance.md#one-read-for-a-page).
                entries, used = once.pick(left, len(left))
            else:
                if reads == MAX_CHUNKS:
                    break
                # Room for the pins the page leaves out, so that they cost no second chunk.
                want = self.limit + 1 - len(collected) + self.pins.room
                chunk = self._chunk(cursor, want)
                reads += 1
                self.pins.found(chunk)
                left = chunk.entries
                entries, used = once.pick(left, want)
            collected += self._kept(entries)
            if used:
                cursor = Cursor.of(left[used - 1])
            left = left[used:]
            if len(collected) > self.limit:
                break
            if left:
                continue  # the rest of this chunk
            assert chunk is not None  # nothing is left before the first read
            if not chunk.complete:
                self.use_read = True
                continue
            if chunk.exhausted:
                break
        page = collected[: self.limit]
        more = len(collected) > self.limit
        next_cursor = position(page[-1]).encode() if more and page else None
        return FeedPage(page, next_cursor, pinned=self.pins.posts)

    def _chunk(self, cursor: Cursor | None, want: int) -> Chunk:
        """Entries older than `cursor`: from the read model, or from the
        store with the page's lookups (and the pulled posts merged in)."""
        if self.use_read:
            return read_entries(
                self.kind,
                self.owner.handle,
                cursor,
                want,
                self.hidden,
                tags=self.tags,
                blockers=self.blockers,
            )
        # Twice what is wanted: room for the repeats of reposted posts,
        # which `pick` skips before anything is resolved, so that a page
        # of them needs no second chunk. Stored entries are small.
        # A link read leaves the embedded copies on the server
        # (docs/storage-models.md#shadow-models: one set of stored entries serves both).
        ask = 2 * want
        lookups = self.lookups
        if self.pulling:
            # Pulled posts are each a post of its own: a page takes at most
            # `want` of them, and one more says whether more are left.
            window = pulls.Window(
                want + 1,
                before=cursor,
                hidden=frozenset(self.hidden),
                tags=self.tags,
                blockers=self.blockers,
            )
            lookups = replace(lookups, beside=beside.Beside(window))
        chunk = self.store.entries(
            self.kind,
            self.owner.handle,
            cursor,
            ask,
            copies=reads_copies(),
            lookups=self.pins.asking(lookups),
        )
        if self.pulling:
            chunk = _with_pulled(chunk, self.owner.handle, window, ask)
            self.pulled_ids |= {entry["id"] for entry in chunk.pulled or ()}
        return chunk

    def _kept(self, entries: list[dict]) -> list[dict]:
        """The posts of these entries the page shows, each seen first here."""
        assert self.once is not None  # set by `page`
        posts = _resolve(entries)
        for post in posts:
            if post["_id"] in self.pulled_ids and not post.get("reposted_by"):
                post[PULLED_IN] = True
        keep = (self.keep_read or self.keep) if self.use_read else self.keep
        posts = self.pins.drop(keep(posts))
        return self.once.first_sightings(posts, store=None if self.use_read else self.store)


def _with_pulled(chunk: Chunk, reader: str, window: pulls.Window, limit: int) -> Chunk:
    """The chunk with the pulled authors' posts merged in: read with it (a
    store that takes lookups), else by one aggregate of their own. The
    result's `pulled` are the entries it took from them."""
    found = chunk.pulled
    if found is None:
        found = beside.entries(beside.read(reader, window))
    merged = beside.merge(chunk, found, limit, asked=window.limit)
    taken = {id(entry) for entry in found}  # not a stored entry of the same post
    merged.pulled = [entry for entry in merged.entries if id(entry) in taken]
    return merged


def news_page(viewer: User, before: Cursor | None = None, limit: int | None = None) -> FeedPage:
    """The viewer's news feed. Delivery chose the audience when the post was
    written; visibility is decided again now (docs/privacy.md), so whoever was
    unfollowed, taken out of a circle or blocked since loses sight of the
    circle posts already in their timeline at once. Blocks cost nothing (the
    viewer's list is on their document); circle posts by others cost one
    graph query per page. The read model's query already applies the live
    graph, the blocks and the mutes, so its chunks are kept as they are.
    Muted authors leave at read time too (`Sight(news=True)`): a mute empties
    nothing, and an unmute brings their posts back at once. `limit`: the
    page's length (the client API's `limit`), the page's own by default."""
    rebuilding = viewer.feed_rebuild is not None
    # The home filters' hidden posts leave every chunk, the read model's too
    # (docs/privacy.md#keyword-filters): as a mute, at read time.
    home = filters_for(viewer, "home")
    ask = PageAsk(
        "news",
        viewer,
        news_keep(viewer, home),
        force_read=rebuilding,
        keep_read=keeping(list, home),
        hidden=sorted(news_hidden(viewer)),
        reader=viewer.handle,
        limit=limit,
    )
    page = _Pager(ask).page(before)
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
    ask = PageAsk(
        "wall",
        owner,
        keeping(keep, public),
        reader=viewer.handle,
        wall_owner=owner.handle,
        pins=pins,
    )
    page = _Pager(ask).page(before)
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


def circle_page(viewer: User, circle: str, before: Cursor | None, limit: int) -> FeedPage:
    """Posts by the members of one of the viewer's circles (the client API's
    list timeline, docs/api.md#timelines), newest first: one read of the
    members on the `(_f, _g, _t)` index, one aggregate on the posts'
    `(by.id, ts, _id)` index with the viewer's likes and votes beside, and
    visibility, blocks, mutes and the home filters decided now, as on the
    news feed (someone taken out of the circle leaves it at once)."""
    members = circle_authors(viewer, circle)
    if not members:
        return FeedPage([], None)
    query = {"by.id": {"$in": sorted(members)}, **LIVE}
    posts = posts_page(query, before, limit + 1, lookups=PageLookups(viewer.handle))
    page, more = posts[:limit], len(posts) > limit
    cursor = position(page[-1]).encode() if more else None
    # After the cursor: it moves past what the viewer may not see.
    return FeedPage(news_keep(viewer)(page), cursor)


def news_keep(viewer: User, home: Filters | None = None) -> Keep:
    """What the news feed keeps of the posts it reads, in order: those the
    viewer may see now, not by someone they muted, and none the home
    filters (`home`, the viewer's own unless given) hide. The list timeline
    keeps the same, and the client API's user and list streams keep a new
    post by it (api/streaming/)."""
    home = filters_for(viewer, "home") if home is None else home
    return keeping(Sight(viewer, news=True).visible, home)


def circle_authors(viewer: User, circle: str) -> set[str]:
    """Whose posts one of the viewer's circles shows as a list (the client
    API's list timeline and stream): its members, less those the viewer
    blocked or muted. One read of the members on the `(_f, _g, _t)` index."""
    hidden = news_hidden(viewer)
    return {h for h in people.circle_member_handles(viewer.handle, circle) if h not in hidden}
