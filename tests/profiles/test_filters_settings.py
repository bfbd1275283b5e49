"""`/settings/filters/` (docs/privacy.md#keyword-filters): listing, adding,
the form's errors, the cap, deleting, and the atomic writes behind them."""

import re
from datetime import timedelta

import pytest
from django.test import Client

from profiles.documents import User
from profiles.filters import MAX_FILTERS, MAX_PHRASE
from profiles.services import filters as services
from socialsite import clock
from tests.profiles.test_export import exported

URL = "/settings/filters/"
ITEM = re.compile(
    r'<li class="keyword-filter" data-filter-id="([0-9a-f]{24})" data-action="(hide|warn)"'
    r' data-expired="(true|false)">'
)


def stored(handle: str) -> list[dict]:
    return User._get_collection().find_one({"_id": handle}).get("filters", [])


def listed(client) -> list[tuple[str, str, str]]:
    response = client.get(URL)
    assert response.status_code == 200
    return ITEM.findall(response.content.decode())


@pytest.fixture
def ada(make_user):
    return make_user("ada")


def test_signed_out_visitors_are_sent_to_log_in():
    response = Client().get(URL)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert Client().post(URL, {"phrase": "x", "context": "home"}).status_code == 302


def test_adding_a_filter_lists_it_and_stores_it(ada, login):
    client = login(ada)
    assert listed(client) == []
    response = client.post(
        URL,
        {
            "phrase": "  New   York ",
            "context": ["home", "public"],
            "action": "hide",
            "expires": "7d",
        },
    )
    assert response.status_code == 302 and response["Location"] == URL
    [kept] = stored("ada")
    assert kept["phrase"] == "New York" and kept["contexts"] == ["home", "public"]
    assert kept["action"] == "hide"
    left = clock.aware(kept["expires"]) - clock.now()
    assert timedelta(days=6, hours=23) < left <= timedelta(days=7)
    assert listed(client) == [(kept["id"], "hide", "false")]
    page = client.get(URL).content.decode()
    assert "“New York”" in page and re.search(r"expires in <time [^>]*>6\xa0days", page)
    client.post(URL, {"phrase": "cats", "context": "thread", "action": "warn", "expires": "never"})
    assert [f["action"] for f in stored("ada")] == ["hide", "warn"]
    assert "never expires" in client.get(URL).content.decode()


@pytest.mark.parametrize(
    "form, field",
    [
        ({"phrase": "", "context": "home", "action": "hide", "expires": "never"}, "phrase"),
        (
            {"phrase": "\x1b\x00", "context": "home", "action": "hide", "expires": "never"},
            "phrase",
        ),
        (
            {"phrase": "x" * (MAX_PHRASE + 1), "context": "home", "action": "hide"},
            "phrase",
        ),
        ({"phrase": "cats", "action": "hide", "expires": "never"}, "context"),
        ({"phrase": "cats", "context": "everywhere", "action": "hide"}, "context"),
        ({"phrase": "cats", "context": "home", "action": "delete", "expires": "1d"}, "action"),
        ({"phrase": "cats", "context": "home", "action": "hide", "expires": "2y"}, "expires"),
        ({"phrase": "cats", "context": "home", "action": "hide", "expires": "$ne"}, "expires"),
    ],
)
def test_bad_input_re_renders_the_form_and_changes_nothing(ada, login, form, field):
    client = login(ada)
    response = client.post(URL, {"expires": "never", **form})
    html = response.content.decode()
    assert response.status_code == 200
    assert 'class="errorlist' in html and f'name="{field}"' in html
    assert stored("ada") == []


def test_the_cap_is_a_form_error_and_expired_filters_make_way(ada, login, monkeypatch):
    for n in range(MAX_FILTERS - 1):
        services.keyword_filter_create(
            user=ada, phrase=f"word{n}", contexts=["home"], action="warn", expires_in=None
        )
    services.keyword_filter_create(
        user=ada, phrase="brief", contexts=["home"], action="hide", expires_in=timedelta(hours=1)
    )
    client = login(User.objects.get(handle="ada"))
    full = {"phrase": "one more", "context": "home", "action": "hide", "expires": "never"}
    response = client.post(URL, full)
    assert response.status_code == 200
    assert f"at most {MAX_FILTERS} filters" in response.content.decode()
    assert len(stored("ada")) == MAX_FILTERS
    # An hour later "brief" has expired: the page says so, and it makes way.
    later = clock.now() + timedelta(hours=2)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert "true" in [expired for _, _, expired in listed(client)]
    assert client.post(URL, full).status_code == 302
    phrases = [f["phrase"] for f in stored("ada")]
    assert len(phrases) == MAX_FILTERS and "brief" not in phrases and phrases[-1] == "one more"


def test_the_cap_holds_in_the_update_itself(ada):
    """A stale document (another request added filters meanwhile) cannot
    push past the cap: the update's own filter refuses it."""
    stale = User.objects.get(handle="ada")
    for n in range(MAX_FILTERS):
        services.keyword_filter_create(
            user=ada, phrase=f"word{n}", contexts=["home"], action="warn", expires_in=None
        )
    with pytest.raises(services.FilterError):
        services.keyword_filter_create(
            user=stale, phrase="late", contexts=["home"], action="hide", expires_in=None
        )
    assert len(stored("ada")) == MAX_FILTERS


def test_deleting_a_filter(ada, make_user, login):
    client = login(ada)
    client.post(URL, {"phrase": "cats", "context": "home", "action": "warn", "expires": "never"})
    client.post(URL, {"phrase": "dogs", "context": "home", "action": "warn", "expires": "never"})
    cats, dogs = (f["id"] for f in stored("ada"))
    assert client.get(f"{URL}{cats}/delete/")["Location"] == URL  # a GET never deletes
    response = client.post(f"{URL}{cats}/delete/")
    assert response.status_code == 302 and response["Location"] == URL
    assert [f["id"] for f in stored("ada")] == [dogs]
    # Again, someone else's, or not an id at all: 404, and nothing changes.
    bob = login(make_user("bob"))
    for who, filter_id in ((client, cats), (bob, dogs), (client, "x"), (client, '{"$ne": 1}')):
        assert who.post(f"{URL}{filter_id}/delete/").status_code == 404
    assert [f["id"] for f in stored("ada")] == [dogs]


def test_writes_are_rate_limited(ada, login, settings):
    settings.RATELIMIT_FILTERS = "2/60"
    client = login(ada)
    form = {"phrase": "cats", "context": "home", "action": "warn", "expires": "never"}
    assert client.post(URL, form).status_code == 302
    assert client.post(URL, {**form, "phrase": "dogs"}).status_code == 302
    response = client.post(URL, {**form, "phrase": "owls"})
    assert response.status_code == 429 and len(stored("ada")) == 2
    assert client.post(f"{URL}{stored('ada')[0]['id']}/delete/").status_code == 429
    assert len(stored("ada")) == 2


def test_the_settings_pages_link_it(ada, login):
    html = login(ada).get("/settings/profile/").content.decode()
    assert f'href="{URL}"' in html


def test_the_filters_are_in_the_exports_profile_file(ada, login):
    services.keyword_filter_create(
        user=ada, phrase="cats", contexts=["public"], action="hide", expires_in=None
    )
    services.keyword_filter_create(
        user=ada, phrase="dogs", contexts=["home"], action="warn", expires_in=timedelta(days=1)
    )
    client = login(ada)
    assert client.post("/settings/export/").status_code == 302  # built by the task at once
    files = exported(client)
    [profile] = files["profile.json"]
    cats, dogs = profile["filters"]
    assert cats == {"phrase": "cats", "contexts": ["public"], "action": "hide", "expires": None}
    assert dogs["phrase"] == "dogs" and dogs["expires"].startswith(str(clock.now().year))


def test_a_phrase_filtered_already_is_refused_with_a_clear_error(ada, login):
    client = login(ada)
    form = {"phrase": "Cats", "context": "home", "action": "warn", "expires": "never"}
    assert client.post(URL, form).status_code == 302
    again = client.post(URL, {**form, "phrase": "cats  "})
    assert again.status_code == 200 and "You filter “cats” there already" in again.content.decode()
    assert [f["phrase"] for f in stored("ada")] == ["Cats"]
    # The same phrase somewhere else is a filter of its own.
    assert client.post(URL, {**form, "context": "thread", "action": "hide"}).status_code == 302
    assert [f["phrase"] for f in stored("ada")] == ["Cats", "Cats"]
