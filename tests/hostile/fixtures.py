"""The fixture of the hostile-input tests (tests/test_hostile_input.py,
tests/test_hostile_sweep.py), made available to both by tests/conftest.py."""

import pytest

from tests.conftest import written
from tests.hostile import world


@pytest.fixture
def probing(settings):
    # A rate limit would answer 429 before the hostile value reaches the form.
    settings.RATELIMIT_ENABLED = False
    # Small pages, so that the paging code (cursors, "next" links) runs too.
    settings.FEED_PAGE_SIZE = 2
    settings.COMMENTS_PAGE_SIZE = 2
    settings.MESSAGES_PAGE_SIZE = 2
    settings.MESSAGES_INBOX_PAGE_SIZE = 2
    # `World.restore` copies back only the collections written since the
    # last one (on mongomock too): most routes write one or two of ~40.
    with written.watching_demo():
        yield
    world.clear_photos()
