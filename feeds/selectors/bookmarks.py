"""The bookmarks page (docs/discovery.md#bookmarks): the reader's bookmarks,
newest first, keyset on the bookmark's (ts, _id), each with its post looked
up in the same aggregate. A post the reader may no longer see (deleted,
removed, a circle they left, an author who blocked them or whom they
blocked) is left out when the list is read."""

from feeds.documents import LIVE, Bookmark, Post, card_exclusion
from feeds.selectors.pages import FeedPage
from feeds.selectors.visibility import visible_posts
from profiles import selectors as people
from profiles.documents import User
from socialsite.cursors import Cursor


def bookmarks_page(viewer: User, before: Cursor | None, limit: int) -> FeedPage:
    conditions: list[dict] = [{"owner": viewer.handle}]
    if before is not None:
        conditions.append({"ts": {"$lte": before.ts}})
        conditions.append({"$or": [{"ts": {"$lt": before.ts}}, {"_id": {"$lt": before.id}}]})
    rows = list(
        Bookmark._get_collection().aggregate(
            [
                {"$match": {"$and": conditions}},
                {"$sort": {"ts": -1, "_id": -1}},
                {"$limit": limit + 1},
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
    page, more = rows[:limit], len(rows) > limit
    cursor = Cursor(page[-1]["ts"], page[-1]["_id"]).encode() if more else None
    # Each post knows its place in the list, the bookmark's (ts, _id), as a
    # timeline's post knows its entry's (timelines/selectors/pages.py `position`).
    posts = [{**row["_post"][0], "_at": (row["ts"], row["_id"])} for row in page if row["_post"]]
    blocked = set(viewer.blocked)
    posts = [p for p in posts if p["by"]["id"] not in blocked]
    strangers = sorted({p["by"]["id"] for p in posts} - {viewer.handle})
    blockers = people.blockers_among(viewer.handle, strangers) if strangers else set()
    posts = visible_posts(viewer, [p for p in posts if p["by"]["id"] not in blockers])
    return FeedPage(posts, cursor)
