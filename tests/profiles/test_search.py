"""People search: what a viewer may find, and its cached result cards."""

import re

import pytest
from django.urls import reverse

from profiles import selectors, services
from socialsite import fragments
from socialsite.templatetags.site_urls import fixed_url


def found(client, q="ad") -> list[str]:
    page = client.get("/search/", {"q": q}).content.decode()
    return re.findall(r'<span class="handle">@([a-z0-9_]+)</span>', page)


def results(client, q="ada") -> str:
    page = client.get("/search/", {"q": q}).content.decode()
    listed = re.search(r'<ul class="people" id="results">.*?</ul>', page, re.S).group(0)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", listed)  # masked anew


@pytest.fixture
def people(make_user):
    return {
        "viewer": make_user("adviewer", name="Viewer"),
        "ada": make_user("ada", name="Ada Lovelace"),
        "adam": make_user("adam", name="Adam Smith"),
        "adele": make_user("adele", name="Adele Adkins"),
        "adrian": make_user("adrian", name="Adrian Mole", status="suspended"),
    }


def test_search_hides_blocks_both_ways_and_suspended_users(people, login, client):
    services.block_create(blocker=people["viewer"], blocked="ada")
    services.block_create(blocker=people["adam"], blocked="adviewer")
    # The viewer blocked ada; adam blocked the viewer; adrian is suspended.
    assert found(login(people["viewer"])) == ["adele", "adviewer"]
    assert found(login(people["ada"])) == ["ada", "adam", "adele"]  # blocked by the viewer
    assert found(login(people["adele"])) == ["ada", "adam", "adele", "adviewer"]
    assert found(client) == ["ada", "adam", "adele", "adviewer"]  # anonymous: no blocks


def test_results_offer_follow_buttons_but_not_to_oneself_or_visitors(people, login, client):
    services.follow_create(follower=people["viewer"], followee="adam")
    page = login(people["viewer"]).get("/search/", {"q": "ad"}).content.decode()
    buttons = dict(re.findall(r'action="/u/([a-z]+)/follow/".*?>(Follow)</button>', page, re.S))
    assert set(buttons) == {"ada", "adele"}  # not adam (followed), not the viewer
    assert '<span class="person__action muted small">Following</span>' in page
    assert 'aria-label="Follow Ada Lovelace"' in page
    anonymous = client.get("/search/", {"q": "ad"}).content.decode()
    assert "/follow/" not in anonymous and "Following" not in anonymous


def test_hidden_people_do_not_shorten_or_repeat_pages(make_user, settings):
    settings.SEARCH_PAGE_SIZE = 2
    viewer = make_user("sam_viewer", name="Viewer")
    for i in range(6):
        make_user(f"sam{i}", name=f"Sam {i}")
    services.block_create(blocker=viewer, blocked="sam1")
    services.block_create(blocker=selectors.user_active("sam3"), blocked="sam_viewer")
    viewer.reload()
    seen, after = [], None
    while True:
        page = selectors.search_people("sam", after, viewer=viewer)
        assert len(page.items) == 2 or page.next_cursor is None
        seen += [person.handle for person in page.items]
        if page.next_cursor is None:
            break
        after = page.next_cursor
    assert seen == ["sam0", "sam2", "sam4", "sam5", "sam_viewer"]


def test_result_shows_name_bio_and_followers_from_a_plain_row(people, login):
    ada = people["ada"]
    services.profile_update(
        user=ada,
        name="Ada Lovelace",
        bio="Poet of <b>science</b>",
        location="",
        interests=[],
        website="",
    )
    page = login(people["viewer"]).get("/search/", {"q": "ada"}).content.decode()
    assert "Poet of &lt;b&gt;science&lt;/b&gt;" in page
    assert '<a class="person__name" href="/u/ada/">Ada Lovelace</a>' in page
    assert "0 followers" in page
    result = selectors.search_people("ada").items[0]
    assert isinstance(result, selectors.Person)  # not a whole User document


def test_cached_cards_change_when_the_person_does(people, login):
    fragments.cache.clear()
    client = login(people["viewer"])
    first = results(client)
    assert "Ada Lovelace" in first
    cached = [key for key in fragments.cache._entries if key.startswith("person:")]
    assert cached, "search cards go through the fragment cache"
    assert results(client) == first
    services.profile_update(
        user=people["ada"], name="Ada King", bio="", location="", interests=[], website=""
    )
    services.follow_create(follower=people["adam"], followee="ada")
    again = results(client)
    assert "Ada King" in again and "Ada Lovelace" not in again
    assert "1 follower<" in again


def test_fixed_url_is_the_reversed_route():
    for name in ("home", "profiles:search", "profiles:login", "notifications:list"):
        assert fixed_url(name) == reverse(name)
