"""The one MongoDB connection, made once at start-up.

With `MONGODB_URI` set we connect to that server (standalone, replica set or
`mongodb+srv://` cluster: pymongo reads all of it from the URI). Without it the
site runs in "demo mode" on an in-process, in-memory database; that code lives
apart in the top-level package `embedded_mongo`, which only this module selects.

Indexes are part of the schema (docs/operations.md#indexes): the embedded
database gets every declared index as it starts, so `manage.py runserver`
behaves as the demo does (one like per person, one repost); a real server is
compared with the declarations at start-up, and what is missing is logged
(and reported by `manage.py check`, socialsite/checks.py).
"""

import logging
from typing import Any

import mongoengine
import pymongo
from django.conf import settings
from mongoengine.connection import get_db
from pymongo.database import Database

from socialsite import indexes, roundtrips

log = logging.getLogger(__name__)

_state: dict[str, Any] = {"connected": False, "demo": False}

# Seconds a ping waits for the server: short enough for a health probe.
PING_TIMEOUT = 2.0


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
        # The client connects in the background: only a ping tells whether it can.
        if announce(database(), uri):
            report_index_drift()
    else:
        import embedded_mongo

        embedded_mongo.connect(db_name, observer=roundtrips)
        _state["demo"] = True
        # A fresh in-memory database: without its unique indexes, a second like
        # by the same person would count twice.
        indexes.ensure_all()
        log.warning(
            "MongoDB: DEMO MODE - in-process database, in memory only. "
            "Set MONGODB_URI to use a real MongoDB."
        )
    _state["connected"] = True


def is_demo() -> bool:
    return _state["demo"]


def database() -> Database:
    return get_db()


def server_facts() -> tuple[tuple[int, ...], bool] | None:
    """(the server's version, whether it is a sharded cluster's router), or
    None on the embedded database or when the server does not answer. Two
    commands (`buildInfo`, `hello`), asked once per process."""
    if is_demo():
        return None
    if "server" not in _state:
        try:
            db = get_db()
            version = tuple(int(part) for part in db.command("buildInfo")["versionArray"][:2])
            sharded = db.command("hello").get("msg") == "isdbgrid"
        except Exception:  # not answering: the index check and /healthz say so
            return None
        _state["server"] = (version, sharded)
    return _state["server"]


def ping() -> bool:
    """True when the database answers within PING_TIMEOUT (for /healthz)."""
    error = ping_error()
    if error is not None:
        log.warning("MongoDB ping failed: %s", error)
    return error is None


def announce(db: Database, uri: str) -> bool:
    """Log at start-up whether the server at `uri` answers; True when it does.

    An unreachable server does not stop the start: it may come up later, and
    /healthz says 503 until it does.
    """
    error = ping_error(db)
    if error is None:
        log.info("MongoDB: connected to %s", hosts(uri))
    else:
        log.error("MongoDB unreachable at %s: %s", hosts(uri), error)
    return error is None


def report_index_drift() -> None:
    """Log, at start-up, each declared index the server lacks or holds otherwise."""
    try:
        found = indexes.drift()
    except Exception as exc:  # the start goes on; /healthz and `manage.py check` retry
        log.warning("MongoDB: could not compare the declared indexes: %s", exc)
        return
    if found:
        log.warning("MongoDB: indexes %s. Run `manage.py ensure_indexes`.", indexes.summary(found))


def ping_error(db: Database | None = None) -> str | None:
    """None when `db` (default: the connected database) answers a ping, else why not.

    The client's own server selection waits 30 seconds by default, longer than
    any health probe waits, so the ping carries its own deadline.
    """
    try:
        with pymongo.timeout(PING_TIMEOUT):
            (database() if db is None else db).command("ping")
    except Exception as exc:
        # pymongo appends the whole topology description; its first part says why.
        return f"{type(exc).__name__}: {str(exc).split(', Timeout: ')[0]}"
    return None


def _uri_names_db(uri: str) -> bool:
    from pymongo.uri_parser import parse_uri

    try:
        return bool(parse_uri(uri).get("database"))
    except Exception:
        return False


def hosts(uri: str) -> str:
    """The host list of a MongoDB URI, without credentials, database or options.

    No URI parser here: pymongo's resolves `mongodb+srv://` names through DNS,
    and this runs when the server may be unreachable. The query goes first (its
    options may hold secrets), then everything up to the last "@" (user:password).
    """
    rest = uri.split("://", 1)[-1].split("?", 1)[0]
    return rest.rsplit("@", 1)[-1].split("/", 1)[0]
