"""The template helpers the long lists use (docs/performance.md#the-fragment-cache):
`{% moment %}` writes what the three date filters wrote, `path_to` what
`reverse` writes, and `render_each` caches one fragment per item."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.template import Context, Template
from django.urls import reverse

from socialsite import clock, fragments
from socialsite.templatetags.moments import moment
from socialsite.templatetags.site_urls import path_to

FILTERS = Template(
    '<time{% if classes %} class="{{ classes }}"{% endif %} datetime="{{ when|date:\'c\' }}" '
    "title=\"{{ when|date:'j M Y, H:i' }} UTC\" data-relative>{{ when|timesince:now }} ago</time>"
)
NOW = datetime(2026, 3, 31, 12, 30, 15, 123000, tzinfo=UTC)


@pytest.mark.parametrize(
    "when",
    [
        NOW,
        NOW - timedelta(seconds=59),
        NOW - timedelta(minutes=5),
        NOW - timedelta(hours=3, minutes=7),
        NOW - timedelta(days=1, hours=2),
        NOW - timedelta(days=30),  # across February
        NOW - timedelta(days=400, hours=5),
        datetime(2025, 12, 31, 23, 59, 59, 999000, tzinfo=UTC),
        datetime(2026, 1, 5, 9, 4, tzinfo=UTC),
        NOW.replace(tzinfo=None) - timedelta(hours=2),  # naive: UTC, as stored
        datetime(2026, 3, 31, 13, 0, tzinfo=timezone(timedelta(hours=2))),  # another zone
    ],
)
@pytest.mark.parametrize("classes", ["", "muted small"])
def test_moment_writes_what_the_date_filters_wrote(when, classes, monkeypatch):
    monkeypatch.setattr(clock, "now", lambda: NOW)
    aware = when if when.tzinfo else when.replace(tzinfo=UTC)
    # The filters are given the time as the page has it: aware (socialsite/clock.py).
    expected = FILTERS.render(Context({"when": aware, "classes": classes, "now": NOW}))
    assert moment(when, classes) == expected


def test_moment_in_a_fragment_leaves_the_age_to_its_slot():
    html = moment(NOW, "notification__time", fragments.AGE_SLOT)
    assert f">{fragments.AGE_SLOT} ago</time>" in html
    assert moment(None) == "" and moment("yesterday") == ""


@pytest.mark.parametrize(
    ("name", "arg"),
    [
        ("profiles:profile", "ada"),
        ("profiles:profile", "ada_lovelace_2"),
        ("profiles:follow", "bob"),
        ("feeds:post", "6b0a54969a4a710d15279520"),
        # Arguments `reverse` quotes or refuses: reversed as usual.
        ("profiles:profile", "two words"),
        ("profiles:profile", "çé"),
        ("profiles:profile", "a?b#c"),
        ("profiles:profile", ".."),
        ("profiles:profile", "."),
    ],
)
def test_path_to_is_the_reversed_route(name, arg):
    assert path_to(name, arg) == reverse(name, args=[arg])


def test_path_to_follows_the_script_prefix():
    from django.urls import set_script_prefix

    try:
        set_script_prefix("/social/")
        assert path_to("profiles:profile", "ada") == "/social/u/ada/"
    finally:
        set_script_prefix("/")
    assert path_to("profiles:profile", "ada") == "/u/ada/"


def test_render_each_renders_only_the_items_it_has_not_cached(monkeypatch):
    fragments.cache.clear()
    rendered = []
    real = fragments.get_template

    def counting(name):
        template = real(name)

        class Counted:
            def render(self, context):
                rendered.append(context["m"]["text"])
                return template.render(context)

        return Counted()

    monkeypatch.setattr(fragments, "get_template", counting)
    page = fragments.Page(Context({}))
    monkeypatch.setattr(clock, "now", lambda: NOW)

    def items(*texts):
        return [
            (str(n), {"text": text}, {"m": {"text": text}, "moment": NOW - timedelta(hours=n)})
            for n, text in enumerate(texts)
        ]

    template = "moderation/_report_fields.html"  # any template; its output is not the point
    first = fragments.render_each("t", items("a", "b"), template, page)
    assert rendered == ["a", "b"]
    again = fragments.render_each("t", items("a", "b"), template, page)
    assert again == first and rendered == ["a", "b"]  # both from the cache
    fragments.render_each("t", items("a", "c"), template, page)
    assert rendered == ["a", "b", "c"]  # only the changed item
