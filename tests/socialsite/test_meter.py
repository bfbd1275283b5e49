"""The round-trip meter (docs/developer-lens.md, issues 13 and 14): every response
carries `Server-Timing` from the counter the request log reads, and staff
(moderators, admins) see the same figures, command by command, in the footer."""

import re
from html import unescape

import pytest

HEADER = re.compile(
    r'^db;desc="(?P<trips>\d+) round trips, (?P<docs>\d+) docs";dur=(?P<db>\d+\.\d), '
    r"app;dur=(?P<app>\d+\.\d)"
)
METER = re.compile(r'<details class="db-meter" data-round-trips="(\d+)"[^>]*>.*?</details>', re.S)


def timing(response) -> dict:
    match = HEADER.match(response["Server-Timing"])
    assert match, response["Server-Timing"]
    return {key: float(value) for key, value in match.groupdict().items()}


def meter(response) -> tuple[int, str] | None:
    """The footer meter's round trips and HTML, or None when the page has none."""
    content = response.content.decode()
    start = content.rindex('<footer class="footer"')  # the page's, not a post card's
    footer = content[start : content.index("</footer>", start)]
    match = METER.search(footer)
    return (int(match.group(1)), match.group(0)) if match else None


@pytest.mark.parametrize("path", ["/", "/u/alice/", "/feed/"])
def test_anonymous_responses_carry_the_meter_header(client, make_user, round_trips, path):
    make_user("alice")
    with round_trips() as counted:
        response = client.get(path)
    assert response.status_code in (200, 302)
    figures = timing(response)
    assert figures["trips"] == counted.total
    assert figures["docs"] == counted.docs
    assert figures["db"] >= 0 and figures["app"] >= 0


@pytest.mark.parametrize("path", ["/no/such/page/", "/u/nobody-here/", "/posts/x/"])
def test_a_refusal_carries_no_figures(client, make_user, login, path):
    """A 404 looks the same whatever was looked up before it (docs/privacy.md)."""
    for visitor in (client, login(make_user("zelda", role="admin"))):
        response = visitor.get(path)
        assert response.status_code == 404
        assert response["Server-Timing"] == 'db;desc="not measured on a refusal"'
        assert b"db-meter" not in response.content


@pytest.mark.parametrize("path", ["/feed/", "/u/alice/"])
def test_signed_in_responses_count_the_same_round_trips(make_user, login, round_trips, path):
    alice = make_user("alice")
    client = login(alice)
    client.post("/posts/", {"text": "hello meter"})
    with round_trips() as counted:
        response = client.get(path)
    figures = timing(response)
    assert figures["trips"] == counted.total > 0
    assert figures["docs"] == counted.docs


def test_a_post_and_its_redirect_carry_it_too(make_user, login, round_trips):
    client = login(make_user("alice"))
    with round_trips() as counted:
        response = client.post("/posts/", {"text": "counted"})
    assert response.status_code == 302
    assert timing(response)["trips"] == counted.total > 0


@pytest.mark.parametrize("role", ["user", "moderator", "admin"])
def test_only_staff_see_the_footer_meter(make_user, login, round_trips, role):
    zelda = make_user("zelda", role=role)
    client = login(zelda)
    with round_trips() as counted:
        response = client.get("/feed/")
    assert response.status_code == 200
    shown = meter(response)
    if role == "user":
        assert shown is None and b"db-meter" not in response.content
        return
    trips, html = shown
    assert trips == timing(response)["trips"] == counted.total
    assert html.count("<tr>") == 1 + counted.total  # the header row, one per command
    for command in counted.details:
        assert f"<td>{command.name}</td>" in html
    assert "zelda" not in html  # filter shapes, never the values
    assert int(response["Content-Length"]) == len(response.content)


def test_anonymous_visitors_never_see_it(client, make_user):
    make_user("alice")
    for path in ("/", "/u/alice/", "/accounts/login/", "/no/such/page/"):
        response = client.get(path)
        assert b"db-meter" not in response.content, path


def test_the_meter_lists_collection_operation_shape_docs_and_ms(make_user, login):
    admin = make_user("zelda", role="admin")
    client = login(admin)
    client.post("/posts/", {"text": "one"})
    _, html = meter(client.get("/u/zelda/"))
    headers = re.findall(r'<th scope="col"[^>]*>([^<]+)</th>', html)
    assert headers == ["Collection", "Operation", "Filter shape", "Docs", "ms"]
    assert '"?"' in unescape(html)  # filter shapes, their values hidden
    summary = re.search(r"<summary>(.*?)</summary>", html, re.S).group(1)
    assert re.search(r"\d+ round trips?, \d+ docs?, \d+\.\d ms", summary), summary


def test_the_meter_is_not_on_pages_that_are_not_html(make_user, login):
    client = login(make_user("zelda", role="admin"))
    response = client.get("/healthz")
    assert "Server-Timing" in response
    assert b"db-meter" not in response.content
