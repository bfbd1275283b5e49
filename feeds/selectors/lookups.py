"""What a page reads along with its timeline, in the timeline's own read.

A card shows more than the post: the reader's like and poll vote, and for a
circle post by someone else, whether its author still has the reader in
that circle (docs/privacy.md). Asked one by one after the timeline, each is
a round trip; here they are `$lookup` stages appended to the timeline's
aggregate, so a news feed or a wall under the `cache` model is two round
trips in all, the session's and this one
(docs/performance.md#round-trip-budgets). Every lookup is a point read of a
unique or leading index: `post` by `_id` (a link entry's post, live posts
only), `post_like` on `(post, by)`, `poll_vote` on `(post, voter)` and
`following` on `(_f, _t)` (profiles' own stage, `circles_placed_in_lookup`).

The store unwinds its page (one row per entry), adds these stages, and
hands each entry back with what was found under `FOUND` (`PageLookups.take`). Entries
without it (a store that does not take lookups, the read model) are served
as before, by one query per kind of fact for the whole page.
"""

from dataclasses import dataclass

from mongoengine import Document

from feeds.documents import LIVE, PUBLIC, PollVote, Post, PostLike, card_exclusion
from feeds.timelines.base import FOUND
from profiles import selectors as people


@dataclass(frozen=True)
class PageLookups:
    """The lookups of one reader's page; `reader` None: a signed-out visitor,
    for whom only link entries are looked up."""

    reader: str | None
    # A wall's owner: whether they follow the author of each post by someone
    # else on their wall (a wall shows those only then).
    wall_owner: str | None = None

    def stages(self, entry: str) -> list[dict]:
        """`$lookup` stages for rows that each hold one timeline entry at the
        field `entry` (after an `$unwind`)."""
        at = f"${entry}"
        stages: list[dict] = [
            {
                "$addFields": {
                    # The post the entry shows (the original, for a repost)...
                    "_pid": {"$ifNull": [f"{at}.of", f"{at}.id"]},
                    # ...read from `post` only when no copy is embedded.
                    "_link": {
                        "$cond": [
                            {"$gt": [f"{at}.post", None]},
                            None,
                            {"$ifNull": [f"{at}.of", f"{at}.id"]},
                        ]
                    },
                    # Whose edge decides sight: the author of a circle post
                    # (a repost shows a public post: no edge needed).
                    "_circled": {
                        "$cond": [
                            {
                                "$or": [
                                    {"$gt": [f"{at}.of", None]},
                                    {"$in": [PUBLIC, {"$ifNull": [f"{at}.circles", []]}]},
                                ]
                            },
                            None,
                            f"{at}.by",
                        ]
                    },
                }
            },
            # Without its `_id` (the row's `_link` is it): an exclusion
            # projection, since the card reads all of a post but its bookkeeping.
            _lookup(
                Post,
                "_link",
                "_id",
                [{"$match": LIVE}, {"$project": {**card_exclusion(), "_id": 0}}],
                "_linked",
            ),
        ]
        if self.wall_owner is not None:
            stages += [
                {
                    "$addFields": {
                        "_guest": {
                            "$cond": [
                                {
                                    "$or": [
                                        {"$gt": [f"{at}.of", None]},
                                        {"$eq": [f"{at}.by", self.wall_owner]},
                                    ]
                                },
                                None,
                                f"{at}.by",
                            ]
                        }
                    }
                },
                people.followed_lookup("_guest", self.wall_owner, "_followed"),
            ]
        if self.reader is not None:
            stages += [
                _lookup(PostLike, "_pid", "post", [{"$match": {"by": self.reader}}], "_liked"),
                _lookup(PollVote, "_pid", "post", [{"$match": {"voter": self.reader}}], "_vote"),
                people.circles_placed_in_lookup("_circled", self.reader, "_edge"),
            ]
        return stages

    def take(self, row: dict, entry: str) -> dict:
        """The entry of an unwound row, with what the lookups found under FOUND:
        `linked` (the live post of a link entry, or None: deleted, removed),
        and for a signed-in reader `liked`, `vote` (the option, or None) and
        `placed` (the circles the author put the reader in, for a circle post);
        on a wall, `owner_follows` for a post by someone else."""
        linked = (row.get("_linked") or [None])[0]
        found: dict = {"linked": None if linked is None else {**linked, "_id": row["_link"]}}
        if self.reader is not None:
            vote = (row.get("_vote") or [None])[0]
            found["liked"] = bool(row.get("_liked"))
            found["vote"] = None if vote is None else vote.get("option")
            if row.get("_circled") is not None:
                edge = (row.get("_edge") or [None])[0]
                found["placed"] = list((edge or {}).get("_g") or [])
        if self.wall_owner is not None and row.get("_guest") is not None:
            found["owner_follows"] = bool(row.get("_followed"))
        return {**row[entry], FOUND: found}


def _lookup(
    document: type[Document], local: str, foreign: str, pipeline: list[dict], into: str
) -> dict:
    """A `$lookup` of at most one document: a point read of an index on
    `foreign` (MongoDB 5.0's `localField` with a `pipeline`)."""
    return {
        "$lookup": {
            "from": document._get_collection_name(),
            "localField": local,
            "foreignField": foreign,
            "pipeline": [*pipeline, {"$limit": 1}],
            "as": into,
        }
    }
