"""Hostile input never gives a 5xx, swept field by field (the deterministic
half of tests/test_hostile_input.py, whose docstring tells the whole; a
module of its own so that pytest-xdist's `--dist loadfile` can give the two
halves to different workers): each field with the hostile values of its
kind, then hostile cookies, headers, methods and bodies, and every form
again with its rate limit spent."""

from django.conf import settings as django_settings

from tests.hostile import probe, wire, world
from tests.hostile.findings import Findings
from tests.hostile.routes import ROUTES


def test_every_field_gets_the_hostile_values_of_its_kind(probing):
    """The deterministic sweep: each path parameter, query parameter and form
    field in turn, with each value most likely to break its kind (a cursor
    past year 9999, "²" for a number, "http://[::1" for a link, a password
    like the handle) while the other fields are valid, so it is read."""
    found = Findings()
    built = world.build()
    for key, route in ROUTES.items():
        last = None
        for name, request in probe.sweep(key, route, built):
            if name != last:  # a fresh world per field: a sweep may log out or delete
                built.restore()
                last = name
            for sent, response in wire.exchange(built, request):
                found.record(sent, response)
    assert found.requests >= 5 * len(ROUTES)
    assert not found, found.report()


def test_hostile_cookies_headers_methods_and_bodies_never_give_a_5xx(probing):
    """A forged session or CSRF cookie, a bad Host, an odd If-None-Match,
    Accept-Language or User-Agent; PUT, HEAD or an unknown method on every
    route; a cut-short multipart body, JSON or an unknown charset on every
    form: refused or ignored, never a 500."""
    found = Findings()
    built = world.build()
    for request in wire.header_sweep(built):
        found.record(request, wire.send(built, request))
    for key, route in ROUTES.items():
        built.restore()  # the last route's odd requests may have logged alice out
        for request in wire.odd_requests(key, route, built):
            found.record(request, wire.send(built, request))
    assert found.requests >= len(ROUTES) * len(wire.ODD_METHODS)
    assert not found, found.report()


def test_rate_limited_forms_with_hostile_values_never_give_a_5xx(probing, settings):
    """Every limit at one attempt an hour: the refusal (a 429 that re-renders
    the form or the page with what was sent) meets the hostile values too."""
    found, limited = Findings(), 0
    built = world.build()  # the logins first, while the limits allow them
    settings.RATELIMIT_ENABLED = True
    for name in dir(django_settings):  # the fixture's own dir() lists the wrapper's
        if name.startswith("RATELIMIT_") and name != "RATELIMIT_ENABLED":
            setattr(settings, name, "1/3600")
    for key, route in ROUTES.items():
        if probe.own_method(route) != "POST":
            continue
        built.restore()  # counters included: the first probe spends the attempt
        sent_per_field: dict[str, int] = {}
        for name, request in probe.sweep(key, route, built):
            sent_per_field[name] = sent_per_field.get(name, 0) + 1
            if sent_per_field[name] <= 2:
                for sent, response in wire.exchange(built, request):
                    found.record(sent, response)
                    limited += response.status_code == 429
    assert limited >= 20, "the limits did not trigger: the refusals went untested"
    assert not found, found.report()
