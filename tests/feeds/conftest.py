"""Fixtures shared by the feed tests."""

import pytest

# Every timeline model, linking and embedding (`read` always has the post).
MODEL_VARIANTS = [(m, embed) for m in ("cache", "month", "size") for embed in (False, True)]
MODEL_VARIANTS.append(("read", False))
MODEL_IDS = [f"{m}-{'embed' if e else 'link'}" for m, e in MODEL_VARIANTS]


@pytest.fixture(params=MODEL_VARIANTS, ids=MODEL_IDS)
def model(request, settings):
    """Runs the test under each (FEED_MODEL, FEED_EMBED) variant."""
    settings.FEED_MODEL, settings.FEED_EMBED = request.param
    return request.param
