"""The interface every timeline model implements, and the entry format.

An entry is `{"id": post id, "ts": post time, "by": author handle,
"circles": the post's audience}` plus, with FEED_EMBED, `"post"`: a copy of
the post as it is rendered (the article's "embedding vs linking"). Timelines
are ordered newest first by (ts, id); a `Cursor` (socialsite/cursors.py) is
a position in that order.
"""

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from bson import ObjectId
from mongoengine import Document
from pymongo.collection import Collection

from socialsite.clock import aware
from socialsite.cursors import Cursor, sort_key

KINDS = ("wall", "news")


class Lookups(Protocol):
    """What a page reads along with its entries (feeds/selectors/lookups.py):
    `$lookup` stages for rows holding an array of entries at `entries`, and
    `take`, which gives back a row's entries with what was found, and
    `pulled`, the entries of pulled authors read beside them (None: not
    asked; timelines/selectors/pulled.py), and `pinned`, a wall owner's pinned
    posts read beside them (None: not asked). A store
    whose read is one aggregate over one document appends them; the others
    ignore them and the page asks for the same facts in queries of its own."""

    def stages(self, entries: str) -> list[dict]: ...

    def take(self, row: dict, entries: str) -> list[dict]: ...

    def pulled(self, row: dict) -> list[dict] | None: ...

    def pinned(self, row: dict) -> list[dict] | None: ...


@dataclass
class Chunk:
    """Entries newest first, all older than the cursor asked for.

    `exhausted`: nothing older exists in this store. `complete` is False when
    the store cannot answer from here on (no document yet, or the reader
    scrolled past the cache's cap); the pager then asks the read model.
    """

    entries: list[dict]
    exhausted: bool
    complete: bool = True
    # The newest entries of pulled authors older than the cursor, when the
    # store read them with its entries (`Lookups.pulled`); None: not read.
    pulled: list[dict] | None = None
    # A wall owner's pinned posts, when the store read them with its entries
    # (`Lookups.pinned`, docs/discovery.md#pins); None: not read.
    pinned: list[dict] | None = None


class TimelineStore(ABC):
    name: str
    #: False for the read model: there is nothing to deliver or rebuild.
    stores_entries = True

    @abstractmethod
    def deliver(self, kind: str, owners: list[str], entry: dict) -> None:
        """Add one entry to many timelines in ONE round trip (a fan-out batch).

        Idempotent: an owner who has the entry already is left as is.
        """

    @abstractmethod
    def append(self, kind: str, owner: str, entries: list[dict]) -> None:
        """Add entries that the timeline does not hold yet (backfill)."""

    @abstractmethod
    def replace(self, kind: str, owner: str, entries: list[dict]) -> None:
        """Make the timeline hold exactly these entries (newest first): a rebuild."""

    def holding(self, kind: str, owners: list[str], entry: dict) -> set[str]:
        """The owners whose timeline holds the entry already: asked only when a
        delivery runs again (a crash, the sweeper), by the models whose
        `deliver` guard cannot see every document of a timeline (`month` after
        a rollover, `size` after a bucket closed). One round trip there."""
        return set()

    @abstractmethod
    def entries(
        self,
        kind: str,
        owner: str,
        before: Cursor | None,
        limit: int,
        *,
        copies: bool = True,
        lookups: Lookups | None = None,
    ) -> Chunk:
        """Up to `limit` entries older than `before`, newest first.

        `copies=False`: a link read (devlens `embed()` off) leaves the
        embedded copies on the server, so its page resolves every post from
        `post` and costs what linking costs. `lookups`: see `Lookups`."""

    @abstractmethod
    def remove_post(self, post_id: ObjectId) -> None:
        """Take a post out of every timeline of every user."""

    @abstractmethod
    def remove_entries(self, entry_ids: list) -> None:
        """Take entries out of every timeline by their ids, in one multi-document
        update (the reposts of a deleted or removed post)."""

    @abstractmethod
    def reposts_above(self, kind: str, owner: str, post_ids: list, after: Cursor) -> list[tuple]:
        """(post, reposter) of each repost entry of `post_ids` that the
        timeline holds at or above `after`: what an older page must not show
        again (feeds/services/reposts.py `Once`). One round trip."""

    @abstractmethod
    def remove_author(self, kind: str, owner: str, author: str) -> None:
        """Take an author's posts out of one timeline (unfollow, block)."""

    @abstractmethod
    def remove_author_everywhere(self, author: str) -> None:
        """Take an author's posts out of every timeline (a suspension). Rare:
        a collection scan, rather than an index on every entry's author."""

    @abstractmethod
    def update_embedded(self, post_id: ObjectId, fields: dict) -> None:
        """Refresh fields of the embedded copies of a post (multi-document update)."""

    def update_counts(self, post_id: ObjectId, counts: dict, version: int) -> None:  # noqa: B027 - the read model stores nothing
        """Put a post's counts at `version` into its embedded copies that hold
        an older version (multi-document update)."""

    def unembed(self, post_id: ObjectId) -> None:  # noqa: B027 - the read model stores nothing
        """Turn the embedded copies of a post into link entries."""

    def ensure_owner(self, owners: list[str]) -> None:  # noqa: B027 - optional hook
        """Create whatever empty documents a new user needs (only `cache` does)."""

    def fill(self, timelines: Mapping[tuple[str, str], list[dict]]) -> None:  # noqa: B027 - the read model stores nothing
        """Write timelines that hold no entry yet, each (kind, owner) with
        its entries, in a few batches of inserts: exactly the documents that
        delivering those entries one by one, in time order, would leave
        (`ensure_owner`'s too, for a timeline given no entries). The demo's
        seeding (timelines/demo.py): a world delivered from nothing."""

    @abstractmethod
    def stats(self) -> dict:
        """{"documents": n, "entries": n, "collection": name}."""

    def comments_shown_trim(self, limit: int) -> int:
        """Cut every embedded copy's `comments_shown` back to its newest
        `limit` (*Storing Updates and Profiles*'s `truncate_extra_comments`); returns the entries
        trimmed. The read model stores no copies: nothing to trim."""
        return 0


class EntryArrayStore(TimelineStore):
    """What the stored models share: each keeps entries in an `entries` array
    of documents owned by (owner, kind), so removals, embedded-copy refreshes
    and statistics are the same multi-document updates for all of them."""

    document: type[Document]  # the MongoEngine document of the model's collection

    def collection(self) -> Collection:
        return self.document._get_collection()

    def remove_post(self, post_id: ObjectId) -> None:
        self.collection().update_many(
            {"entries.id": post_id}, {"$pull": {"entries": {"id": post_id}}}
        )

    def remove_entries(self, entry_ids: list) -> None:
        if entry_ids:
            self.collection().update_many(
                {"entries.id": {"$in": list(entry_ids)}},
                {"$pull": {"entries": {"id": {"$in": list(entry_ids)}}}},
            )

    def reposts_from(self, after: Cursor) -> dict:
        """The condition that keeps a read of one timeline to the documents
        that can hold entries at or above `after`: none for a model with one
        document per timeline (`cache`); `month` and `size` bound their
        parts or buckets by time, as the new-posts count does."""
        return {}

    def reposts_above(self, kind: str, owner: str, post_ids: list, after: Cursor) -> list[tuple]:
        # The documents of the timeline from `after` on (`reposts_from`: an
        # older page must not read every document the reader ever stored,
        # docs/performance.md) that hold a repost of these posts, cut on the
        # server to those entries at or above `after`.
        at_or_above = {
            "$or": [
                {"$gt": ["$$e.ts", after.ts]},
                {"$and": [{"$eq": ["$$e.ts", after.ts]}, {"$gte": ["$$e.id", after.id]}]},
            ]
        }
        wanted = {"$in": [{"$ifNull": ["$$e.of", None]}, list(post_ids)]}
        rows = self.collection().aggregate(
            [
                {
                    "$match": {
                        "owner": owner,
                        "kind": kind,
                        **self.reposts_from(after),
                        "entries.of": {"$in": list(post_ids)},
                    }
                },
                {
                    "$project": {
                        "_id": 0,
                        "hits": {
                            "$filter": {
                                "input": "$entries",
                                "as": "e",
                                "cond": {"$and": [wanted, at_or_above]},
                            }
                        },
                    }
                },
            ]
        )
        return [(e["of"], e["by"]) for row in rows for e in row["hits"]]

    def remove_author(self, kind: str, owner: str, author: str) -> None:
        self.collection().update_many(
            {"owner": owner, "kind": kind}, {"$pull": {"entries": {"by": author}}}
        )

    def owner_erase(self, owner: str) -> int:
        """Erasure: every timeline document of `owner`, both kinds."""
        return self.collection().delete_many({"owner": owner}).deleted_count

    def remove_author_everywhere(self, author: str) -> None:
        self.collection().update_many(
            {"entries.by": author}, {"$pull": {"entries": {"by": author}}}
        )

    def update_embedded(self, post_id: ObjectId, fields: dict) -> None:
        # Seed 000's comment(): a multi-document update with the positional
        # operator, reaching the one matching entry in each timeline document.
        # Only entries that embed a copy: a link entry (FEED_EMBED off, or a
        # post past FEED_EMBED_MAX_BYTES) must not grow half a copy.
        self.collection().update_many(
            {"entries": {"$elemMatch": {"id": post_id, "post": {"$exists": True}}}},
            {"$set": {f"entries.$.post.{name}": value for name, value in fields.items()}},
        )

    def update_counts(self, post_id: ObjectId, counts: dict, version: int) -> None:
        # As `update_embedded`, guarded by the copy's `counts_v`: a refresh
        # that read older counts than a copy holds leaves it (a copy without
        # one is older than any). The positional `$` is the entry the
        # `$elemMatch` matched, so the guard is that entry's own.
        older = {"$not": {"$gte": version}}
        changes = {f"entries.$.post.{name}": value for name, value in counts.items()}
        self.collection().update_many(
            {
                "entries": {
                    "$elemMatch": {
                        "id": post_id,
                        "post": {"$exists": True},
                        "post.counts_v": older,
                    }
                }
            },
            {"$set": {**changes, "entries.$.post.counts_v": version}},
        )

    def unembed(self, post_id: ObjectId) -> None:
        # The copy outgrew its budget (an edit, a longer preview): the entry
        # becomes a link, which pages resolve from `post`.
        self.collection().update_many(
            {"entries": {"$elemMatch": {"id": post_id, "post": {"$exists": True}}}},
            {"$unset": {"entries.$.post": ""}},
        )

    def comments_shown_trim(self, limit: int) -> int:
        # Seed 000 pops one comment per multi-document update with the
        # positional operator. A timeline document may hold several over-long
        # entries, so each is trimmed by one `$set` of their exact positions
        # (no positional or filtered update needed), re-read if a delivery
        # moved its entries meanwhile.
        over = {f"entries.post.comments_shown.{limit}": {"$exists": True}}
        fields = {"entries.id": 1, "entries.post.comments_shown": 1}
        collection = self.collection()
        trimmed = 0
        for doc in collection.find(over, fields):
            for _ in range(TRIM_ATTEMPTS):
                done = self.comments_shown_trim_document(doc, limit)
                if done >= 0:
                    trimmed += done
                    break
                doc = collection.find_one({"_id": doc["_id"]}, fields) or {"_id": doc["_id"]}
        return trimmed

    def comments_shown_trim_document(self, doc: dict, limit: int) -> int:
        """Trim the over-long `comments_shown` of one document's embedded
        posts with one `$set` of exact index paths. Returns the entries
        trimmed, or -1 when the document changed since `doc` was read.

        The filter pins each trimmed position to the entry's post id, so if a
        delivery shifted the array since it was read (the `cache` model pushes
        newest first), the update matches nothing and the caller re-reads."""
        query, changes = {"_id": doc["_id"]}, {}
        for i, entry in enumerate(doc.get("entries") or []):
            shown = (entry.get("post") or {}).get("comments_shown") or []
            if len(shown) > limit:
                query[f"entries.{i}.id"] = entry.get("id")
                changes[f"entries.{i}.post.comments_shown"] = newest(shown, limit)
        if not changes:
            return 0
        if self.collection().update_one(query, {"$set": changes}).matched_count:
            return len(changes)
        return -1

    def filled(self, kind: str, owner: str, entries: list[dict]) -> list[dict]:
        """The documents `deliver` leaves when it delivers `entries` (oldest
        first) one by one into a timeline that holds none: what `fill`
        inserts. Each model's own: its caps, buckets or parts."""
        raise NotImplementedError

    def fill_room(self, kind: str, owners: list[str]) -> None:
        """Make way for `fill`'s documents of these timelines (`cache` takes
        out the empty documents a sign-up made)."""

    def fill(self, timelines: Mapping[tuple[str, str], list[dict]]) -> None:
        # Batches bounded in documents and in entries: each document is under
        # 16 MB by the model's own caps, and a batch stays a few messages of
        # the driver's (it splits an insert past 48 MB).
        batch: list[dict] = []
        held = 0
        for (kind, owner), entries in timelines.items():
            documents = self.filled(kind, owner, sorted(entries, key=sort_key))
            batch += documents
            held += sum(len(doc["entries"]) for doc in documents)
            if len(batch) >= FILL_DOCUMENTS or held >= FILL_ENTRIES:
                self._insert_filled(batch)
                batch, held = [], 0
        if batch:
            self._insert_filled(batch)

    def _insert_filled(self, documents: list[dict]) -> None:
        owners: dict[str, list[str]] = {}
        for doc in documents:
            owners.setdefault(doc["kind"], []).append(doc["owner"])
        for kind, handles in owners.items():
            self.fill_room(kind, sorted(set(handles)))
        self.collection().insert_many(documents, ordered=False)

    def stats(self) -> dict:
        pipeline = [
            {"$group": {"_id": None, "docs": {"$sum": 1}, "n": {"$sum": {"$size": "$entries"}}}}
        ]
        rows = list(self.collection().aggregate(pipeline))
        row = rows[0] if rows else {"docs": 0, "n": 0}
        return {
            "collection": self.collection().name,
            "documents": row["docs"],
            "entries": row["n"],
        }


#: `fill`'s batches: at most this many documents, or entries, per insert.
FILL_DOCUMENTS = 1000
FILL_ENTRIES = 20_000

#: Tries per timeline document when a concurrent delivery moves its entries.
TRIM_ATTEMPTS = 5


def newest_of_parts(
    parts: Iterable[dict],
    limit: int,
    *,
    entries_of: Callable[[dict], Iterable[dict]],
    settles: Callable[[dict | None, dict, list[dict]], bool],
) -> Chunk:
    """The newest `limit` entries of a timeline stored in parts (`month`'s
    parts, `size`'s buckets), read newest part first: each entry once (a
    delivery that ran twice across a rollover leaves a copy in two parts).
    Before a part is taken, once more than `limit` entries are found,
    `settles(previous part, part, found newest first)` says whether nothing
    in it or after it can enter the page: then the read stops there."""
    found: dict = {}
    previous = None
    for part in parts:
        if len(found) > limit and settles(
            previous, part, sorted(found.values(), key=sort_key, reverse=True)
        ):
            break
        for entry in entries_of(part):
            found.setdefault(entry["id"], entry)
        previous = part
    ordered = sorted(found.values(), key=sort_key, reverse=True)
    return Chunk(ordered[:limit], exhausted=len(ordered) <= limit)


def newest(shown: list, limit: int) -> list:
    """The last `limit` of a `comments_shown` list (the newest comments)."""
    return shown[len(shown) - limit :] if len(shown) > limit else shown


#: A `$project` stage that drops the embedded copies of the entries in `page`.
WITHOUT_COPIES = {"$project": {"page.post": 0}}


def month_of(ts: datetime) -> str:
    return aware(ts).strftime("%Y%m")
