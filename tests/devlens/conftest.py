"""A small demo (seed_demo, as `manage.py demo` fills it) with every model
kept current, and alice, who has a feed, made an admin."""

import io

import pytest
from django.core.management import call_command

from feeds.documents import LIVE, PUBLIC, Post
from profiles.demo import DEMO_PASSWORD
from profiles.documents import User
from tests.conftest import login_client


@pytest.fixture
def shadows(settings):
    """Every stored timeline model and comment store kept current (the demo's default)."""
    settings.FEED_SHADOW_MODELS = "all"
    settings.COMMENTS_SHADOW_STORES = "all"


@pytest.fixture
def demo(shadows, settings):
    settings.RATELIMIT_ENABLED = False
    call_command("seed_demo", users=20, maxfollows=6, seed=7, stdout=io.StringIO())
    User.objects(handle="alice").update_one(set__role="admin")
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
