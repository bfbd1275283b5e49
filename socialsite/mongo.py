"""The one MongoDB connection, made once at start-up.

With `MONGODB_URI` set we connect to that server (standalone, replica set or
`mongodb+srv://` cluster: pymongo reads all of it from the URI). Without it the
site runs in "demo mode" on an in-process, in-memory database; that code lives
apart in `socialsite.demo_db`, the one module that knows which library provides it.
"""

import logging

import mongoengine
from django.conf import settings
from mongoengine.connection import get_db

from socialsite import roundtrips

log = logging.getLogger(__name__)

_state = {"connected": False, "demo": False}


def connect(uri: str | None = None, db_name: str | None = None) -> None:
    """Connect the default MongoEngine alias; idempotent."""
    if _state["connected"]:
        return
    uri = settings.MONGODB_URI if uri is None else uri
    db_name = db_name or settings.MONGODB_DB
    if uri:
        # The command listener only counts round trips; it costs a counter bump.
        mongoengine.connect(
            host=uri,
            db=None if _uri_names_db(uri) else db_name,
            tz_aware=True,
            uuidRepresentation="standard",
            event_listeners=[roundtrips.listener],
        )
        _state["demo"] = False
        log.info("MongoDB: connected to %s", _redact(uri))
    else:
        from socialsite import demo_db

        demo_db.connect(db_name)
        _state["demo"] = True
        log.warning(
            "MongoDB: DEMO MODE - in-process database, in memory only. "
            "Set MONGODB_URI to use a real MongoDB."
        )
    _state["connected"] = True


def is_demo() -> bool:
    return _state["demo"]


def database():
    return get_db()


def ping() -> bool:
    """True when the database answers."""
    try:
        database().command("ping")
    except Exception:
        log.exception("MongoDB ping failed")
        return False
    return True


def _uri_names_db(uri: str) -> bool:
    from pymongo.uri_parser import parse_uri

    try:
        return bool(parse_uri(uri).get("database"))
    except Exception:
        return False


def _redact(uri: str) -> str:
    if "@" in uri:
        scheme, rest = uri.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return uri
