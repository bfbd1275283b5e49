"""Shared fixtures: a clean database for every test, users, signed-in clients,
and a round-trip counter.

The suite runs on mongomock by default. With MONGODB_TEST_URI set it runs
against that server instead (database MONGODB_TEST_DB, default
"socialsite_test", emptied before every test). `./scripts/test` runs it both
ways; tests marked `mongomock_only` or `mongoeco_gap` are skipped where they
cannot run (see `pytest_collection_modifyitems`).
"""

import pytest
from django.test import Client

from profiles import services
from socialsite import indexes, mongo, roundtrips

PASSWORD = "correct horse battery"


def pytest_collection_modifyitems(config, items):
    """Skip marked tests where they cannot run, with their reason in the summary.

    `mongomock_only(reason=...)`: on any real server (MONGODB_TEST_URI).
    `mongoeco_gap(reason=...)`: only on mongoeco's wire server (scripts/test's
    second pass), for what it does not do like MongoDB; a real MongoDB runs them.
    """
    on_mongoeco = None
    for item in items:
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


def _server_is_mongoeco() -> bool:
    build = mongo.database().client.admin.command("buildInfo")
    return build.get("gitVersion") == "mongoeco"


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    # Real hashing costs ~0.3 s per call; tests only need it to be a hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def _indexes():
    return indexes.ensure_all()


@pytest.fixture(autouse=True)
def clean_db(_indexes):
    """Every test starts on empty collections (indexes kept)."""
    for document in indexes.all_documents():
        document._get_collection().delete_many({})
    yield


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
