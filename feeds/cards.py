"""Post documents (raw dicts) turned into what the post template shows."""

from feeds import polls
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
        self.comments_shown = post.get("comments_shown") or []
        self.removed = bool(post.get("removed"))
        self.is_own = viewer.is_authenticated and viewer.handle == self.author_handle
        self.poll = (
            polls.poll_results(post, viewer.handle, choice=choice) if self.type == "poll" else None
        )

    @property
    def visibility(self) -> str:
        if PUBLIC in self.circles:
            return "Public"
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
    votes = viewer_votes(viewer, posts)
    return [PostCard(p, viewer, votes.get(p["_id"])) for p in posts]
