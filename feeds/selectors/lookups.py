"""What a page reads along with its timeline, in the timeline's own read.

A card shows more than the post: the reader's like and poll vote, for a
circle post by someone else whether its author still has the reader in that
circle (docs/privacy.md), and on a wall whether its owner follows a guest
who posted there. Asked one by one after the timeline, each is a round trip;
here they are `$lookup` stages appended to the timeline's aggregate, so a
news feed or a wall under the `cache` model is two round trips in all, the
session's and this one (docs/performance.md#one-read-for-a-page).

The stages work on the page's array of entries as it is (no `$unwind`):
each `$lookup` takes an array of ids as its `localField` (the linked posts,
the posts shown, the circle posts' authors), which a server answers with a
point read of an index per id: `post` by `_id` (live posts only),
`post_like` on `(post, by)`, `poll_vote` on `(post, voter)`, `bookmark` on
`(owner, post)`, and the graph's
`following` on `(_f, _t)` and `(_t, _f)` (profiles' own stages). Each result
array holds at most one document per entry of the page. `take` hands each
entry back with what was found under `FOUND`. Entries without it (a store
that does not take lookups, the read model) are served as before, by one
query per kind of fact for the whole page.
"""

from dataclasses import dataclass
from typing import Protocol

from bson import ObjectId
from mongoengine import Document

from feeds.documents import LIVE, PUBLIC, Bookmark, PollVote, Post, PostLike, card_exclusion
from feeds.page_keys import FOUND
from profiles import selectors as people


class ReadBeside(Protocol):
    """Posts a page reads in its own aggregate before the lookups, whose
    likes and votes are looked up too: a news page's pulled authors' and
    followed tags' posts (timelines/selectors/beside.py `Beside`)."""

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields of the row that hold those posts."""
        ...

    def stages(self, reader: str) -> list[dict]:
        """The stages that read them into the row (none: nothing to read)."""
        ...

    def entries(self, row: dict) -> list[dict] | None:
        """Them as timeline entries, newest first; None: the row was read
        without them."""
        ...


def _missing(path: str) -> dict:
    # `$ifNull` then `$eq`: a missing field and a null one alike (the form
    # the embedded database evaluates as a server does).
    return {"$eq": [{"$ifNull": [path, None]}, None]}


# Conditions on one entry `$$e` of the page.
_NO_COPY = _missing("$$e.post")  # a link entry: its post is read from `post`
_NOT_A_REPOST = _missing("$$e.of")
_NOT_PUBLIC = {"$eq": [{"$in": [PUBLIC, {"$ifNull": ["$$e.circles", []]}]}, False]}
_SHOWN = {"$ifNull": ["$$e.of", "$$e.id"]}  # the post an entry shows (a repost's original)


def _each(entries: str, value: object, where: dict | None = None) -> dict:
    """`value` of each entry of the array at `entries` (that meets `where`)."""
    source = (
        entries if where is None else {"$filter": {"input": entries, "as": "e", "cond": where}}
    )
    return {"$map": {"input": source, "as": "e", "in": value}}


@dataclass(frozen=True)
class PageLookups:
    """The lookups of one reader's page; `reader` None: a signed-out visitor,
    for whom only link entries are looked up."""

    reader: str | None
    # A wall's owner: whether they follow the author of each post by someone
    # else on their wall (a wall shows those only then).
    wall_owner: str | None = None
    # A news page: the pulled authors' and followed tags' posts it merges,
    # read with it, their likes and votes too.
    beside: ReadBeside | None = None
    # A wall's first page: its owner's pinned posts, read by `_id` beside the
    # entries (docs/discovery.md#pins), with the reader's likes and votes.
    pins: tuple[ObjectId, ...] = ()

    def stages(self, entries: str) -> list[dict]:
        """Stages for rows that hold an array of timeline entries at the
        field `entries`."""
        at = f"${entries}"
        ids: dict = {"_links": _each(at, _SHOWN, _NO_COPY)}
        stages: list[dict] = []
        if self.reader is not None and self.beside is not None:
            stages += self.beside.stages(self.reader)
        if self.reader is not None:
            ids["_shown"] = _each(at, _SHOWN)
            if stages and self.beside is not None:  # the posts read above
                pulled = [{"$ifNull": [f"${field}._id", []]} for field in self.beside.fields]
                ids["_shown"] = {"$concatArrays": [ids["_shown"], *pulled]}
            # A circle post's author decides whether the reader sees it (a
            # repost shows a public post: no edge needed).
            ids["_circled"] = _each(at, "$$e.by", {"$and": [_NOT_A_REPOST, _NOT_PUBLIC]})
        if self.pins:
            ids["_pins"] = {"$literal": list(self.pins)}
            if "_shown" in ids:
                ids["_shown"] = {"$concatArrays": [ids["_shown"], ids["_pins"]]}
        if self.wall_owner is not None:
            guest = {"$and": [_NOT_A_REPOST, {"$ne": ["$$e.by", self.wall_owner]}]}
            ids["_guests"] = _each(at, "$$e.by", guest)
        stages += [
            {"$addFields": ids},
            _lookup(Post, "_links", "_id", [{"$match": LIVE}, {"$project": card_exclusion()}]),
        ]
        if self.pins:
            # Only what a pin may be: the owner's own public, live post.
            pinnable = {"by.id": self.wall_owner, "circles": PUBLIC, **LIVE}
            stages.append(
                _lookup(
                    Post, "_pins", "_id", [{"$match": pinnable}, {"$project": card_exclusion()}]
                )
            )
        if self.reader is not None:
            stages += [
                _lookup(
                    PostLike,
                    "_shown",
                    "post",
                    [{"$match": {"by": self.reader}}, {"$project": {"_id": 0, "post": 1}}],
                    into="_liked",
                ),
                _lookup(
                    PollVote,
                    "_shown",
                    "post",
                    [
                        {"$match": {"voter": self.reader}},
                        {"$project": {"_id": 0, "post": 1, "option": 1}},
                    ],
                    into="_votes",
                ),
                _lookup(
                    Bookmark,
                    "_shown",
                    "post",
                    [{"$match": {"owner": self.reader}}, {"$project": {"_id": 0, "post": 1}}],
                    into="_bookmarked",
                ),
                people.circles_placed_in_lookup("_circled", self.reader, "_edges"),
            ]
        if self.wall_owner is not None:
            stages.append(people.followed_lookup("_guests", self.wall_owner, "_followed"))
        return stages

    def pulled(self, row: dict) -> list[dict] | None:
        """The entries read beside the page (`beside`), newest first, each
        with the reader's like and vote under FOUND; None when the stages did
        not ask for them."""
        entries = self.beside.entries(row) if self.beside is not None else None
        if entries is None:
            return None
        return self.take({**row, "_pulled_entries": entries}, "_pulled_entries")

    def pinned(self, row: dict) -> list[dict] | None:
        """The pinned posts the row was read with, in the order of `pins`
        (newest pin first), each with the reader's like and vote under FOUND;
        None when the stages did not ask for them."""
        if not self.pins or "_pins" not in row:
            return None
        found = {post["_id"]: post for post in row.get("_pins_found") or ()}
        liked = {like["post"] for like in row.get("_liked") or ()}
        votes = {vote["post"]: vote.get("option") for vote in row.get("_votes") or ()}
        marked = {mark["post"] for mark in row.get("_bookmarked") or ()}
        out = []
        for post_id in self.pins:
            if post_id in found:
                facts = (
                    {}
                    if self.reader is None
                    else {
                        "liked": post_id in liked,
                        "vote": votes.get(post_id),
                        "bookmarked": post_id in marked,
                    }
                )
                out.append({**found[post_id], FOUND: facts})
        return out

    def take(self, row: dict, entries: str) -> list[dict]:
        """The entries of a row, each with what the lookups found under FOUND:
        `linked` (the live post of a link entry, or None: deleted, removed),
        and for a signed-in reader `liked`, `vote` (the option, or None),
        `bookmarked` and `placed` (the circles the author put the reader in, for a circle
        post); on a wall, `owner_follows` for a post by someone else."""
        linked = {post["_id"]: post for post in row.get("_links_found") or ()}
        liked = {like["post"] for like in row.get("_liked") or ()}
        votes = {vote["post"]: vote.get("option") for vote in row.get("_votes") or ()}
        marked = {mark["post"] for mark in row.get("_bookmarked") or ()}
        placed = {edge["_f"]: list(edge.get("_g") or []) for edge in row.get("_edges") or ()}
        circled = set(row.get("_circled") or ())
        followed = {edge["_t"] for edge in row.get("_followed") or ()}
        guests = set(row.get("_guests") or ())
        out = []
        for entry in row.get(entries) or ():
            shown = entry.get("of") or entry["id"]
            found: dict = {"linked": None if "post" in entry else linked.get(shown)}
            if self.reader is not None:
                found["liked"] = shown in liked
                found["vote"] = votes.get(shown)
                found["bookmarked"] = shown in marked
                if entry.get("of") is None and entry["by"] in circled:
                    found["placed"] = placed.get(entry["by"], [])
            if self.wall_owner is not None and entry.get("of") is None and entry["by"] in guests:
                found["owner_follows"] = entry["by"] in followed
            out.append({**entry, FOUND: found})
        return out


def _lookup(
    document: type[Document],
    local: str,
    foreign: str,
    pipeline: list[dict],
    *,
    into: str | None = None,
) -> dict:
    """A `$lookup` of the documents whose `foreign` is one of the ids in the
    array at `local` (MongoDB 5.0's `localField` with a `pipeline`)."""
    return {
        "$lookup": {
            "from": document._get_collection_name(),
            "localField": local,
            "foreignField": foreign,
            "pipeline": pipeline,
            "as": into or f"{local}_found",
        }
    }
