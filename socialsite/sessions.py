"""A Django session engine that stores sessions in MongoDB (`session` collection).

Set `SESSION_ENGINE = "socialsite.sessions"`. Expired sessions are removed by
the TTL index on `expire`; loads also ignore them in case the TTL monitor
(which runs once a minute on a server) has not caught up yet.

A signed-in page needs the session and its user's document, and a wall also
the wall owner's: the load reads them all in one round trip (docs/performance.md), an
aggregate that matches the session by `_id` and looks the users up by `_id`
(the handle) in `user`. `profiles.auth` builds the request's user from the
document read here, so suspension and password changes are still checked
against the user as stored at this request, with no second read.
"""

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from django.contrib.sessions.backends.base import CreateError, SessionBase, UpdateError
from pymongo.collection import Collection
from pymongo.errors import DuplicateKeyError

from socialsite import events
from socialsite.clock import aware, now
from socialsite.documents import SessionRecord

USER_KEY = "_auth_user_id"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# The collection whose `_id` the session's `user` field names (profiles' User),
# and the follow edges `{_f: follower, _t: followee, _g: circles}`. Named here,
# not imported, so the session engine does not load the profiles app.
USER_COLLECTION = "user"
EDGE_COLLECTION = "following"
EDGE_FIELDS = {"_id": 0, "_f": 1, "_t": 1, "_g": 1, "state": 1}


def _collection() -> Collection:
    return SessionRecord._get_collection()


def _read(session_key: str, also: list[str]) -> dict | None:
    """The session with its user's document (`_account`) and the documents of
    the handles in `also` (`_users`): one round trip. `_id` equality on both
    sides, so the `$match` and each lookup are point reads of an index; on a
    sharded cluster a `$lookup` into the sharded `user` needs MongoDB 5.1+."""
    pipeline = [
        {"$match": {"_id": session_key}},
        {"$lookup": _by_id("user", "_account")},
    ]
    if also:
        pipeline[1:1] = [{"$addFields": {"_also": {"$literal": also}}}]
        pipeline += [
            {"$lookup": _by_id("_also", "_users")},
            {"$lookup": _edges("_f", "_t", also, "_edges_out")},
            {"$lookup": _edges("_t", "_f", also, "_edges_in")},
            {"$project": {"_also": 0}},
        ]
    return next(iter(_collection().aggregate(pipeline)), None)


def _edges(viewer_side: str, other_side: str, others: list[str], into: str) -> dict:
    """The follow edges between the session's user and `others`, one direction:
    `{viewer_side: user, other_side: $in others}`, a point read of the
    `(_f, _t)` / `(_t, _f)` index per other (MongoDB 5.0's `$lookup` with
    both `localField` and `pipeline`)."""
    return {
        "from": EDGE_COLLECTION,
        "localField": "user",
        "foreignField": viewer_side,
        "pipeline": [{"$match": {other_side: {"$in": others}}}, {"$project": EDGE_FIELDS}],
        "as": into,
    }


def _by_id(local_field: str, into: str) -> dict:
    return {"from": USER_COLLECTION, "localField": local_field, "foreignField": "_id", "as": into}


class SessionStore(SessionBase):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._also: list[str] = []
        self._users: dict[str, dict] = {}
        self._looked_up: set[str] = set()
        self._edges: list[dict] = []

    def also_read_users(self, handles: Iterable[str]) -> bool:
        """Ask the session's load to read these users' documents with it.

        True if it will (the session is not loaded yet and has a key); then
        `user_document(handle)` answers for them without another query."""
        if hasattr(self, "_session_cache") or not self.session_key:
            return False
        self._also = sorted(set(self._also) | set(handles))
        return True

    def user_document(self, handle: str) -> dict | None:
        """The stored document of `handle` as the load read it, or None."""
        return self._users.get(handle)

    def read_user(self, handle: str) -> bool:
        """Whether the load looked `handle` up (so None from `user_document`
        means there is no such user, not that nobody asked)."""
        return handle in self._looked_up

    def edges_with(self, handle: str) -> list[dict] | None:
        """The follow edges between the session's user and `handle` (either
        direction) as the load read them, or None if it did not look."""
        if handle not in self._looked_up:
            return None
        return [edge for edge in self._edges if handle in (edge["_f"], edge["_t"])]

    def load(self) -> dict[str, Any]:
        self._users, self._looked_up, self._edges = {}, set(), []
        doc = _read(self.session_key, self._also) if self.session_key else None
        if doc is None or aware(doc["expire"]) <= now():
            self._session_key = None
            return {}
        self._seen = aware(doc.get("seen"))
        found = doc.get("_account", []) + doc.get("_users", [])
        self._users = {user["_id"]: user for user in found}
        self._looked_up = set(self._also) | ({doc["user"]} if doc.get("user") else set())
        self._edges = doc.get("_edges_out", []) + doc.get("_edges_in", [])
        return self.decode(doc["data"])

    def touch(self, resolution: int) -> None:
        """Record that the session is in use now, if its `seen` is older than
        `resolution` seconds (one write at most that often)."""
        seen = getattr(self, "_seen", None)
        if self.session_key and (seen is None or (now() - seen).total_seconds() > resolution):
            self._seen = now()
            _collection().update_one({"_id": self.session_key}, {"$set": {"seen": self._seen}})

    def exists(self, session_key: str) -> bool:
        return _collection().count_documents({"_id": session_key}, limit=1) > 0

    def create(self) -> None:
        while True:
            self._session_key = self._get_new_session_key()
            try:
                self.save(must_create=True)
            except CreateError:
                continue
            self.modified = True
            return

    def save(self, must_create: bool = False) -> None:
        if self.session_key is None:
            return self.create()
        data = self._get_session(no_load=must_create)
        self._seen = now()
        doc = {
            "_id": self._get_or_create_session_key(),
            "data": self.encode(data),
            "expire": self.get_expiry_date(),
            "user": data.get(USER_KEY),
            "seen": self._seen,
        }
        if must_create:
            try:
                _collection().insert_one(doc)
            except DuplicateKeyError as exc:
                raise CreateError from exc
        else:
            result = _collection().replace_one({"_id": doc["_id"]}, doc, upsert=False)
            if result.matched_count == 0:
                raise UpdateError

    def delete(self, session_key: str | None = None) -> None:
        key = session_key or self.session_key
        if key:
            _collection().delete_one({"_id": key})

    @classmethod
    def clear_expired(cls) -> None:
        _collection().delete_many({"expire": {"$lt": now()}})


# Where a session's data keeps what it was started from (set at login).
CLIENT_KEY = "_client"


def public_id(session_key: str) -> str:
    """A session's name on the sessions page and in its "end" URL: a hash of
    its key, which never leaves the cookie."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:20]


def sessions_of(handle: str) -> list[dict]:
    """The live sessions of `handle`, most recently used first: `id` (public),
    `key`, the `client` they started from (`agent`, `ip`, `since`) and `seen`.
    One indexed read of the `user` field."""
    rows = _collection().find({"user": handle, "expire": {"$gt": now()}})
    found = []
    decoder = SessionStore()
    for row in rows:
        data = decoder.decode(row["data"]) or {}
        client = data.get(CLIENT_KEY) if isinstance(data.get(CLIENT_KEY), dict) else {}
        found.append(
            {
                "id": public_id(row["_id"]),
                "key": row["_id"],
                "client": client,
                "seen": aware(row.get("seen")),
            }
        )
    found.sort(key=lambda s: s["seen"] or EPOCH, reverse=True)
    return found


def end_session_of(handle: str, session_id: str) -> bool:
    """End the session of `handle` named `session_id` (its public id)."""
    for session in sessions_of(handle):
        if session["id"] == session_id:
            return (
                _collection().delete_one({"_id": session["key"], "user": handle}).deleted_count > 0
            )
    return False


def end_sessions_of(handle: str, *, keep: str | None = None) -> int:
    """Delete every session of `handle` except `keep`; returns how many.
    Every other credential of theirs ends too (`events.sign_ins_revoked`:
    the client API's tokens, docs/api.md#apps-and-tokens), `keep` or not:
    a password change keeps the browser that made it, never an app."""
    query: dict[str, object] = {"user": handle}
    if keep:
        query["_id"] = {"$ne": keep}
    ended = _collection().delete_many(query).deleted_count
    events.sign_ins_revoked.send(sender=SessionRecord, handle=handle)
    return ended
