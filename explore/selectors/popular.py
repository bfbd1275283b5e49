"""What `/explore/` and the landing page show beside the trends
(docs/discovery.md#explore): popular public posts, and people who post.

Popular posts are ranked as Mastodon ranks its trending statuses: a post's
engagement (likes + reposts + comments) decaying with its age, halved every
HALF_LIFE_HOURS; a post nobody reacted to is not popular. The page reads a
bounded window, the newest SCANNED live public posts of the last
WINDOW_DAYS (a walk of the `ts` index, one round trip, counts and authors
only), ranks it here, and reads the few posts it shows by `_id` (one more).
A busy site fills the window within hours, and a post older than the
window's oldest is not ranked: a larger site would rank in the periodic job
and keep the list, as the trends do.

Visibility is decided when read (docs/privacy.md): public, live posts only;
never by someone the viewer blocked or muted (both on their document) nor by
someone who blocked them (one `$in` on the shown authors); the viewer's
"public" keyword filters apply, as on a tag page. The people are the
suggestions' (feeds/selectors/suggestions.py): for a signed-in reader
`people_to_follow`, for a visitor the window's most active posters, with
the same exclusions (`posters_among`).
"""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from feeds.documents import CARD_FIELDS, PUBLIC
from feeds.selectors.filtering import without_hidden
from feeds.selectors.posts import posts_read, recent_public_posts
from feeds.selectors.suggestions import people_to_follow, posters_among
from feeds.selectors.visibility import news_hidden, visible_posts
from profiles import selectors as people
from profiles.documents import User
from profiles.filters import filters_for
from socialsite.clock import aware, now

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor

# The window ranked: its age, and how many posts it holds at most (one batch).
WINDOW_DAYS = 3
SCANNED = 400
# A post's engagement counts half as much every this many hours.
HALF_LIFE_HOURS = 24
# How many popular posts and people `/explore/` shows.
SHOWN = 10
PEOPLE = 5
# The landing page: how many of the newest public posts it looks through,
# and how many it shows (one per author).
LANDING_SCANNED = 40
LANDING_POSTS = 4

# What ranking reads of each post in the window.
WINDOW_FIELDS = {
    "by.id": 1,
    "to": 1,
    "ts": 1,
    "likes_count": 1,
    "reposts_count": 1,
    "comments_count": 1,
}


@dataclass(frozen=True)
class Explore:
    posts: list[dict]  # the popular posts, most popular first
    people: list[dict]  # as `posters_among` gives them


def engagement(post: dict) -> int:
    counts = (post.get(name) or 0 for name in ("likes_count", "reposts_count", "comments_count"))
    return sum(max(count, 0) for count in counts)


def score(post: dict, at: datetime) -> float:
    hours = max((at - aware(post["ts"])).total_seconds() / 3600, 0.0)
    return engagement(post) * 0.5 ** (hours / HALF_LIFE_HOURS)


def recent_window(at: datetime) -> list[dict]:
    """The posts ranked: the newest SCANNED live public posts since
    WINDOW_DAYS before `at`, with WINDOW_FIELDS."""
    since = at - timedelta(days=WINDOW_DAYS)
    return recent_public_posts(SCANNED, fields=WINDOW_FIELDS, since=since)


def popular_posts(
    viewer: "User | AnonymousVisitor", window: list[dict], *, at: datetime, limit: int = SHOWN
) -> list[dict]:
    """The `limit` posts of `window` with the highest score that the viewer
    may see, as cards' raw posts, most popular first."""
    hidden = news_hidden(viewer)
    ranked = sorted(
        (p for p in window if engagement(p) > 0 and p["by"]["id"] not in hidden),
        key=lambda p: (score(p, at), p["ts"], p["_id"]),
        reverse=True,
    )[: limit * 2]  # room for the posts of whoever blocked the viewer
    if not ranked:
        return []
    order = {p["_id"]: n for n, p in enumerate(ranked)}
    posts = [
        p
        for p in posts_read(order, CARD_FIELDS)
        # Removed or made non-public since the window was read.
        if p.get("removed") is None and not p.get("author_suspended") and PUBLIC in p["circles"]
    ]
    if viewer.is_authenticated:
        strangers = sorted({p["by"]["id"] for p in posts} - {viewer.handle})
        blockers = people.blockers_among(viewer.handle, strangers) if strangers else set()
        posts = [p for p in posts if p["by"]["id"] not in blockers]
    posts = without_hidden(filters_for(viewer, "public"), visible_posts(viewer, posts))
    posts.sort(key=lambda p: order[p["_id"]])
    return posts[:limit]


def active_posters(window: list[dict], *, limit: int = PEOPLE) -> list[dict]:
    """The people with the most public posts on their own walls in `window`
    (the most recent first among equals), as `posters_among` gives them."""
    counts = Counter(p["by"]["id"] for p in window if p.get("to") is None)
    return posters_among([handle for handle, _ in counts.most_common(limit * 4)], limit=limit)


def explore(viewer: "User | AnonymousVisitor", *, at: datetime | None = None) -> Explore:
    """`/explore/`'s popular posts and people to follow."""
    at = at or now()
    window = recent_window(at)
    posts = popular_posts(viewer, window, at=at)
    if viewer.is_authenticated:
        return Explore(posts, people_to_follow(viewer))
    return Explore(posts, active_posters(window))


def landing(*, limit: int = LANDING_POSTS) -> Explore:
    """For the signed-out landing page: the newest public post (on their own
    wall) of each of the latest posters one may suggest, and those people."""
    recent = recent_public_posts(LANDING_SCANNED, fields=CARD_FIELDS, on_walls=False)
    posters = posters_among(list(dict.fromkeys(p["by"]["id"] for p in recent)))
    shown: dict[str, dict] = {}
    allowed = {person["handle"] for person in posters}
    for post in recent:
        author = post["by"]["id"]
        if author in allowed and author not in shown:
            shown[author] = post
    return Explore(list(shown.values())[:limit], posters[:PEOPLE])
