"""Post documents (raw dicts) turned into what the post template shows."""

from dataclasses import dataclass
from typing import TYPE_CHECKING

from feeds import mentions
from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.page_keys import FOUND, PULLED_IN
from feeds.selectors import marks, polls
from feeds.selectors.filtering import match
from profiles.documents import User
from profiles.filters import KeywordFilter, filters_for
from socialsite import fragments
from socialsite.clock import aware

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor


@dataclass(frozen=True)
class Seer:
    """What the cards read of the viewer, read once per page: the viewer is
    a lazy object around a document, costly to ask twenty times."""

    handle: str | None  # None: not signed in
    blocked: frozenset[str]
    # The ids (as strings) of the viewer's own pinned posts: their cards
    # offer "Unpin" rather than "Pin" (docs/discovery.md#pins).
    pinned: frozenset[str] = frozenset()

    @classmethod
    def of(cls, viewer: "User | AnonymousVisitor") -> "Seer":
        if not viewer.is_authenticated:
            return cls(None, frozenset())
        return cls(
            viewer.handle,
            frozenset(getattr(viewer, "blocked", None) or ()),
            frozenset(str(post_id) for post_id in getattr(viewer, "pinned", None) or ()),
        )


class PostCard:
    """A post as one viewer sees it. Every attribute that depends on the
    viewer is in `fragment_key`: the rendered card is cached under it (socialsite/fragments.py)."""

    def __init__(
        self,
        post: dict,
        viewer: "User | AnonymousVisitor",
        choice: int | None = None,
        liked: bool = False,
        *,
        reposted: bool = False,
        bookmarked: bool | None = None,
        seer: Seer | None = None,
    ) -> None:
        self.raw = post
        self.id = str(post["_id"])
        self.author_handle = post["by"]["id"]
        self.author_name = post["by"]["name"]
        self.to = post.get("to")
        self.circles = post.get("circles") or []
        self.type = post["type"]
        self.detail = post.get("detail") or {}
        # A post of another server's: its page there (docs/federation.md).
        self.url = post.get("url")
        self.ts = aware(post["ts"])
        self.edited = aware(post.get("edited"))
        self.comments_count = post.get("comments_count") or 0
        self.likes = max(post.get("likes_count") or 0, 0)
        self.reposts = max(post.get("reposts_count") or 0, 0)
        # Shown here because this handle reposted it (timelines/selectors/entries.py `resolve`).
        self.reposted_by = post.get("reposted_by")
        # Read from a pulled author's posts, not the stored timeline
        # (timelines/selectors/pulled.py).
        self.pulled = bool(post.get(PULLED_IN))
        self.liked = liked
        self.reposted = reposted  # the viewer reposted it, wherever this card shows it
        # The viewer bookmarked it; None: the page does not offer bookmarking.
        self.bookmarked = bookmarked
        # The viewer's keyword filter it matched on this page, if any
        # (`cards(context=...)`): the card then shows folded under its name.
        self.filtered: KeywordFilter | None = None
        seer = seer or Seer.of(viewer)
        # Blocks hide in both directions (docs/privacy.md): the viewer never sees
        # a preview by someone they blocked. Their list is on their document.
        self.comments_shown = [
            c
            for c in post.get("comments_shown") or []
            if (c.get("by") or {}).get("id") not in seer.blocked
        ]
        self.removed = bool(post.get("removed"))
        self.viewer_handle = seer.handle
        self.is_own = seer.handle is not None and seer.handle == self.author_handle
        # The author pinned it (known for one's own posts only), and whether
        # this card shows it as a pin, first on the wall (set by the wall).
        self.in_pins = self.is_own and self.id in seer.pinned
        self.pinned = False
        self.poll = (
            polls.poll_results(post, seer.handle, choice=choice) if self.type == "poll" else None
        )

    def fragment_key(self, viewer: fragments.Viewer, *, in_thread: bool) -> dict:
        """Every input of the card's HTML: the post as stored (a new like
        count, an edit, a vote, a removal or a new comment preview is a new
        version) and the viewer-dependent state, never the viewer's name."""
        return {
            "post": self.raw,
            "shown": self.comments_shown,
            "viewer": viewer.key(),
            "state": [
                self.liked,
                self.bookmarked,
                self.is_own,
                self.in_pins,
                self.pinned,
                self.reposted_by_viewer,
                self.poll["choice"] if self.poll else None,
                # Ended or not, results shown or not: both change with the
                # clock or the viewer, never with the stored post.
                self.poll["expired"] if self.poll else None,
                self.poll["shown"] if self.poll else None,
                in_thread,
            ],
            "linked": mentions.linked_mentions(
                self.detail.get("text"),
                self.detail.get("question"),
                *(comment.get("text") for comment in self.comments_shown),
            ),
        }

    @property
    def visibility(self) -> str:
        """The audience badge. Circle names are private to their owner
        (docs/privacy.md): everyone else sees only that the audience is limited."""
        if PUBLIC in self.circles:
            return "Public"
        if not self.is_own:
            return "Circles"
        if ALL_CIRCLES in self.circles:
            return "All circles"
        return ", ".join(self.circles)

    @property
    def is_public(self) -> bool:
        return PUBLIC in self.circles

    @property
    def reposted_by_viewer(self) -> bool:
        return self.reposted or (
            self.reposted_by is not None and self.reposted_by == self.viewer_handle
        )

    @property
    def can_pin(self) -> bool:
        """The Pin button shows on one's own public, live posts (the
        service checks again); Unpin on every post one pinned."""
        return self.is_own and self.is_public and not self.removed and not self.in_pins

    @property
    def can_repost(self) -> bool:
        """The button shows where a repost could be allowed: someone else's
        public post (the service decides the rest: blocks, a removal)."""
        return self.is_public and not self.is_own and not self.removed

    @property
    def map_url(self) -> str:
        lat, lng = self.detail.get("lat"), self.detail.get("lng")
        return f"https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=15/{lat}/{lng}"


def cards(
    posts: list[dict],
    viewer: "User | AnonymousVisitor",
    *,
    repost_state: bool = False,
    bookmark_state: bool = False,
    context: str | None = None,
) -> list[PostCard]:
    """The page's cards, with every @mention they show announced, so that the
    page looks them up in one query (feeds/mentions.py).

    `repost_state`: ask which of the posts the viewer reposted (the post
    page). A timeline knows it only of the entries that are the viewer's
    own reposts, and asking costs a query its round-trip budget has no room
    for (docs/performance.md).

    `bookmark_state`: give each card its Bookmark button (the feed, walls,
    the incoming page, the post page). A timeline's read looked it up beside
    its posts; the rest are asked for in one query.

    `context`: the page's keyword-filter context (profiles/filters.py
    CONTEXTS): each card the viewer's filters of it match is marked. The
    page's selector already left out what a hide filter matches."""
    # What the timeline's read looked up beside a post (FOUND) needs no
    # query; the rest (the post page, the read model) is asked for in one.
    known = {p["_id"]: p[FOUND] for p in posts if "liked" in (p.get(FOUND) or {})}
    unknown = [p for p in posts if p["_id"] not in known]
    votes = polls.viewer_votes(viewer, unknown)
    votes.update({pid: f["vote"] for pid, f in known.items() if f["vote"] is not None})
    # Only a liked post can be liked by the viewer: a page with no likes on
    # it costs no query for the buttons' state. Reposts likewise.
    liked = marks.liked_by(viewer, [p["_id"] for p in unknown if p.get("likes_count")])
    liked |= {str(pid) for pid, f in known.items() if f["liked"]}
    reposted = (
        marks.reposted_by(viewer, [p["_id"] for p in posts if p.get("reposts_count")])
        if repost_state
        else set()
    )
    marked: set | None = None
    if bookmark_state and viewer.is_authenticated:
        marked = {pid for pid, f in known.items() if f.get("bookmarked")}
        # Someone with no bookmarks (their count came with the session)
        # costs the rest no query, as a page with no likes costs none.
        has_any: int = getattr(viewer, "bookmarks_count", 0) or 0
        if unknown and has_any:
            marked |= marks.bookmarked_among(viewer.handle, [p["_id"] for p in unknown])
    seer = Seer.of(viewer)
    page_cards = [
        PostCard(
            p,
            viewer,
            votes.get(p["_id"]),
            liked=str(p["_id"]) in liked,
            reposted=str(p["_id"]) in reposted,
            bookmarked=None if marked is None else p["_id"] in marked,
            seer=seer,
        )
        for p in posts
    ]
    # Who the texts name was stored with them when they were written (the
    # post's `mentions`, each comment preview's): no query. Texts stored
    # before that are announced, to be looked up together in one query.
    # Only a text with an "@" can mention anyone: the rest skip the pattern.
    unknown_texts = []
    for card in page_cards:
        texts = [
            (card.detail.get("text"), card.raw.get("mentions")),
            (card.detail.get("question"), card.raw.get("mentions")),
            *((c.get("text"), c.get("mentions")) for c in card.comments_shown),
        ]
        for text, people_then in texts:
            if text is not None and "@" in str(text) and not mentions.learn(text, people_then):
                unknown_texts.append(text)
    mentions.prefetch(unknown_texts)
    if context is not None and (filters := filters_for(viewer, context)):
        for card in page_cards:
            card.filtered = match(filters, card.raw)
    return page_cards
