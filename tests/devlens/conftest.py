"""A small demo (seed_demo, as `manage.py demo` fills it) with every model
kept current, and alice, who has a feed, made an admin.

The demo is seeded once per test module and copied back into the emptied
collections before each test that asks for it: seeding is thousands of
commands (minutes on the wire server over a module), a copy is two per
collection. Every test still starts from the same freshly seeded demo.
"""

import copy
import io

import pytest
from django.core.management import call_command
from django.test import override_settings

from feeds.documents import LIVE, PUBLIC, Post
from profiles.demo import DEMO_PASSWORD
from profiles.documents import User
from socialsite import indexes
from tests.conftest import FAST_HASHERS, empty_all_collections, login_client
from timelines.selectors import pulled

SHADOWS = {"FEED_SHADOW_MODELS": "all", "COMMENTS_SHADOW_STORES": "all"}


@pytest.fixture(autouse=True)
def _compare_takes_its_time(settings):
    """The compare page reads a page under every model and store (tens of
    round trips): on a wire server sharing two cores with the other pass, it
    can pass the request's 5 s database budget (socialsite/middleware.py),
    which these tests of agreement do not measure (tests/test_request_timeout.py does)."""
    settings.MONGODB_REQUEST_TIMEOUT_MS = 60_000


@pytest.fixture
def shadows(settings):
    """Every stored timeline model and comment store kept current (the demo's default)."""
    for name, value in SHADOWS.items():
        setattr(settings, name, value)


# The small demo's most followed are pulled, as the real demo's are
# (docs/performance.md#celebrities-are-pulled): the comparisons cover both ways.
PULL_THRESHOLD = 3


@pytest.fixture(scope="module")
def _seeded_demo(_indexes):
    """Every collection's documents right after seeding the demo, seeded once per module."""
    empty_all_collections()
    with override_settings(
        **SHADOWS,
        RATELIMIT_ENABLED=False,
        PASSWORD_HASHERS=FAST_HASHERS,
        FEED_PULL_THRESHOLD=PULL_THRESHOLD,
    ):
        call_command("seed_demo", users=20, maxfollows=6, seed=7, stdout=io.StringIO())
        User.objects(handle="alice").update_one(set__role="admin")
    seeded = {}
    for document in indexes.all_documents():
        docs = list(document._get_collection().find({}))
        if docs:
            seeded[document] = docs
    empty_all_collections()
    return seeded


@pytest.fixture
def demo(shadows, settings, _seeded_demo, clean_db):
    settings.RATELIMIT_ENABLED = False
    settings.FEED_PULL_THRESHOLD = PULL_THRESHOLD
    for document, docs in _seeded_demo.items():
        # A copy: mongomock may keep the very dicts it is given.
        document._get_collection().insert_many(copy.deepcopy(docs))
    pulled.forget()  # the demo's pulled authors are in `pulled_author` now
    return User.objects.get(handle="alice")


@pytest.fixture
def demo_admin(demo):
    """A test client signed in as alice, an admin of the demo."""
    return login_client(demo, password=DEMO_PASSWORD)


def commented_post() -> dict:
    """The demo's public post with the most comments."""
    return Post._get_collection().find_one(
        {"circles": PUBLIC, **LIVE}, sort=[("comments_count", -1)]
    )
