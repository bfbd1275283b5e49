"""Shared fixtures: a clean database for every test, users, signed-in clients,
and a round-trip counter.

The suite runs on mongomock by default. With MONGODB_TEST_URI set it runs
against that server instead (database MONGODB_TEST_DB, default
"socialsite_test", emptied before every test). `./scripts/test` runs it both
ways; tests marked `mongomock_only` or `mongoeco_gap` are skipped where they
cannot run; each test runs in one pass: the modules in THROUGH_THE_DRIVER in
the second, the rest (and what markers keep from the second) in the first
(see `pytest_collection_modifyitems`).
"""

import contextlib
import os
import re
import threading
from collections.abc import Iterator

import pytest
from django.test import Client

from profiles import services
from profiles.documents import User
from socialsite import indexes, mongo, roundtrips
from timelines.selectors import pulled

PASSWORD = "correct horse battery"

# The modules scripts/test's second pass runs through the real driver: the
# tests of what only a real server can get wrong, or mongomock hides (DESIGN
# of the project: docs/testing.md#two-passes): round trips (batches and
# `getMore`), query plans (`explain`), races at unique indexes and bucket
# boundaries (E11000), size limits and shard keys, BSON dates, GridFS,
# durable work, counters under concurrent writes, TTL and the start-up
# checks. scripts/test runs each test once: these through the driver, the
# rest (what features and pages do, whose reads and writes are the same
# services' and selectors') on mongomock in pass 1. A new test of that kind
# goes in a listed module.
THROUGH_THE_DRIVER = frozenset(
    {
        "tests/ads/test_caps.py",
        "tests/ads/test_indexes_and_shards.py",
        "tests/ads/test_offers.py",
        "tests/ads/test_pacing.py",
        "tests/ads/test_report.py",
        "tests/api/test_real_races.py",
        "tests/comments/test_buckets.py",
        "tests/comments/test_convert_comments.py",
        "tests/comments/test_real_indexes.py",
        "tests/comments/test_real_limits.py",
        "tests/comments/test_real_shard_keys.py",
        "tests/comments/test_stores.py",
        "tests/comments/test_votes.py",
        "tests/feeds/test_fanout.py",
        "tests/feeds/test_page_budgets.py",
        "tests/feeds/test_real_limits.py",
        "tests/feeds/test_real_races.py",
        "tests/feeds/test_real_time.py",
        "tests/feeds/test_timeline_fill.py",
        "tests/feeds/test_write_budgets.py",
        "tests/messaging/test_conversations.py",
        "tests/messaging/test_erasure_mentions.py",
        "tests/messaging/test_rules.py",
        "tests/notifications/test_buckets.py",
        "tests/notifications/test_counts.py",
        "tests/notifications/test_notify.py",
        "tests/profiles/test_export.py",
        "tests/profiles/test_graph.py",
        "tests/profiles/test_search.py",
        "tests/socialsite/test_durable.py",
        "tests/socialsite/test_indexes_schema.py",
        "tests/socialsite/test_periodic.py",
        "tests/socialsite/test_thread_backend.py",
        "tests/test_request_timeout.py",
        "tests/test_roundtrips.py",
        "tests/test_shard_plan.py",
        "tests/test_site.py",
        "tests/test_startup.py",
        "tests/test_worker.py",
    }
)
# Modules the second pass runs only on a server with MongoDB's query planner
# (a real MongoDB: `explain`). mongoeco's wire server has none, so there the
# plan checks would be pass 1's declared-index checks again: pass 1 runs them
# (scripts/test says which with SOCIALSITE_PASS2_PLANNER).
WITH_A_PLANNER = frozenset({"tests/test_query_plans.py"})
# The timeline models' queries differ, linking and embedding less: through
# the driver each model runs once, linking under read and month, embedding
# under cache and size (pass 1 runs all eight).
_DRIVER_VARIANTS = {("read", False), ("month", False), ("cache", True), ("size", True)}
_MODELS = frozenset({"read", "cache", "month", "size"})


def _model_variant(item) -> tuple[str, bool] | None:
    """(model, embed) of a test parametrized by both, however it names them."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    model = embed = None
    for name, value in params.items():
        if isinstance(value, tuple) and len(value) == 2 and value[0] in _MODELS:
            model, embed = value[0], bool(value[1])
        elif isinstance(value, str) and value in _MODELS:
            model = value
        elif name == "embed" and isinstance(value, bool):
            embed = value
    return (model, embed) if model is not None and embed is not None else None


def _run_by_second_pass(item) -> bool:
    """Whether scripts/test's pass 2 runs `item` (and pass 1 leaves it):
    listed, its model's variant, and not skipped there by a marker."""
    markers = ("mongomock_only", "mongoeco_gap", "no_test_db")
    if any(item.get_closest_marker(name) is not None for name in markers):
        return False
    return _in_second_pass(item)


def _in_second_pass(item) -> bool:
    module = item.nodeid.split("::")[0]
    if module in WITH_A_PLANNER:
        return os.environ.get("SOCIALSITE_PASS2_PLANNER") == "1"
    if module not in THROUGH_THE_DRIVER:
        return False
    variant = _model_variant(item)
    return variant is None or variant in _DRIVER_VARIANTS


def user(handle: str) -> User:
    """The person as stored now (the tests' one way to read a user back)."""
    return User.objects.get(handle=handle)


def sized(embedded: int, server: int) -> int:
    """How much data a test writes: `embedded` on mongomock (pass 1), the
    smaller `server` through a driver (pass 2), where each document costs the
    wire server milliseconds. What the test checks does not depend on the
    figure (a round-trip count in pages, a race at bucket boundaries); pass 1
    keeps the large one. docs/testing.md#what-keeps-pass-2-short."""
    return embedded if mongo.is_demo() else server


def pytest_collection_modifyitems(config, items):
    """Skip marked tests where they cannot run, with their reason in the summary.

    `mongomock_only(reason=...)`: on any real server (MONGODB_TEST_URI).
    `mongoeco_gap(reason=...)`: only on mongoeco's wire server (scripts/test's
    second pass), for what it does not do like MongoDB; a real MongoDB runs them.
    `no_test_db(reason=...)`: in scripts/test's second pass (SOCIALSITE_SECOND_PASS=1),
    for tests whose work runs in other processes that never open the test
    database: the driver path adds nothing to them, and pass 1 ran them.
    The second pass runs only the modules in THROUGH_THE_DRIVER (each timeline
    model once there); the first (SOCIALSITE_FIRST_PASS=1) leaves out what the
    second runs. Without either variable every test runs.
    """
    on_mongoeco = None
    second_pass = os.environ.get("SOCIALSITE_SECOND_PASS") == "1" and not mongo.is_demo()
    if second_pass:
        left = [item for item in items if not _in_second_pass(item)]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = [item for item in items if _in_second_pass(item)]
    elif os.environ.get("SOCIALSITE_FIRST_PASS") == "1" and mongo.is_demo():
        # scripts/test's pass 1, beside pass 2: what pass 2 runs is not run twice.
        taken = [item for item in items if _run_by_second_pass(item)]
        if taken:
            config.hook.pytest_deselected(items=taken)
            items[:] = [item for item in items if not _run_by_second_pass(item)]
    for item in items:
        if second_pass and (marker := item.get_closest_marker("no_test_db")) is not None:
            reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
            item.add_marker(pytest.mark.skip(reason=f"no_test_db, run in pass 1: {reason}"))
        for name in ("mongomock_only", "mongoeco_gap"):
            marker = item.get_closest_marker(name)
            if marker is None:
                continue
            reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
            if not reason:
                raise pytest.UsageError(f"{item.nodeid}: {name} needs a reason=")
            if mongo.is_demo():
                continue
            if name == "mongoeco_gap" and on_mongoeco is None:
                on_mongoeco = _server_is_mongoeco()
            if name == "mongomock_only" or on_mongoeco:
                item.add_marker(pytest.mark.skip(reason=f"{name}: {reason}"))


_OBJECT_ID_HEX = re.compile(r"\b[0-9a-f]{24}\b")


def pytest_make_parametrize_id(config, val, argname):
    """Test ids without the hex of ObjectIds made at import (a fresh one each run).

    pytest-xdist's workers each collect the suite and must agree on every test
    id; `"post:%s" % ObjectId()` would differ. Ids that then coincide get
    pytest's usual numeric suffixes.
    """
    if isinstance(val, str) and _OBJECT_ID_HEX.search(val):
        return _OBJECT_ID_HEX.sub("oid", val)
    return None


def _server_is_mongoeco() -> bool:
    build = mongo.database().client.admin.command("buildInfo")
    return build.get("gitVersion") == "mongoeco"


# Real hashing costs ~0.3 s per call; tests only need it to be a hasher.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _one_rate_window(monkeypatch):
    """Rate limits count in fixed windows (socialsite/ratelimit.py): a test
    that fills one must not see it end half way, when the wall clock crosses
    a window's boundary (it did, once, on the wire server). Each test counts
    with the time it started."""
    from socialsite import ratelimit

    started = ratelimit.now()
    monkeypatch.setattr(ratelimit, "now", lambda: started)


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    settings.PASSWORD_HASHERS = FAST_HASHERS


class _WrittenCollections:
    """Which collections were written since a moment, as the command listener saw.

    On a real server each `delete_many` of `clean_db` is a round trip (~25 per
    test, most on collections the test never touched), so there it empties only
    the collections some command may have written since the last clean: any
    command naming a collection except the read-only ones below. `since()` is
    `None`, "unknown, all of them", in demo mode (mongomock's deletes cost next
    to nothing), before the first clean, and across a `forget()`: after a
    `worker` test, whose other process writes through a client this listener
    does not see. Moments are `mark()`s; tests/hostile/world.py restores its
    snapshot the same way.
    """

    READ_ONLY = frozenset(
        {"find", "getMore", "count", "distinct", "listIndexes", "explain", "killCursors"}
    )

    def __init__(self):
        self.watching = False
        self.seq = 0  # bumped by every write
        self.unknown = 0  # marks before this one know nothing
        self.last_write: dict[str, int] = {}
        self.lock = threading.Lock()

    def watch(self, listener) -> None:
        # On the class, not the instance: tests/query_recorder.py wraps the
        # class's `started` too, and an instance attribute would hide its wrapper.
        listener_class = type(listener)
        started = listener_class.started

        def started_and_noted(listener_self, event):
            name = event.command_name
            collection = event.command.get(name)
            if name == "aggregate":
                pipeline = event.command.get("pipeline") or []
                if not any("$out" in stage or "$merge" in stage for stage in pipeline):
                    collection = None
            if isinstance(collection, str) and name not in self.READ_ONLY:
                with self.lock:
                    self.seq += 1
                    self.last_write[collection] = self.seq
            started(listener_self, event)

        listener_class.started = started_and_noted
        self.watching = True

    # The embedded database's calls that only read (embedded_mongo reports
    # each collection call to `roundtrips.record` by its method's name).
    DEMO_READ_ONLY = frozenset(
        {
            "find",
            "find_one",
            "count_documents",
            "estimated_document_count",
            "distinct",
            "index_information",
            "getMore",
        }
    )

    @contextlib.contextmanager
    def watching_demo(self) -> Iterator[None]:
        """In demo mode, watch the embedded database's calls for the block:
        for a test that goes back to a snapshot many times (tests/hostile/
        world.py), where copying back every collection each time is most of
        its run. Only for the block: elsewhere `clean_db` empties them all, as
        before. Marks taken outside the block know nothing (`since()` None)."""
        if self.watching or not mongo.is_demo():
            yield
            return
        recorded = roundtrips.record

        def record_and_note(name, collection="", query=None):
            if name == "aggregate":
                pipeline = query if isinstance(query, list) else []
                if any("$out" in stage or "$merge" in stage for stage in pipeline):
                    self.forget()  # written: a collection this call does not name
            elif collection and name not in self.DEMO_READ_ONLY:
                with self.lock:
                    self.seq += 1
                    self.last_write[collection] = self.seq
            return recorded(name, collection, query)

        self.forget()
        roundtrips.record = record_and_note
        self.watching = True
        try:
            yield
        finally:
            self.watching = False
            roundtrips.record = recorded
            self.forget()

    def mark(self) -> int:
        with self.lock:
            return self.seq

    def since(self, mark: int | None) -> set | None:
        with self.lock:
            if not self.watching or mark is None or mark < self.unknown:
                return None
            return {name for name, seq in self.last_write.items() if seq > mark}

    def forget(self) -> None:
        with self.lock:
            self.seq += 1
            self.unknown = self.seq


written = _WrittenCollections()
_cleaned_at: list[int | None] = [None]


@pytest.fixture(scope="session")
def _indexes():
    ensured = indexes.ensure_all()
    if not mongo.is_demo():
        written.watch(roundtrips.listener)
    return ensured


def empty_all_collections() -> None:
    """Empty every collection (indexes kept), as for the first test."""
    _cleaned_at[0] = None
    _empty_written()


def _empty_written() -> None:
    names = written.since(_cleaned_at[0])
    for document in indexes.all_documents():
        if names is None or document._get_collection_name() in names:
            document._get_collection().delete_many({})
    # After the deletes: they do not make a collection need emptying again.
    _cleaned_at[0] = written.mark()


@pytest.fixture(autouse=True)
def clean_db(request, _indexes):
    """Every test starts on empty collections (indexes kept)."""
    _empty_written()
    # The process's list of pulled authors, read now rather than by the
    # test's first news page (whose round trips a test may count).
    pulled.forget()
    pulled.authors()
    yield
    if request.node.get_closest_marker("worker") is not None:
        written.forget()


from tests.asgi_server import asgi_server  # noqa: E402, F401 (a fixture: live streams' tests)
from tests.hostile.fixtures import probing  # noqa: E402, F401 (a fixture: hostile input's)


@pytest.fixture
def make_user():
    def make(handle, name=None, password=PASSWORD, **fields):
        user = services.user_create(handle=handle, name=name or handle.title(), password=password)
        if fields:
            type(user).objects(handle=handle).update_one(
                **{f"set__{k}": v for k, v in fields.items()}
            )
            user.reload()
        return user

    return make


def login_client(user, password=PASSWORD, **client_kwargs) -> Client:
    client = Client(**client_kwargs)
    response = client.post("/accounts/login/", {"username": user.handle, "password": password})
    assert response.status_code == 302, response.content[:500]
    return client


@pytest.fixture
def login():
    return login_client


@pytest.fixture
def round_trips():
    """`with round_trips() as c: ...; c.total`."""
    return roundtrips.count
