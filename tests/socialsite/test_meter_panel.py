"""The django-debug-toolbar panel listing MongoDB commands (issue 14 item 5):
on with DEBUG only, and rendering what the round-trip counter recorded."""

from html import unescape
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import Resolver404, resolve

from profiles.documents import FollowerEdge

pytest.importorskip("debug_toolbar")

from socialsite.debug_panel import MongoPanel


class _Store:
    """What the panel asks of the toolbar's store: somewhere to put its stats."""

    saved: dict = {}

    @classmethod
    def save_panel(cls, request_id, panel_id, data=None):
        cls.saved[(request_id, panel_id)] = data


def _toolbar(request):
    return SimpleNamespace(request=request, stats={}, store=_Store, request_id="r1")


def test_the_panel_lists_the_commands_of_the_request():
    collection = FollowerEdge._get_collection()

    def view(request):
        collection.insert_many([{"_f": "star", "_t": f"fan{i}"} for i in range(3)])
        list(collection.find({"_f": "star", "_t": {"$in": ["fan0", "fan1"]}}))
        collection.update_one({"_t": "fan2"}, {"$set": {"seen": True}})
        return HttpResponse("ok")

    request = RequestFactory().get("/feed/")
    panel = MongoPanel(_toolbar(request), view)
    response = panel.process_request(request)
    panel.generate_stats(request, response)

    stats = panel.get_stats()
    assert (stats["round_trips"], stats["docs"]) == (3, 3 + 2 + 1)
    names = [command["name"] for command in stats["commands"]]
    # The demo database counts collection calls; a server names its commands.
    assert names in (["insert_many", "find", "update_one"], ["insert", "find", "update"])
    assert panel.nav_subtitle.startswith("3 round trips, ")
    html = panel.content
    assert html.count("<tr>") == 1 + 3
    assert "<td>find</td>" in html and f"<td>{collection.name}</td>" in html
    assert '<code>{"_f": "?", "_t": {"$in": "?"}}</code>' in unescape(html)
    assert "fan0" not in html and "star" not in html


def test_the_toolbar_is_off_under_the_test_suite():
    """Tests run with DEBUG off: no toolbar app, middleware or routes."""
    assert settings.DEBUG_TOOLBAR is False
    assert "debug_toolbar" not in settings.INSTALLED_APPS
    assert not any("debug_toolbar" in name for name in settings.MIDDLEWARE)
    with pytest.raises(Resolver404):
        resolve("/__debug__/render_panel/")
