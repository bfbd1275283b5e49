"""A person's likes, newest first (the client API's favourites,
docs/api.md#bookmarks-and-favourites): the bookmarks page's read
(feeds/selectors/bookmarks.py) over `post_like`, each like with its post
looked up in the same aggregate, and what the reader may no longer see
(deleted, removed, a circle they left, a block either way) left out when
the list is read.

The `(by, ts)` index orders a person's likes by time alone, so the keyset
is the like's time, its `_id` breaking ties within one millisecond here
rather than in the sort (a sort on `_id` too would not be served by the
index). One person's two likes in one millisecond are filtered exactly;
only more than a page of them would be cut at the page's end.
"""

from feeds.documents import LIVE, Post, PostLike, card_exclusion
from feeds.selectors.pages import FeedPage
from feeds.selectors.visibility import visible_posts
from profiles import selectors as people
from profiles.documents import User
from socialsite.clock import aware
from socialsite.cursors import Cursor


def liked_page(viewer: User, before: Cursor | None, limit: int) -> FeedPage:
    match: dict = {"by": viewer.handle}
    if before is not None:
        match["ts"] = {"$lte": before.ts}
    rows = list(
        PostLike._get_collection().aggregate(
            [
                {"$match": match},
                {"$sort": {"ts": -1}},
                # Room for the likes at the cursor's own millisecond, dropped below.
                {"$limit": limit + 1 + (5 if before is not None else 0)},
                {
                    "$lookup": {
                        "from": Post._get_collection_name(),
                        "localField": "post",
                        "foreignField": "_id",
                        "pipeline": [{"$match": LIVE}, {"$project": card_exclusion()}],
                        "as": "_post",
                    }
                },
            ]
        )
    )
    rows.sort(key=lambda row: (aware(row["ts"]), row["_id"]), reverse=True)
    if before is not None:
        rows = [row for row in rows if (aware(row["ts"]), row["_id"]) < (before.ts, before.id)]
    page, more = rows[:limit], len(rows) > limit
    cursor = Cursor(aware(page[-1]["ts"]), page[-1]["_id"]).encode() if more else None
    # Each post knows its place in the list, the like's (ts, _id).
    posts = [{**row["_post"][0], "_at": (row["ts"], row["_id"])} for row in page if row["_post"]]
    blocked = set(viewer.blocked)
    posts = [p for p in posts if p["by"]["id"] not in blocked]
    strangers = sorted({p["by"]["id"] for p in posts} - {viewer.handle})
    blockers = people.blockers_among(viewer.handle, strangers) if strangers else set()
    posts = visible_posts(viewer, [p for p in posts if p["by"]["id"] not in blockers])
    return FeedPage(posts, cursor)
