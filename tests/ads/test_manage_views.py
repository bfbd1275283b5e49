"""The campaign management pages through the test client (docs/ads-api.md,
issue 11 item 9): roles, forms that change nothing on bad input, units,
activation, the report with its chart and CSV, and what a page costs."""

import csv
import io
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from ads import services
from ads.documents import AdStats, AdZone, Campaign, stats_row_id
from profiles.documents import User
from tests.conftest import PASSWORD

ADMIN, ADV, RIVAL, PLAIN, MOD = "ada", "adv", "rival", "pat", "mod"


@pytest.fixture
def people(make_user):
    return {
        ADMIN: make_user(ADMIN, role="admin"),
        ADV: make_user(ADV, role="advertiser"),
        RIVAL: make_user(RIVAL, role="advertiser"),
        PLAIN: make_user(PLAIN),
        MOD: make_user(MOD, role="moderator"),
    }


@pytest.fixture
def clients(people, login):
    found = {handle: login(user) for handle, user in people.items()}
    found["anon"] = Client()
    return found


def make_campaign(owner=ADV, advertiser="acme", name="Summer sale", units=1, **fields):
    fields = {"ecpm": Decimal("2.50"), "keywords": ["car", "luxury"], **fields}
    campaign = services.campaign_create(owner=owner, advertiser=advertiser, name=name, **fields)
    for n in range(units):
        services.unit_add(
            campaign_id=campaign.id,
            ad_unit_id=f"unit{n}",
            site="socialsite",
            zone="feed",
            title=f"Buy {n}",
            text="Great cars",
            url=f"https://example.org/{n}",
        )
    return Campaign.objects.get(id=campaign.id)


def stored() -> list[dict]:
    """Every campaign document, to show a refused form changed nothing."""
    return list(Campaign._get_collection().find({}).sort("_id", 1))


def url(campaign, tail=""):
    return f"/ads/manage/campaigns/{campaign.id}/{tail}"


def every_route(campaign):
    """(method, path, form) for every management route."""
    return [
        ("get", "/ads/manage/", {}),
        ("get", "/ads/manage/campaigns/new/", {}),
        ("post", "/ads/manage/campaigns/", VALID),
        ("get", url(campaign), {}),
        ("get", url(campaign) + "?format=csv", {}),
        ("post", url(campaign), VALID),
        ("post", url(campaign, "units/"), UNIT),
        ("post", url(campaign, "units/unit0/delete/"), {}),
        ("post", url(campaign, "activate/"), {}),
        ("post", url(campaign, "deactivate/"), {}),
    ]


VALID = {
    "advertiser": ADV,  # an advertiser creates under their own name
    "name": "Winter boots",
    "ecpm": "3.20",
    "keywords": "boots, winter  snow",
    "cap_count": "3",
    "cap_hours": "24",
    "budget": "100",
    "ends": "2999-01-31T12:00",
}
UNIT = {
    "ad_unit_id": "boots1",
    "site": "socialsite",
    "zone": "search",
    "title": "Warm boots",
    "text": "For the snow",
    "url": "https://example.org/boots",
    "image": "",
}


# --- roles -------------------------------------------------------------------


@pytest.mark.parametrize("who", ["anon", PLAIN, MOD])
def test_everyone_but_admins_and_advertisers_gets_404_everywhere(clients, who):
    campaign = make_campaign()
    before = stored()
    for method, path, form in every_route(campaign):
        response = getattr(clients[who], method)(path, form)
        assert response.status_code == 404, (who, method, path, response.status_code)
    assert stored() == before


def test_an_advertiser_manages_only_their_own_campaigns(clients):
    mine = make_campaign(owner=ADV, advertiser="acme", name="Mine")
    theirs = make_campaign(owner=RIVAL, advertiser="rivalco", name="Theirs")
    page = clients[ADV].get("/ads/manage/").content.decode()
    assert f'data-campaign="{mine.id}"' in page and theirs.id not in page
    before = stored()
    for method, path, form in every_route(theirs)[3:]:
        response = getattr(clients[ADV], method)(path, form)
        assert response.status_code == 404, (method, path)
    assert stored() == before
    assert clients[ADV].get(url(mine)).status_code == 200


def test_an_admin_manages_every_campaign(clients):
    first = make_campaign(owner=ADV, advertiser="acme", name="One")
    second = make_campaign(owner=RIVAL, advertiser="rivalco", name="Two")
    page = clients[ADMIN].get("/ads/manage/").content.decode()
    assert f'data-campaign="{first.id}"' in page and f'data-campaign="{second.id}"' in page
    assert clients[ADMIN].get(url(second)).status_code == 200
    response = clients[ADMIN].post(url(second, "deactivate/"))
    assert response.status_code == 302


@pytest.mark.parametrize(
    "campaign_id",
    [
        "acme:nope",
        "nope",
        "acme:summer-sale:x",
        "$ne",
        "acme:$where",
        "ACME:summer-sale",
        "a" * 41 + ":x",
        "acme:%E2%80%AEsale",
        "acme:summer-sale%00",
    ],
)
def test_unknown_or_malformed_campaign_ids_are_404(clients, campaign_id):
    make_campaign()
    for tail in ("", "?format=csv"):
        assert clients[ADMIN].get(f"/ads/manage/campaigns/{campaign_id}/{tail}").status_code == 404
    for tail in ("", "units/", "units/unit0/delete/", "activate/", "deactivate/"):
        response = clients[ADMIN].post(f"/ads/manage/campaigns/{campaign_id}/{tail}", VALID)
        assert response.status_code == 404, tail


def test_post_only_routes_send_a_get_to_their_page(clients):
    campaign = make_campaign()
    for path in [
        "/ads/manage/campaigns/",
        *[url(campaign, t) for t in ("units/", "units/unit0/delete/", "activate/", "deactivate/")],
    ]:
        response = clients[ADMIN].get(path)  # a GET never acts
        assert response.status_code == 302 and response["Location"].startswith("/ads/"), path


def test_every_post_needs_the_csrf_token(people):
    campaign = make_campaign()
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    signed_in = client.post(
        "/accounts/login/",
        {"username": ADMIN, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert signed_in.status_code == 302
    before = stored()
    for method, path, form in every_route(campaign):
        if method == "post":
            assert client.post(path, form).status_code == 403, path
    assert stored() == before


def test_advertiser_role_is_set_by_set_role_and_on_the_moderation_user_page(clients, make_user):
    make_user("newbie")
    out = StringIO()
    call_command("set_role", "newbie", "advertiser", stdout=out)
    assert "@newbie is now advertiser." in out.getvalue()
    assert User.objects.get(handle="newbie").role == "advertiser"
    response = clients[ADMIN].post(f"/mod/users/{PLAIN}/role/", {"role": "advertiser"})
    assert response.status_code == 302
    assert User.objects.get(handle=PLAIN).role == "advertiser"
    # The new advertiser reaches the pages at once, and sees the Ads link.
    page = clients[PLAIN].get("/ads/manage/")
    assert page.status_code == 200
    assert 'href="/ads/manage/"' in clients[PLAIN].get("/circles/").content.decode()


def test_the_ads_link_is_for_admins_and_advertisers_only(clients):
    for who, shown in ((ADMIN, True), (ADV, True), (PLAIN, False), (MOD, False)):
        page = clients[who].get("/circles/").content.decode()
        assert ('href="/ads/manage/"' in page) is shown, who


# --- creating and editing ----------------------------------------------------


def test_creating_a_campaign_redirects_to_its_page(clients):
    response = clients[ADV].post("/ads/manage/campaigns/", VALID)
    [campaign] = Campaign.objects
    assert response.status_code == 302
    assert response["Location"] == f"/ads/manage/campaigns/{campaign.id}/"
    assert campaign.id.startswith("adv:")
    assert (campaign.owner, campaign.name, campaign.ecpm) == (ADV, "Winter boots", Decimal("3.20"))
    assert campaign.keywords == ["boots", "winter", "snow"]
    assert (campaign.cap_count, campaign.cap_hours, campaign.budget) == (3, 24, Decimal("100"))
    assert campaign.ends.year == 2999 and campaign.status == "inactive"
    page = clients[ADV].get(response["Location"]).content.decode()
    assert "Winter boots" in page and 'data-status="inactive"' in page


def test_the_new_campaign_form_has_labelled_fields(clients):
    page = clients[ADV].get("/ads/manage/campaigns/new/").content.decode()
    for name in (
        "advertiser",
        "name",
        "ecpm",
        "keywords",
        "cap_count",
        "cap_hours",
        "budget",
        "ends",
    ):
        assert f'<label for="id_{name}">' in page, name
        assert f'name="{name}"' in page
    assert 'action="/ads/manage/campaigns/"' in page


BAD_CAMPAIGNS = [
    ("ecpm", "-1"),
    ("ecpm", "-0.01"),
    ("ecpm", "١٢"),
    ("ecpm", "２"),
    ("ecpm", "1e3"),
    ("ecpm", "NaN"),
    ("ecpm", "9" * 40),
    ("ecpm", "2.505"),
    ("ecpm", ""),
    ("budget", "-5"),
    ("budget", "9" * 30),
    ("cap_count", "٣"),
    ("cap_count", "9" * 30),
    ("cap_count", "-1"),
    ("cap_hours", "0"),
    ("ends", "2030-02-30"),
    ("ends", "2000-01-01"),
    ("ends", "tomorrow"),
    ("ends", "٢٠٣٠-٠١-٠١"),
    ("ends", "99999-01-01"),
    ("advertiser", "Acme Inc"),
    ("advertiser", "$where"),
    ("name", ""),
    ("name", "\u202esale"),
    ("keywords", "ok, $where"),
    ("keywords", " ".join(f"k{n}" for n in range(30))),
]


@pytest.mark.parametrize(("field", "value"), BAD_CAMPAIGNS)
def test_bad_campaign_input_re_renders_with_errors_and_changes_nothing(clients, field, value):
    existing = make_campaign()
    before = stored()
    response = clients[ADV].post("/ads/manage/campaigns/", {**VALID, field: value})
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()
    assert stored() == before
    # The same value on the edit form of an existing campaign.
    if field != "advertiser":
        response = clients[ADV].post(url(existing), {**VALID, field: value})
        assert response.status_code == 400, response.status_code
        assert 'class="errorlist' in response.content.decode()
        assert stored() == before


def test_editing_a_campaign_saves_it_and_updates_its_zones(clients):
    campaign = make_campaign()
    clients[ADV].post(url(campaign, "activate/"))
    form = {**VALID, "name": "Summer sale 2", "ecpm": "4.00", "keywords": "car performance"}
    response = clients[ADV].post(url(campaign), form)
    assert response.status_code == 302 and response["Location"] == url(campaign)
    campaign.reload()
    assert (campaign.name, campaign.ecpm, campaign.keywords) == (
        "Summer sale 2",
        Decimal("4.00"),
        ["car", "performance"],
    )
    [zone] = AdZone.objects(site_id="socialsite", zone_id="feed")
    assert [(a.ecpm, a.keywords) for a in zone.ads] == [(4.0, ["car", "performance"])]


def test_the_edit_form_shows_the_stored_values(clients):
    campaign = make_campaign(budget=Decimal("12.50"), cap_count=2, cap_hours=6)
    page = clients[ADV].get(url(campaign)).content.decode()
    assert 'value="2.50"' in page and 'value="car, luxury"' in page
    assert 'value="12.50"' in page and 'value="Summer sale"' in page


# --- units, activation -------------------------------------------------------


def test_adding_and_removing_a_unit(clients):
    campaign = make_campaign(units=0)
    response = clients[ADV].post(url(campaign, "units/"), UNIT)
    assert response.status_code == 302
    [unit] = Campaign.objects.get(id=campaign.id).units
    assert (unit.ad_unit_id, unit.zone, unit.url) == ("boots1", "search", UNIT["url"])
    page = clients[ADV].get(url(campaign)).content.decode()
    assert 'data-ad-unit="boots1"' in page
    assert f'action="{url(campaign, "units/boots1/delete/")}"' in page
    response = clients[ADV].post(url(campaign, "units/boots1/delete/"))
    assert response.status_code == 302
    assert Campaign.objects.get(id=campaign.id).units == []
    assert clients[ADV].post(url(campaign, "units/boots1/delete/")).status_code == 404
    assert clients[ADV].post(url(campaign, "units/$ne/delete/")).status_code == 404


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("url", "javascript:alert(1)"),
        ("url", "ftp://example.org/file"),
        ("url", "example.org"),
        ("url", "data:text/html,hi"),
        ("url", "//example.org/x"),
        ("url", "http://[::1"),
        ("url", "https://"),
        ("url", ""),
        ("image", "javascript:alert(1)"),
        ("ad_unit_id", "Bad Id"),
        ("zone", "$where"),
        ("title", ""),
        ("title", "x" * 81),
    ],
)
def test_a_bad_unit_re_renders_with_errors_and_changes_nothing(clients, field, value):
    campaign = make_campaign()
    before = stored()
    response = clients[ADV].post(url(campaign, "units/"), {**UNIT, field: value})
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()
    assert stored() == before


@pytest.mark.parametrize(
    ("link", "says"),
    [
        ("https://bank.example:secret@evil.example/", "user name or password"),
        ("https://user@example.org/", "user name or password"),
        # "apple.com" with a Cyrillic a: refused; its punycode form is fine.
        ("https://\u0430pple.com/", "punycode"),
        ("https://b\u00fccher.example/", "punycode"),
    ],
)
def test_unit_links_refuse_userinfo_and_non_ascii_hosts(clients, link, says):
    campaign = make_campaign()
    before = stored()
    for field in ("url", "image"):
        response = clients[ADV].post(url(campaign, "units/"), {**UNIT, field: link})
        assert response.status_code == 400
        page = response.content.decode()
        assert 'class="errorlist' in page and says in page
        assert stored() == before
    response = clients[ADV].post(
        url(campaign, "units/"), {**UNIT, "url": "https://xn--pple-43d.com/"}
    )
    assert response.status_code == 302
    [*_, added] = Campaign.objects.get(id=campaign.id).units
    assert added.url == "https://xn--pple-43d.com/"


def test_an_advertiser_creates_campaigns_only_under_their_own_name(clients):
    """`advertiser=rivalco` posted by @adv: refused with a clear error, nothing
    stored, so no campaign is served under another advertiser's id."""
    before = stored()
    form = clients[ADV].get("/ads/manage/campaigns/new/").content.decode()
    assert re.search(rf'name="advertiser" value="{ADV}"[^>]*readonly', form)
    response = clients[ADV].post("/ads/manage/campaigns/", {**VALID, "advertiser": "rivalco"})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'class="errorlist' in page and "only under your own name" in page
    assert stored() == before
    # Admins may create for any advertiser.
    response = clients[ADMIN].post("/ads/manage/campaigns/", {**VALID, "advertiser": "rivalco"})
    assert response.status_code == 302
    assert Campaign.objects.get(advertiser="rivalco").owner == ADMIN


def test_a_full_zone_refuses_activation_on_the_page_and_nothing_turns_active(clients, settings):
    first = make_campaign(name="First")
    assert clients[ADV].post(url(first, "activate/")).status_code == 302
    settings.AD_ZONE_MAX_BYTES = AdZone._get_collection().find_one({})["bytes"] + 10
    second = make_campaign(name="Second")
    response = clients[ADV].post(url(second, "activate/"), follow=True)
    assert response.status_code == 200
    assert "no room" in response.content.decode()
    assert Campaign.objects.get(id=second.id).status == "inactive"
    assert [a.campaign_id for a in AdZone.objects.get(zone_id="feed").ads] == [first.id]


def test_a_duplicate_unit_id_is_a_form_error(clients):
    campaign = make_campaign()
    before = stored()
    response = clients[ADV].post(url(campaign, "units/"), {**UNIT, "ad_unit_id": "unit0"})
    assert response.status_code == 400 and "errorlist" in response.content.decode()
    assert stored() == before


def test_activating_and_deactivating(clients):
    campaign = make_campaign()
    response = clients[ADV].post(url(campaign, "activate/"))
    assert response.status_code == 302
    assert Campaign.objects.get(id=campaign.id).status == "active"
    assert (
        AdZone.objects.get(site_id="socialsite", zone_id="feed").ads[0].campaign_id == campaign.id
    )
    page = clients[ADV].get(url(campaign)).content.decode()
    assert 'data-status="active"' in page and url(campaign, "deactivate/") in page
    clients[ADV].post(url(campaign, "deactivate/"))
    assert Campaign.objects.get(id=campaign.id).status == "inactive"
    assert AdZone.objects.get(site_id="socialsite", zone_id="feed").ads == []


def test_activating_without_units_says_why_and_stays_inactive(clients):
    campaign = make_campaign(units=0)
    response = clients[ADV].post(url(campaign, "activate/"), follow=True)
    assert "Add an ad unit" in response.content.decode()
    assert Campaign.objects.get(id=campaign.id).status == "inactive"


# --- the list ----------------------------------------------------------------


def test_the_list_pages_on_with_keyset_cursors(clients, monkeypatch):
    from ads import selectors

    monkeypatch.setattr(selectors, "PAGE", 2)
    made = [make_campaign(name=f"Campaign {n}", units=0).id for n in range(5)]
    seen, path = [], "/ads/manage/"
    for _ in range(5):
        page = clients[ADV].get(path).content.decode()
        seen += re.findall(r'<tr class="ad-campaign" data-campaign="([^"]+)"', page)
        more = re.search(r'rel="next"[^>]*href="([^"]+)"', page)
        if not more:
            break
        path = more.group(1).replace("&amp;", "&")
    assert seen == list(reversed(made))
    assert clients[ADV].get("/ads/manage/?before=garbage_$ne").status_code == 200


# --- the report --------------------------------------------------------------


def seed_stats(campaign, rows):
    """rows: (day, unit, impressions, views, clicks), written as the recorder would."""
    AdStats._get_collection().insert_many(
        [
            {
                "_id": stats_row_id(campaign.id, unit, day),
                "campaign_id": campaign.id,
                "ad_unit_id": unit,
                "day": day,
                "impressions": impressions,
                "views": views,
                "clicks": clicks,
            }
            for day, unit, impressions, views, clicks in rows
        ]
    )


ROWS = [
    ("2026-11-01", "unit0", 1000, 800, 12),
    ("2026-11-01", "unit1", 7, 5, 0),
    ("2026-11-02", "unit0", 2500, 2000, 40),
    ("2026-11-03", "unit1", 333, 300, 1),
]


def day_rows(page: str) -> dict:
    found = re.findall(
        r'<tr class="ad-day" data-day="([^"]+)" data-impressions="(\d+)" data-views="\d+" '
        r'data-clicks="(\d+)" data-spend="([^"]+)">',
        page,
    )
    return {day: (int(i), int(c), Decimal(s)) for day, i, c, s in found}


def test_the_report_shows_each_day_ctr_spend_totals_and_a_chart(clients):
    campaign = make_campaign(units=2)
    seed_stats(campaign, ROWS)
    page = clients[ADV].get(url(campaign)).content.decode()
    # 2.50 per 1,000: 1007 -> 2.5175 -> 2.52; 2500 -> 6.25; 333 -> 0.8325 -> 0.83.
    assert day_rows(page) == {
        "2026-11-01": (1007, 12, Decimal("2.52")),
        "2026-11-02": (2500, 40, Decimal("6.25")),
        "2026-11-03": (333, 1, Decimal("0.83")),
    }
    assert '<strong data-total="impressions">3840</strong>' in page
    assert '<strong data-total="clicks">53</strong>' in page
    assert '<strong data-total="views">3105</strong>' in page
    assert '<strong data-total="spend">9.60</strong>' in page
    assert '<strong data-total="ctr">1.38%</strong>' in page  # 53 / 3840
    assert "1.19%" in page  # 12 / 1007 on the first day
    svg = re.search(r'<svg[^>]*class="ad-chart"[^>]*>.*?</svg>', page, re.S).group(0)
    assert 'role="img"' in svg and "<title" in svg and svg.count('class="ad-chart__bar"') == 3
    assert '<th scope="col">Day</th>' in page
    assert '<aside class="ad"' not in page  # no ads on management pages


def test_the_csv_matches_the_page(clients):
    campaign = make_campaign(units=2)
    seed_stats(campaign, ROWS)
    page = clients[ADV].get(url(campaign)).content.decode()
    response = clients[ADV].get(url(campaign) + "?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert (
        response["Content-Disposition"] == 'attachment; filename="campaign-acme-summer-sale.csv"'
    )
    table = list(csv.reader(io.StringIO(response.content.decode())))
    assert table[0] == ["day", "ad_unit_id", "impressions", "clicks", "spend"]
    rows = table[1:]
    assert [(r[0], r[1], int(r[2]), int(r[3])) for r in rows] == [
        (day, unit, impressions, clicks) for day, unit, impressions, _views, clicks in ROWS
    ]
    # Row for row, the page's breakdown and the CSV say the same.
    shown = re.findall(
        r'<tr class="ad-row" data-day="([^"]+)" data-ad-unit="([^"]+)" '
        r'data-impressions="(\d+)" data-clicks="(\d+)" data-spend="([^"]+)">',
        page,
    )
    assert [tuple(r) for r in rows] == shown
    # And per day, the CSV's rows add up to the page's day rows.
    days = day_rows(page)
    for day, (impressions, clicks, _spend) in days.items():
        mine = [r for r in rows if r[0] == day]
        assert sum(int(r[2]) for r in mine) == impressions
        assert sum(int(r[3]) for r in mine) == clicks
    assert {r[0] for r in rows} == set(days)


def test_csv_text_cells_cannot_become_formulas(clients):
    campaign = make_campaign()
    seed_stats(
        campaign,
        [
            ("2026-11-01", '=HYPERLINK("http://x")', 5, 5, 1),
            ("2026-11-01", "@SUM(A1)", 1, 1, 0),
            ("2026-11-01", "-2+3", 1, 1, 0),
        ],
    )
    response = clients[ADV].get(url(campaign) + "?format=csv")
    cells = [row[1] for row in csv.reader(io.StringIO(response.content.decode()))][1:]
    assert sorted(cells) == sorted(['\'=HYPERLINK("http://x")', "'@SUM(A1)", "'-2+3"])


def test_a_campaign_without_stats_says_so(clients):
    campaign = make_campaign()
    page = clients[ADV].get(url(campaign)).content.decode()
    assert "No impressions yet" in page and "ad-chart" not in page
    response = clients[ADV].get(url(campaign) + "?format=csv")
    assert response.content.decode().strip() == "day,ad_unit_id,impressions,clicks,spend"


def test_the_campaign_page_costs_a_fixed_number_of_round_trips(clients, round_trips):
    campaign = make_campaign(units=2)
    days = [f"2026-10-{d:02d}" for d in range(1, 31)]
    seed_stats(campaign, [(day, f"unit{u}", 100, 90, 2) for day in days for u in range(2)])
    client = clients[ADV]
    with round_trips() as base:  # a page of the same shell with no reads of its own
        client.get("/ads/manage/campaigns/new/")
    with round_trips() as trips:
        response = client.get(url(campaign))
    assert response.status_code == 200 and len(day_rows(response.content.decode())) == 30
    # Past the session and the user: the campaign, and one read of ad_stats.
    assert trips.total - base.total == 2, (base.commands, trips.commands)
    with round_trips() as trips:
        client.get(url(campaign) + "?format=csv")
    assert trips.total - base.total == 2, (base.commands, trips.commands)
