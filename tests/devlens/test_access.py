"""/dev/ and /dev/compare/ are for admins: everyone else gets the site's 404
(docs/developer-lens.md), and a hostile `path` is a 400."""

import pytest

from devlens.compare import BadPath, parse_target

PAGES = ["/dev/", "/dev/compare/?path=/feed/"]


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_visitors_get_404(client, url):
    assert client.get(url).status_code == 404
    assert client.post("/dev/", {"timeline_model": "read"}).status_code in (403, 404)


@pytest.mark.parametrize("role", ["user", "moderator", "advertiser"])
@pytest.mark.parametrize("url", PAGES)
def test_non_admins_get_404(make_user, login, role, url):
    client = login(make_user("someone", role=role))
    assert client.get(url).status_code == 404
    response = client.post("/dev/", {"timeline_model": "read", "comment_store": "documents"})
    assert response.status_code == 404
    assert "dev_models" not in client.session


@pytest.mark.parametrize("url", PAGES)
def test_admins_see_the_pages(make_user, login, url):
    client = login(make_user("root", role="admin"))
    response = client.get(url)
    assert response.status_code == 200
    assert b"<h1>" in response.content


HOSTILE = [
    "https://evil.example/feed/",
    "http:/feed/",
    "javascript:alert(1)",
    "//evil.example/feed/",
    "///feed/",
    "/\\evil.example/",
    "\\\\evil.example\\feed\\",
    "/feed/\\",
    "/feed/../dev/",
    "/..",
    "/u/alice/../../etc/passwd",
    "/%2e%2e/feed/",
    "/feed/%2E%2E/",
    "/feed/%2e/",
    "/%2f%2fevil.example/",
    "/feed/%5c",
    "/feed/\x00",
    "/feed/%00",
    "/feed/ x",
    "/feed/\n",
    "feed/",
    "",
    "/dev/",
    "/dev/compare/",
    "/dev",
    "/%64ev/",
    "/feed/#frag",
    "/nowhere/",
    "/accounts/logout/",
    "/search/",
    "/healthz",
    "/posts/",
    "/x" * 1500,
]


@pytest.mark.parametrize("path", HOSTILE)
def test_a_hostile_or_unknown_path_is_refused(path):
    with pytest.raises(BadPath):
        parse_target(path)


@pytest.mark.parametrize("path", HOSTILE)
def test_the_compare_page_answers_400_to_a_hostile_path(make_user, login, path):
    """An unknown path, or one that is no page the models change, is a 400
    as well (not a 404): the compare page exists, its input is bad."""
    client = login(make_user("root", role="admin"))
    response = client.get("/dev/compare/", {"path": path})
    assert response.status_code == 400
    assert b'class="errorlist"' in response.content
    assert b'class="model-row"' not in response.content


def test_no_path_at_all_is_a_400(make_user, login):
    client = login(make_user("root", role="admin"))
    assert client.get("/dev/compare/").status_code == 400


@pytest.mark.parametrize(
    ("path", "view"),
    [
        ("/feed/", "timelines:feed"),
        ("/incoming/", "timelines:incoming"),
        ("/u/alice/", "profiles:profile"),
        ("/u/alice/?before=1_0123456789abcdef01234567", "profiles:profile"),
        ("/posts/0123456789abcdef01234567/", "feeds:post"),
        ("/posts/0123456789abcdef01234567/c/ab12/", "comments:permalink"),
    ],
)
def test_pages_of_the_site_are_accepted(path, view):
    target = parse_target(path)
    assert target.view_name == view
    assert target.full_path == path
