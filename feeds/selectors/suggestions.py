"""People to follow, for a feed with too little in it (docs/discovery.md#explore).

First the people followed by those the reader follows (the most such
follows first), then the authors of the newest public posts; never the
reader, someone they follow, block, mute or are blocked by, staff or
advertiser accounts, or anyone who has not posted (`posters_among`). A
handful of reads, and only on a feed that shows nothing yet (or on
`/explore/`).
"""

from collections import Counter

from feeds.selectors.posts import recent_public_posts
from profiles import selectors as people
from profiles.documents import User

# How many suggestions a feed shows, and how many recent posts are scanned
# for their authors (a newest-first walk of the `ts` index).
SHOWN = 5
RECENT_POSTS = 200
# Of whom the reader follows, whose follows are asked (the first ones).
ASKED = 50


def people_to_follow(viewer: User, limit: int = SHOWN) -> list[dict]:
    """Up to `limit` people as {handle, name, bio, followers_count}."""
    followed, _ = people.news_graph(viewer.handle)
    muted = getattr(viewer, "muted", None) or ()
    left_out = {viewer.handle, *followed, *viewer.blocked, *muted}
    ranked: list[str] = []
    if followed:
        counts = Counter(
            handle for handle in people.followed_by_any(followed[:ASKED]) if handle not in left_out
        )
        ranked = [handle for handle, _ in counts.most_common()]
    posts = recent_public_posts(RECENT_POSTS, fields={"by.id": 1}, on_walls=False)
    for post in posts:
        author = post["by"]["id"]
        if author not in left_out and author not in ranked:
            ranked.append(author)
    return posters_among(ranked[: limit * 4], limit=limit, viewer=viewer.handle)


def posters_among(
    candidates: list[str], *, limit: int | None = None, viewer: str | None = None
) -> list[dict]:
    """Of `candidates` (handles, in order), the first `limit` (all without
    it) one may suggest, each as {handle, name, bio, followers_count}: people
    (never staff or advertiser accounts), active, with posts, and who have not
    blocked `viewer`. One read. `/explore/` and the landing page show
    visitors the active public posters this way (docs/discovery.md#explore)."""
    if not candidates:
        return []
    rows = {
        row["_id"]: row
        for row in people.users_read(
            candidates,
            {
                "name": 1,
                "role": 1,
                "status": 1,
                "blocked": 1,
                "posts_count": 1,
                "followers_count": 1,
                "profile.bio": 1,
            },
        )
    }
    chosen = []
    for handle in candidates:
        row = rows.get(handle)
        if (
            row is None
            or row.get("role") != "user"
            or row.get("status") != "active"
            or not row.get("posts_count")
            or (viewer is not None and viewer in (row.get("blocked") or ()))
        ):
            continue
        chosen.append(
            {
                "handle": handle,
                "name": row.get("name") or handle,
                "bio": (row.get("profile") or {}).get("bio") or "",
                "followers_count": row.get("followers_count") or 0,
            }
        )
        if len(chosen) == limit:
            break
    return chosen
