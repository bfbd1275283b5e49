"""Hostile input never gives a 5xx, on any route (issue 9, docs/features.md#routes,
docs/architecture.md#reliability-and-security-habits).

Every route the resolver serves gets hostile values (unicode digits, huge
numbers, NUL, `$` operators, 10k-character strings, invalid UTF-8 escapes,
forged cursors, surrogates, bidi overrides, repeated and operator-shaped keys)
in its path parameters, query parameters and form fields, by GET and POST, as
an anonymous visitor, a user, a user blocked by the author, and a moderator
or admin: drawn by hypothesis, and swept field by field with the values of
each field's kind. The page a POST redirects to, and the pages that show what
was stored, are read too. Then hostile cookies, headers, methods and bodies,
and every form again with its rate limit spent.

Every 5xx is collected, deduplicated by cause (exception and the innermost
frame of the project's code) and reported at once, so one run shows them all.
The routes and parameters come from tests/hostile/routes.py, which two tests
keep in step with the resolver and the views.
"""

import os
import zlib

from django.test import Client
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from socialsite import mongo
from tests.hostile import probe, wire, world
from tests.hostile.findings import Findings
from tests.hostile.routes import ROUTES, resolver_routes, view_parameters

# Hypothesis examples per batch are multiplied by this: 1 in CI; a deeper
# local hunt runs e.g. HOSTILE_SCALE=10 (and FEED_MODEL / COMMENTS_STORE set).
SCALE = int(os.environ.get("HOSTILE_SCALE", "1"))


def test_every_route_is_known():
    """A new route must be added to tests/hostile/routes.py with its parameters."""
    served = resolver_routes()
    unknown = sorted(set(served) - set(ROUTES))
    stale = sorted(set(ROUTES) - set(served))
    assert not unknown, f"routes the hostile test knows nothing about: {unknown}"
    assert not stale, f"routes the hostile test lists that no longer exist: {stale}"
    for key, names in served.items():
        assert sorted(names) == sorted(ROUTES[key].path), f"path parameters of {key!r}"


def test_every_parameter_the_views_read_is_known():
    """A view that starts reading a new query parameter or form field must
    have it added to its route in tests/hostile/routes.py."""
    known = {name for route in ROUTES.values() for name in [*route.query, *route.form]}
    read = view_parameters()
    assert read, "the scan of the views found nothing: has the layout changed?"
    unknown = {name: sorted(files) for name, files in read.items() if name not in known}
    assert not unknown, f"parameters the views read that no route lists: {unknown}"


def _probe(key, route, slot, built, found: Findings) -> None:
    # Deterministic (a fixed seed, derandomize, no example database): CI sends
    # the same requests every run. The seed differs per route and batch, or
    # every batch would draw the same values. Nothing inside fails, so
    # hypothesis never stops or shrinks: every 5xx is recorded, and the test
    # asserts once at the end.
    @seed(zlib.crc32(f"{key} {slot}".encode()))
    @settings(
        max_examples=slot.examples * SCALE,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data):
        for request, response in wire.exchange(built, probe.draw(data, key, route, slot, built)):
            found.record(request, response)

    run()


def test_hostile_input_never_gives_a_5xx(probing):
    found = Findings()
    built = world.build()
    toured_as_built = False
    for key, route in ROUTES.items():
        # Back to the built world: the last route's probes may have logged a
        # role out, suspended someone or deleted a post.
        built.restore()
        for slot in probe.slots(route):
            _probe(key, route, slot, built, found)
        if probe.own_method(route) == "POST":
            # Probes that stored nothing (no collection written, no cookie
            # changed: say every one was refused) leave the built world,
            # whose pages one tour has shown: the same requests would answer
            # the same again.
            if not built.changed():
                if toured_as_built:
                    continue
                toured_as_built = True
            for request, response in wire.tour(built, after=key):
                found.record(request, response)
    assert found.requests >= 10 * len(ROUTES)
    assert not found, found.report()


def test_a_view_exception_is_caught_and_reported_with_its_cause(monkeypatch):
    """The harness itself: a view that raises is a 500 response (not an
    exception in the test), recorded once per cause with where it was raised."""

    def broken():
        raise RuntimeError("the database fell over")

    monkeypatch.setattr(mongo, "ping", broken)
    built = world.World(clients={"anon": Client(raise_request_exception=False)})
    found = Findings()
    for query in ([], [("q", "²")]):
        request = probe.Probe("healthz", "anon", "GET", "/healthz", query, [], False)
        found.record(request, wire.send(built, request))
    assert found.requests == 2
    report = found.report()
    assert "1 distinct 5xx causes in 2 requests" in report
    assert "RuntimeError: the database fell over" in report
    # Where: the innermost frame of the project's code, and the traceback's tail.
    assert "raised at tests/test_hostile_input.py:" in report and "in broken" in report
    assert 'socialsite/views.py", line' in report and "routes: GET /healthz" in report
