"""Profile, graph, circles and search pages through the test client."""

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from profiles import services
from profiles.documents import FollowingEdge, User
from tests.conftest import PASSWORD


def test_profile_shows_fields_and_counts(client, make_user):
    ada = make_user("ada", name="Ada Lovelace")
    services.profile_update(
        user=ada,
        name="Ada Lovelace",
        bio="First programmer",
        location="London",
        interests=["engines", "poetry"],
        website="https://ada.example.org",
    )
    bob = make_user("bob")
    services.follow_create(follower=bob, followee="ada")
    html = client.get("/u/ada/").content.decode()
    for text in ["Ada Lovelace", "First programmer", "London", "engines", "poetry"]:
        assert text in html
    assert 'href="https://ada.example.org"' in html
    assert '<strong data-count="followers">1</strong>' in html
    assert '<strong data-count="following">0</strong>' in html
    assert '<strong data-count="posts">0</strong>' in html


def test_script_in_name_and_bio_is_escaped(client, make_user):
    ada = make_user("ada")
    services.profile_update(
        user=ada,
        name="<script>alert(1)</script>",
        bio="<script>alert(2)</script>",
        location="",
        interests=["<b>x</b>"],
        website="",
    )
    html = client.get("/u/ada/").content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


@pytest.mark.parametrize(
    "website",
    ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,hi", "ftp://x.org", "nope"],
)
def test_profile_edit_refuses_non_http_websites(make_user, login, website):
    client = login(make_user("ada"))
    response = client.post("/settings/profile/", {"name": "Ada", "website": website})
    assert response.status_code == 200
    assert "website" in response.context["form"].errors
    assert b"errorlist" in response.content
    assert User.objects.get(handle="ada").profile.website == ""


def test_profile_edit_saves(make_user, login):
    client = login(make_user("ada"))
    response = client.post(
        "/settings/profile/",
        {
            "name": "  Ada   L ",
            "bio": "hi",
            "location": "Paris",
            "interests": "a, b, a",
            "website": "http://ada.example",
        },
    )
    assert response.status_code == 302
    ada = User.objects.get(handle="ada")
    assert ada.name == "Ada L"
    assert ada.profile.interests == ["a", "b"]
    assert ada.profile.website == "http://ada.example"


def test_profile_edit_field_errors(make_user, login):
    client = login(make_user("ada"))
    response = client.post("/settings/profile/", {"name": "", "bio": "x" * 501})
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"name", "bio"}


BAD_HANDLES = [
    '{"$ne": 1}',
    "a.b",
    "$where",
    "x" * 300,
    "%00",
    "ab",
    "<script>",
    "nobody_here",
]


@pytest.mark.parametrize("handle", BAD_HANDLES)
@pytest.mark.parametrize(
    "suffix, method",
    [
        ("", "get"),
        ("followers/", "get"),
        ("following/", "get"),
        ("follow/", "post"),
        ("unfollow/", "post"),
        ("block/", "post"),
        ("unblock/", "post"),
        ("circles/", "post"),
    ],
)
def test_bad_handles_are_404(make_user, login, handle, suffix, method):
    client = login(make_user("ada"))
    response = getattr(client, method)(f"/u/{handle}/{suffix}")
    assert response.status_code == 404


@pytest.mark.parametrize(
    "params",
    [
        {"q": '{"$ne": 1}'},
        {"q": "$where"},
        {"q": "a.b"},
        {"q": "x" * 5000},
        {"q": "ada", "after": '{"$gt": ""}'},
        {"q": "(", "after": "x" * 500},
    ],
)
def test_search_never_500s(client, make_user, params):
    make_user("ada")
    assert client.get("/search/", params).status_code == 200


def test_bad_form_values_are_form_errors_not_500(make_user, login):
    ada = make_user("ada")
    make_user("bob")
    client = login(ada)
    # Unknown circle names, dict-like values, over-long strings.
    for data in [
        {"circles": ['{"$ne": 1}']},
        {"circles": ["x" * 1000]},
        {"circles": ["$where"]},
    ]:
        assert client.post("/u/bob/follow/", data).status_code == 302
    assert FollowingEdge.objects.count() == 0
    for data in [
        {"name": "x" * 1000},
        {"name": "$where"},
        {"action": "rename", "circle": '{"$ne": 1}', "new": "x"},
        {"action": "add", "circle": "nope", "member": "$where"},
        {"action": "explode"},
    ]:
        response = client.post("/circles/", data)
        assert response.status_code in (302, 400), data
    assert User.objects.get(handle="ada").circles == []


def test_follow_unfollow_block_through_views(make_user, login):
    ada = make_user("ada")
    make_user("bob")
    client = login(ada)
    client.post("/circles/", {"name": "friends"})
    response = client.post("/u/bob/follow/", {"circles": ["friends"]}, follow=True)
    assert b"You follow Bob in friends." in response.content
    assert FollowingEdge.objects.get(follower="ada", followee="bob").circles == ["friends"]
    html = client.get("/u/bob/").content.decode()
    assert "Unfollow" in html and 'value="friends" checked' in html
    client.post("/u/bob/circles/", {"circles": []})
    assert FollowingEdge.objects.get(follower="ada", followee="bob").circles == []
    client.post("/u/bob/unfollow/")
    assert FollowingEdge.objects.count() == 0
    client.post("/u/bob/block/")
    assert User.objects.get(handle="ada").blocked == ["bob"]
    assert "Unblock" in client.get("/u/bob/").content.decode()
    response = client.post("/u/ada/follow/", follow=True)
    assert b"You can&#x27;t follow yourself." in response.content
    client.post("/u/bob/unblock/")
    assert User.objects.get(handle="ada").blocked == []


def test_blocked_user_cannot_follow_blocker(make_user, login):
    ada, bob = make_user("ada"), make_user("bob")
    services.block_create(blocker=ada, blocked="bob")
    response = login(bob).post("/u/ada/follow/", follow=True)
    assert b"You can&#x27;t follow this account." in response.content
    assert FollowingEdge.objects.count() == 0


def test_suspended_profile_is_404(client, make_user):
    make_user("sus", status="suspended")
    assert client.get("/u/sus/").status_code == 404


def test_circles_page_create_rename_add_remove_delete(make_user, login):
    ada = make_user("ada")
    make_user("bob")
    services.follow_create(follower=ada, followee="bob")
    client = login(ada)
    assert client.post("/circles/", {"name": "friends"}).status_code == 302
    client.post("/circles/", {"action": "add", "circle": "friends", "member": "@bob"})
    html = client.get("/circles/").content.decode()
    assert 'data-circle="friends"' in html and "@bob" in html
    client.post("/circles/", {"action": "rename", "circle": "friends", "new": "pals"})
    assert User.objects.get(handle="ada").circles == ["pals"]
    client.post("/circles/", {"action": "remove", "circle": "pals", "member": "bob"})
    assert FollowingEdge.objects.get(follower="ada", followee="bob").circles == []
    client.post("/circles/", {"action": "delete", "circle": "pals"})
    assert User.objects.get(handle="ada").circles == []
    # An invalid name re-renders the form with the error.
    response = client.post("/circles/", {"name": "*public*"})
    assert response.status_code == 400
    assert b"errorlist" in response.content


def test_followers_list_pages(client, make_user, settings):
    settings.GRAPH_PAGE_SIZE = 2
    make_user("star")
    for h in ["fan_a", "fan_b", "fan_c"]:
        services.follow_create(follower=make_user(h), followee="star")
    first = client.get("/u/star/followers/").content.decode()
    assert "@fan_a" in first and "@fan_b" in first and "@fan_c" not in first
    assert 'rel="next"' in first and "?after=fan_b" in first
    second = client.get("/u/star/followers/?after=fan_b").content.decode()
    assert "@fan_c" in second and 'rel="next"' not in second


def test_profile_round_trips_do_not_grow_with_followers(make_user, login, round_trips):
    viewer = make_user("viewer")
    make_user("star")
    client = login(viewer)

    def trips():
        with round_trips() as c:
            assert client.get("/u/star/").status_code == 200
        return c.total

    few = trips()
    for i in range(60):
        services.follow_create(follower=make_user(f"fan{i}"), followee="star")
    services.follow_create(follower=viewer, followee="star")
    many = trips()
    assert few == many
    assert many <= 5  # session, viewer, profile user, the relationship, at most one more


def _all_routes():
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern)

    for route in walk(get_resolver().url_patterns):
        yield "/" + (
            route.replace("<str:handle>", "bob")
            .replace("<str:post_id>", "5f0c5e5e5e5e5e5e5e5e5e5e")
            .replace("<path:slug>", "abcd")
        )


def client_api_route(route: str) -> bool:
    return route.startswith(("/api/", "/oauth/token", "/oauth/revoke"))


def signed_inbox_route(route: str) -> bool:
    """An ActivityPub inbox: an HTTP signature authenticates each activity,
    never a cookie (docs/federation.md#signatures)."""
    return route == "/inbox" or (route.startswith("/u/") and route.endswith("/inbox"))


def test_csrf_enforced_on_every_post(make_user):
    make_user("ada")
    make_user("bob")
    logged_in = Client()
    logged_in.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = logged_in.cookies
    anonymous = Client(enforce_csrf_checks=True)
    routes = list(_all_routes())
    assert "/u/bob/follow/" in routes and "/accounts/login/" in routes
    for route in routes:
        if getattr(resolve(route).func, "csrf_exempt", False):
            # The client API: a cookie never authenticates it (a bearer token
            # does), so there is nothing to forge (docs/api.md#conventions).
            # Nor the inboxes, whose activities are signed.
            assert client_api_route(route) or signed_inbox_route(route), route
            assert strict.post(route, {"name": "x"}).status_code != 200, route
            continue
        for client in (strict, anonymous):
            assert client.post(route, {"name": "x"}).status_code == 403, route
    assert User.objects.get(handle="ada").circles == []
    assert FollowingEdge.objects.count() == 0


def test_settings_links_every_settings_page_and_each_shares_its_navigation(make_user, login):
    from django.urls import reverse

    client = login(make_user("ada"))
    pages = [
        reverse(f"profiles:{name}")
        for name in ("profile_edit", "password_change", "email", "settings_2fa", "sessions")
    ] + [reverse(f"profiles:{name}") for name in ("filters", "export", "delete")]
    index = client.get("/settings/")
    assert index.status_code == 200
    html = index.content.decode()
    for path in pages:
        assert f'href="{path}"' in html, path
    for path in pages:
        page = client.get(path).content.decode()
        assert 'nav class="subnav" aria-label="Settings"' in page, path
        assert f'href="{path}" aria-current="page"' in page, path
    # The header's menu, on every page (the feed's too): settings and bookmarks.
    feed = client.get("/feed/").content.decode()
    assert 'href="/settings/"' in feed and 'href="/bookmarks/"' in feed
    assert client.get("/settings/", follow=False).status_code == 200
    assert Client().get("/settings/").status_code == 302  # to the login page
