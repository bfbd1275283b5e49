"""Issue 20's probes from outside that broke, each sent again (docs/testing.md):
a control character that stopped an Atom feed, an invalid escape in the lens's
path, the profile form past its rate limit with nothing posted, a meter that
told a hidden post from a missing one, read-only pages that took PUT, DELETE
and PATCH, and a form in UTF-16 with DEBUG on."""

import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from comments.forms import CommentForm
from feeds.documents import PUBLIC, Post
from feeds.forms import PostForm
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.forms import ProfileForm
from socialsite import meter
from tests.hostile import probe, wire, world
from tests.hostile.routes import ROUTES

CONTROLS = ["\x08", "\x0b", "\x0c", "\x1b"]
MISSING = "0123456789abcdef01234567"


@pytest.fixture
def cast(make_user):
    """Ada posts in public and to her circle `friends`; Bob follows her but
    is not in it; Mo moderates."""
    ada = make_user("ada", "Ada Lovelace")
    bob = make_user("bob", "Bob Kahn")
    mod = make_user("mod", "Mo Derator", role="moderator")
    graph.circle_create(owner=ada, name="friends")
    graph.follow_create(follower=bob, followee="ada")
    hidden = feeds.post_create(
        author=ada.reload(), type="status", detail={"text": "friends only"}, circles=["friends"]
    )
    return ada, bob, mod, hidden


# --- control characters -------------------------------------------------------------


@pytest.mark.parametrize("ch", CONTROLS)
def test_the_post_form_drops_control_characters_from_every_text_it_stores(ch):
    cases = {
        "status": ({"text": f"he{ch}llo\n\tthere"}, {"text": "hello\n\tthere"}),
        "link": (
            {"url": f"https://example.org/{ch}a", "title": f"T{ch}", "text": f"s{ch}ee"},
            {"url": "https://example.org/a", "title": "T", "text": "see"},
        ),
        "checkin": ({"place": f"Pa{ch}ris"}, {"place": "Paris"}),
        "poll": (
            {"text": f"Tea{ch}?", "options": f"y{ch}es\nno"},
            {"question": "Tea?", "options": ["yes", "no"]},
        ),
    }
    for kind, (sent, stored) in cases.items():
        form = PostForm({"type": kind, **sent})
        assert form.is_valid(), (kind, form.errors)
        detail = form.cleaned_data["detail"]
        assert {key: detail[key] for key in stored} == stored, kind
    # Nothing but a control character is nothing at all.
    assert not PostForm({"type": "status", "text": ch}).is_valid()


@pytest.mark.parametrize("ch", CONTROLS)
def test_comment_and_profile_forms_drop_them_too(ch):
    comment = CommentForm({"text": f"ni{ch}ce\nline"})
    assert comment.is_valid() and comment.cleaned_data["text"] == "nice\nline"
    assert not CommentForm({"text": ch}).is_valid()
    profile = ProfileForm(
        {"name": "Ada", "bio": f"b{ch}io\n", "location": f"Lon{ch}don", "interests": f"a{ch}b, c"}
    )
    assert profile.is_valid(), profile.errors
    assert profile.cleaned_data["bio"] == "bio"
    assert profile.cleaned_data["location"] == "London"
    assert profile.cleaned_data["interests"] == ["ab", "c"]
    assert not ProfileForm({"name": f"A{ch}da"}).is_valid()  # a name refuses them


def test_control_characters_posted_through_the_site_are_not_stored(cast, login):
    client = login(cast[0], raise_request_exception=False)
    response = client.post("/posts/", {"type": "checkin", "place": "Pa\x1bris", "text": "a\x0cb"})
    assert response.status_code == 302
    stored = Post._get_collection().find_one({"type": "checkin"})["detail"]
    assert (stored["place"], stored["text"]) == ("Paris", "ab")


def test_an_atom_feed_with_control_characters_already_stored_still_renders(cast, client):
    ada = cast[0]
    # Stored before the forms dropped them: straight through the service.
    for kind, detail in [
        ("status", {"text": "back\x08space"}),
        ("link", {"url": "https://example.org/\x1b", "title": "T\x0b", "text": "x\x0c"}),
        ("checkin", {"place": "Pa\x1bris", "lat": None, "lng": None, "text": ""}),
        ("poll", {"question": "Tea\x08?", "options": ["y\x0ces", "no"], "votes": [0, 0]}),
    ]:
        feeds.post_create(author=ada, type=kind, detail=detail, circles=[PUBLIC])
    response = client.get("/u/ada/feed.atom")
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # well-formed XML 1.0
    text = ET.tostring(root, encoding="unicode")
    assert "backspace" in text and "Paris" in text
    assert not any(ch in text for ch in CONTROLS)


# --- the lens's path -----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/u/%ff/", "/posts/%c3%28/", "/u/a%e2%82/"])
def test_compare_with_a_path_that_is_not_utf8_is_a_400(make_user, login, path):
    client = login(make_user("root", "Root Admin", role="admin"), raise_request_exception=False)
    response = client.get("/dev/compare/", {"path": path})
    assert response.status_code == 400
    assert "not UTF-8" in response.content.decode()


# --- the profile form past its limit -----------------------------------------------------


def test_an_empty_profile_post_past_the_rate_limit_rerenders_the_form(cast, login, settings):
    settings.RATELIMIT_PROFILE_EDIT = "1/3600"
    ada = cast[0]
    client = login(ada, raise_request_exception=False)
    assert client.post("/settings/profile/", {}).status_code == 200  # the form's own errors
    response = client.post("/settings/profile/", {})
    assert response.status_code == 429
    assert "errorlist" in response.content.decode()
    assert ada.reload().name == "Ada Lovelace"


# --- the meter on a refusal ----------------------------------------------------------------


def test_a_hidden_post_and_a_missing_one_carry_the_same_meter(cast, login):
    _, bob, mod, hidden = cast
    for who in ("anon", "bob"):
        client = Client() if who == "anon" else login(bob)
        answers = {}
        for name, post in (("hidden", hidden.id), ("missing", MISSING)):
            response = client.get(f"/posts/{post}/")
            assert response.status_code == 404, (who, name)
            answers[name] = (response["Server-Timing"], b"db-meter" in response.content)
        assert answers["hidden"] == answers["missing"] == (meter.REFUSED, False), who
    # Staff see no footer meter on a refusal either.
    staff = login(mod)
    missing = staff.get(f"/posts/{MISSING}/")
    assert missing["Server-Timing"] == meter.REFUSED and b"db-meter" not in missing.content
    # The control: a page shown still carries its figures, footer included.
    shown = staff.get(f"/posts/{hidden.id}/")
    assert shown.status_code == 200 and "round trips" in shown["Server-Timing"]
    assert b"db-meter" in shown.content


# --- methods ---------------------------------------------------------------------------------


def test_every_route_answers_405_with_allow_to_a_method_it_does_not_take(settings):
    """Every route of tests/hostile/routes.py, with the world's valid values:
    PUT, DELETE and PATCH everywhere, and POST on the pages that only read.
    A GET of a POST-only route (a reload, the address bar, a login's way
    back) is a redirect to the page it belongs to, never a 405, and acts on
    nothing."""
    settings.RATELIMIT_ENABLED = False
    built = world.build()
    wrong, post_only = [], 0
    for key, route in ROUTES.items():
        role = "admin" if route.staff else "alice"
        path = probe.valid_path(key, route, built)
        own = probe.own_method(route)
        if probe.is_api(key):
            taken = probe.methods_taken(key, route, built)
            refused = [m for m in ("GET", "POST", "PUT", "DELETE", "PATCH") if m not in taken]
        else:
            if own == "POST" and not probe.answers_get(key, route, built):
                post_only += 1
                response = wire.send(built, probe.Probe(key, role, "GET", path, [], [], False))
                if response.status_code != 302 or not response["Location"].startswith("/"):
                    wrong.append((key, "GET", response.status_code, ""))
            refused = ["PUT", "DELETE", "PATCH", *(["POST"] if own == "GET" else [])]
        for method in refused:
            response = wire.send(built, probe.Probe(key, role, method, path, [], [], False))
            allow = response.get("Allow", "")
            if response.status_code != 405 or own not in allow or method in allow:
                wrong.append((key, method, response.status_code, allow))
        response = wire.send(built, probe.Probe(key, role, "OPTIONS", path, [], [], False))
        if response.status_code != 200 or own not in response.get("Allow", ""):
            wrong.append((key, "OPTIONS", response.status_code, response.get("Allow", "")))
    assert wrong == [] and post_only > 20


def test_a_form_page_answers_head_as_its_get_without_a_body(cast, login):
    client = login(cast[0])
    got = client.get("/settings/profile/")
    head = client.head("/settings/profile/")
    assert head.status_code == got.status_code == 200
    assert head.content == b"" and int(head["Content-Length"]) == len(got.content)


# --- a form in UTF-16 -------------------------------------------------------------------------


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("path", ["/posts/", "/accounts/login/", "/settings/profile/"])
def test_a_form_body_in_utf16_is_a_400(cast, login, settings, debug, path):
    settings.DEBUG = debug
    client = login(cast[0], raise_request_exception=False)
    before = Post.objects.count()
    body = "text=abc&type=status".encode("utf-16")
    ctype = "application/x-www-form-urlencoded; charset=utf-16"
    response = client.generic("POST", path, body, ctype)
    assert response.status_code == 400
    assert Post.objects.count() == before
