"""Post documents (raw dicts) turned into what the post template shows."""

from feeds import mentions, polls
from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.selectors import viewer_votes
from socialsite.clock import aware


class PostCard:
    def __init__(self, post: dict, viewer, choice=None):
        self.raw = post
        self.id = str(post["_id"])
        self.author_handle = post["by"]["id"]
        self.author_name = post["by"]["name"]
        self.to = post.get("to")
        self.circles = post.get("circles") or []
        self.type = post["type"]
        self.detail = post.get("detail") or {}
        self.ts = aware(post["ts"])
        self.edited = aware(post.get("edited"))
        self.comments_count = post.get("comments_count") or 0
        # Blocks hide in both directions (DESIGN.md §4): the viewer never sees
        # a preview by someone they blocked. Their list is on their document.
        blocked = set(getattr(viewer, "blocked", None) or ())
        self.comments_shown = [
            c
            for c in post.get("comments_shown") or []
            if (c.get("by") or {}).get("id") not in blocked
        ]
        self.removed = bool(post.get("removed"))
        self.is_own = viewer.is_authenticated and viewer.handle == self.author_handle
        self.poll = (
            polls.poll_results(post, viewer.handle, choice=choice) if self.type == "poll" else None
        )

    @property
    def visibility(self) -> str:
        """The audience badge. Circle names are private to their owner
        (DESIGN.md §4): everyone else sees only that the audience is limited."""
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
    def map_url(self) -> str:
        lat, lng = self.detail.get("lat"), self.detail.get("lng")
        return f"https://www.openstreetmap.org/?mlat={lat}&mlon={lng}#map=15/{lat}/{lng}"


def cards(posts: list[dict], viewer) -> list[PostCard]:
    """The page's cards, with every @mention they show announced, so that the
    page looks them up in one query (feeds/mentions.py)."""
    votes = viewer_votes(viewer, posts)
    page_cards = [PostCard(p, viewer, votes.get(p["_id"])) for p in posts]
    mentions.prefetch(
        text
        for card in page_cards
        for text in (
            card.detail.get("text"),
            card.detail.get("question"),
            *(comment.get("text") for comment in card.comments_shown),
        )
    )
    return page_cards
