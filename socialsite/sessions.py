"""A Django session engine that stores sessions in MongoDB (`session` collection).

Set `SESSION_ENGINE = "socialsite.sessions"`. Expired sessions are removed by
the TTL index on `expire`; loads also ignore them in case the TTL monitor
(which runs once a minute on a server) has not caught up yet.
"""

from django.contrib.sessions.backends.base import CreateError, SessionBase, UpdateError
from pymongo.errors import DuplicateKeyError

from socialsite.clock import aware, now
from socialsite.documents import SessionRecord

USER_KEY = "_auth_user_id"


def _collection():
    return SessionRecord._get_collection()


class SessionStore(SessionBase):
    def load(self):
        doc = _collection().find_one({"_id": self.session_key}) if self.session_key else None
        if doc is None or aware(doc["expire"]) <= now():
            self._session_key = None
            return {}
        return self.decode(doc["data"])

    def exists(self, session_key):
        return _collection().count_documents({"_id": session_key}, limit=1) > 0

    def create(self):
        while True:
            self._session_key = self._get_new_session_key()
            try:
                self.save(must_create=True)
            except CreateError:
                continue
            self.modified = True
            return

    def save(self, must_create=False):
        if self.session_key is None:
            return self.create()
        data = self._get_session(no_load=must_create)
        doc = {
            "_id": self._get_or_create_session_key(),
            "data": self.encode(data),
            "expire": self.get_expiry_date(),
            "user": data.get(USER_KEY),
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

    def delete(self, session_key=None):
        key = session_key or self.session_key
        if key:
            _collection().delete_one({"_id": key})

    @classmethod
    def clear_expired(cls):
        _collection().delete_many({"expire": {"$lt": now()}})


def end_sessions_of(handle: str, *, keep: str | None = None) -> int:
    """Delete every session of `handle` except `keep`; returns how many."""
    query = {"user": handle}
    if keep:
        query["_id"] = {"$ne": keep}
    return _collection().delete_many(query).deleted_count
