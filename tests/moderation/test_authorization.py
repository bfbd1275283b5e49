"""Who may use which moderation route: one table, built against the URLconf.

Every route in `moderation.urls` must have a row here (a new route without
one fails `test_every_route_is_in_the_table` and its own cases), and every
row says what anonymous visitors, users, moderators and admins get. A refused
request must also leave no trace: no audit entry, report, role or status change.
"""

import pytest
from django.test import Client
from django.urls import resolve

from explore import services as trends
from messaging import services as messaging
from moderation import services, urls
from moderation.documents import AuditEntry, Report
from moderation.targets import resolve_target
from profiles.documents import User
from tests.moderation.conftest import new_comment, new_post

ROLES = ("anonymous", "user", "moderator", "admin")
LOGIN = "login"  # 302 to the login page, with ?next=
DONE = "done"  # 302 back, and the action happened
GET_PAGE = {"anonymous": LOGIN, "user": 403, "moderator": 200, "admin": 200}
MOD_POST = {"anonymous": LOGIN, "user": 403, "moderator": DONE, "admin": DONE}

# name: (method, path, form data, expected per role). Paths and data are
# templates filled from the world below.
TABLE = {
    "dashboard": ("GET", "/mod/", None, GET_PAGE),
    "reports": ("GET", "/mod/reports/", None, GET_PAGE),
    "users": ("GET", "/mod/users/", None, GET_PAGE),
    "user": ("GET", "/mod/users/{eve}/", None, GET_PAGE),
    "log": ("GET", "/mod/log/", None, GET_PAGE),
    "act": ("POST", "/mod/act/", {"key": "post:{post}", "action": "dismiss"}, MOD_POST),
    "bulk": (
        "POST",
        "/mod/bulk/",
        {
            "keys": ["post:{post}", "comment:{post}/{slug}", "message:{message}"],
            "action": "dismiss",
        },
        MOD_POST,
    ),
    "suspend": ("POST", "/mod/users/{eve}/suspend/", {"reason": "spam"}, MOD_POST),
    "unsuspend": ("POST", "/mod/users/{zed}/unsuspend/", {"reason": "appeal"}, MOD_POST),
    "role": (
        "POST",
        "/mod/users/{eve}/role/",
        {"role": "moderator"},
        {"anonymous": LOGIN, "user": 403, "moderator": 403, "admin": DONE},
    ),
    "tag_hide": ("POST", "/mod/tags/spam/hide/", {"reason": "ads"}, MOD_POST),
    "tag_show": ("POST", "/mod/tags/{hidden}/show/", {"reason": "fine"}, MOD_POST),
    "report": (
        "POST",
        "/report/",
        {"target": "post:{post}", "reason": "spam", "note": "junk"},
        {"anonymous": LOGIN, "user": DONE, "moderator": DONE, "admin": DONE},
    ),
}
POST_ROUTES = [name for name, row in TABLE.items() if row[0] == "POST"]


@pytest.fixture
def world(cast, make_user):
    """A reported post, comment and direct message, an active user (eve) and
    a suspended one (zed)."""
    eve, zed = make_user("eve"), make_user("zed")
    post = new_post(cast.ada, "a reported post")
    comment = new_comment(cast.cyd, post.id, "a reported comment")
    services.report_create(
        reporter=cast.cyd, target=resolve_target(f"post:{post.id}"), reason="spam"
    )
    services.report_create(
        reporter=cast.ada,
        target=resolve_target(f"comment:{post.id}/{comment.slug}"),
        reason="harassment",
    )
    conversation = messaging.conversation_start(sender=cast.cyd, to=["ada"], text="a reported dm")
    sent = messaging.message_send(conversation_id=conversation, sender=cast.cyd, text="more")
    message = f"{conversation}/{sent['_id']}"
    services.report_create(
        reporter=cast.ada, target=resolve_target(f"message:{message}"), reason="spam"
    )
    services.user_suspend(
        moderator=cast.boss, target=resolve_target(f"user:{zed.handle}"), reason="test"
    )
    trends.tag_trend_hide(tag="hidden")  # for the show route
    return {
        "cast": cast,
        "fill": {
            "post": str(post.id),
            "slug": comment.slug,
            "message": message,
            "eve": eve.handle,
            "zed": "zed",
            "hidden": "hidden",
        },
    }


def client_for(role, cast, login, **kwargs) -> Client:
    if role == "anonymous":
        return Client(**kwargs)
    user = {"user": cast.bob, "moderator": cast.mod, "admin": cast.boss}[role]
    client = login(user)
    client.handler.enforce_csrf_checks = kwargs.get("enforce_csrf_checks", False)
    return client


def fill(value, values: dict):
    if isinstance(value, list):
        return [fill(v, values) for v in value]
    return value.format(**values)


def state() -> tuple:
    """Everything a moderation POST could change."""
    return (
        AuditEntry.objects.count(),
        sorted((r.target_type, r.target_id, r.reporter, r.status) for r in Report.objects),
        sorted((u.handle, u.role, u.status) for u in User.objects),
    )


def request(client, name, values, **extra):
    method, path, data, _ = TABLE[name]
    path = fill(path, values)
    assert resolve(path).url_name == name, (path, name)
    if method == "GET":
        return client.get(path)
    data = {k: fill(v, values) for k, v in data.items()}
    return client.post(path, {**data, **extra})


def test_every_route_is_in_the_table():
    assert {p.name for p in urls.urlpatterns} == set(TABLE)
    for row in TABLE.values():
        assert set(row[3]) == set(ROLES)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", [p.name for p in urls.urlpatterns])
def test_authorization_table(name, role, world, login):
    expected = TABLE[name][3][role]
    client = client_for(role, world["cast"], login)
    before = state()
    response = request(client, name, world["fill"])
    if expected == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    elif expected == DONE:
        assert response.status_code == 302
        assert not response["Location"].startswith("/accounts/login/")
        assert state() != before, "the action left no trace"
        if name != "report":
            assert AuditEntry.objects.count() > before[0]
    else:
        assert response.status_code == expected, response.content[:300]
    if expected != DONE:
        assert state() == before, "a refused request changed something"


@pytest.mark.parametrize("name", POST_ROUTES)
def test_moderation_posts_without_a_csrf_token_are_refused(name, world, login):
    client = client_for("admin", world["cast"], login, enforce_csrf_checks=True)
    before = state()
    response = request(client, name, world["fill"])
    assert response.status_code == 403
    assert state() == before
    # The same request with the token goes through: the 403 was the token.
    client.get("/mod/")
    token = client.cookies["csrftoken"].value
    response = request(client, name, world["fill"], csrfmiddlewaretoken=token)
    assert response.status_code == 302
    assert state() != before


@pytest.mark.parametrize("name", POST_ROUTES)
def test_moderation_posts_refuse_get(name, world, login):
    """A GET never acts: the POST routes send even an admin to their page."""
    client = client_for("admin", world["cast"], login)
    before = state()
    path = fill(TABLE[name][1], world["fill"])
    assert client.get(path).status_code == 302
    assert state() == before
