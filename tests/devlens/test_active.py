"""docs/developer-lens.md#the-models-in-use-for-a-request: the models in use for this request,
overridable per context."""

import threading

import pytest

from comments.stores import get_store as comment_store_for
from socialsite import active
from timelines.stores import get_store as timeline_store_for


def test_without_an_override_the_settings_decide(settings):
    settings.FEED_MODEL, settings.FEED_EMBED, settings.COMMENTS_STORE = "size", True, "buckets"
    assert (active.timeline_model(), active.embed(), active.comment_store()) == (
        "size",
        True,
        "buckets",
    )
    assert timeline_store_for().name == "size"
    assert comment_store_for().name == "buckets"


def test_an_override_changes_the_stores_read_and_nests(settings):
    settings.FEED_MODEL, settings.FEED_EMBED, settings.COMMENTS_STORE = "cache", False, "documents"
    with active.override(timeline_model="read", comment_store="embedded"):
        assert timeline_store_for().name == "read"
        assert comment_store_for().name == "embedded"
        assert active.embed() is False
        with active.override(embed=True):
            # The inner block changes only what it names.
            assert (active.timeline_model(), active.embed()) == ("read", True)
        assert active.embed() is False
        # A store asked for by name is that store, whatever the override.
        assert timeline_store_for("month").name == "month"
    assert timeline_store_for().name == "cache"
    assert comment_store_for().name == "documents"


def test_an_override_is_only_seen_by_its_own_thread(settings):
    settings.FEED_MODEL = "cache"
    seen = []
    inside, done = threading.Event(), threading.Event()

    def other_request():
        inside.wait(5)
        seen.append(active.timeline_model())
        done.set()

    thread = threading.Thread(target=other_request)
    thread.start()
    with active.override(timeline_model="month"):
        inside.set()
        done.wait(5)
        assert active.timeline_model() == "month"
    thread.join()
    assert seen == ["cache"]


@pytest.mark.parametrize(
    "kwargs", [{"timeline_model": "nosuch"}, {"comment_store": "$where"}, {"timeline_model": ""}]
)
def test_unknown_models_are_refused_up_front(kwargs):
    with pytest.raises(ValueError), active.override(**kwargs):
        pass


def test_a_lazy_choice_is_decided_once_and_only_when_asked(settings):
    settings.FEED_MODEL = "cache"
    calls = []

    def decide():
        calls.append(1)
        # Deciding may itself read a model (loading the user can write):
        # it gets the settings', not a recursion.
        assert active.timeline_model() == "cache"
        return active.Choice(timeline_model="size")

    with active.override_lazily(decide):
        assert calls == []
        assert active.timeline_model() == "size"
        assert active.comment_store() == settings.COMMENTS_STORE
        assert calls == [1]
    assert calls == [1]
    assert active.timeline_model() == "cache"
