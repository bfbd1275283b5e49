"""Sign-in on MongoDB users, without Django's ORM-backed auth app.

Django's password hashers and validators are used as they are; the session
holds the handle plus an HMAC of the password hash (as Django's own
`get_session_auth_hash` does), so changing a password invalidates every other
session even before they are deleted.
"""

import functools
from typing import Literal

from django.contrib.auth.hashers import check_password, make_password
from django.contrib.sessions.backends.base import SessionBase
from django.http import HttpRequest
from django.middleware.csrf import rotate_token
from django.utils.crypto import constant_time_compare, salted_hmac

from profiles import clients, tokens
from profiles.documents import User
from socialsite.ids import parse_handle
from socialsite.sessions import CLIENT_KEY, USER_KEY

HASH_KEY = "_auth_user_hash"


@functools.cache
def _dummy_hash() -> str:
    """Checked against when the handle is unknown, so a wrong password and an
    unknown handle cost the same time and give the same answer. Made at the
    first unknown handle rather than at import: a hash costs ~0.5 s of CPU,
    which every process (each `manage.py` command, each worker) would pay
    at start-up, most never using it (the first unknown handle of a process
    costs one hash more)."""
    return make_password("socialsite-timing-equaliser")


class AnonymousVisitor:
    is_authenticated: Literal[False] = False
    is_anonymous: Literal[True] = True
    is_active = False
    is_moderator = False
    is_admin = False
    handle = None
    username = ""
    name = ""
    role = None

    def __str__(self) -> str:
        return "anonymous"


def session_auth_hash(user: User) -> str:
    return salted_hmac("socialsite.profiles.auth", user.password, algorithm="sha256").hexdigest()


def authenticate(handle_value: object, password: str) -> User | None:
    """The active user with this handle and password, or None."""
    user, _ = credentials(handle_value, password)
    return user


def credentials(handle_value: object, password: str) -> tuple[User | None, User | None]:
    """(the active user, None) for a right handle and password; (None, the
    user) when the password is right but the account is suspended (only the
    one who knows the password learns that); (None, None) otherwise."""
    handle = parse_handle(handle_value)
    user = User.objects(handle=handle).first() if handle else None
    if user is None:
        check_password(password, _dummy_hash())
        return None, None
    if not check_password(password, user.password):
        return None, None
    if not user.is_active:
        return None, (user if user.status == "suspended" else None)
    return user, None


def login(request: HttpRequest, user: User) -> None:
    """Start a fresh session for `user` (new key: no session fixation)."""
    request.session.cycle_key()
    request.session[USER_KEY] = user.handle
    request.session[HASH_KEY] = session_auth_hash(user)
    request.session[CLIENT_KEY] = clients.client_of(request)
    rotate_token(request)
    request.user = user


# Between the password and the code of a two-factor login: a signed cookie
# naming the account, not a session (docs/accounts.md#two-factor-login).
SECOND_STEP_COOKIE = "login_2fa"
SECOND_STEP_SECONDS = 300


def second_step_token(user: User, next_url: str) -> str:
    """What the password step hands the code step: who, with a fingerprint of
    their password (a change in between ends it), and where to go after."""
    payload = {"h": user.handle, "a": session_auth_hash(user), "n": next_url}
    return tokens.make(tokens.LOGIN_SECOND_STEP, payload)


def second_step(token: object) -> tuple[User, str] | None:
    """(the account, where to go after) if the token is a password step of
    the last SECOND_STEP_SECONDS for an active account with two-factor
    login and the same password; else None."""
    payload = tokens.read(tokens.LOGIN_SECOND_STEP, token, SECOND_STEP_SECONDS)
    if payload is None or not isinstance(payload.get("h"), str):
        return None
    user = User.objects(handle=payload["h"]).first()
    if user is None or not user.is_active or not user.has_2fa:
        return None
    if not constant_time_compare(str(payload.get("a", "")), session_auth_hash(user)):
        return None
    next_url = payload.get("n")
    return user, next_url if isinstance(next_url, str) else "/feed/"


def logout(request: HttpRequest) -> None:
    request.session.flush()
    request.user = AnonymousVisitor()


def _stored_user(session: SessionBase, handle: str) -> User | None:
    """The user the session's load read with it (no query), else one point read."""
    read_user = getattr(session, "read_user", None)
    if read_user is not None and read_user(handle):
        doc = session.user_document(handle)
        return None if doc is None else User._from_son(doc)
    return User.objects(handle=handle).first()


def get_user(request: HttpRequest) -> User | AnonymousVisitor:
    """The signed-in, active user of this request's session, or an anonymous visitor.

    The user's document comes with the session's own read (socialsite/sessions.py),
    so it is as fresh as the session: a suspension or a password change made
    before this request ends this session now."""
    handle = parse_handle(request.session.get(USER_KEY))
    if handle is None:
        return AnonymousVisitor()
    user = _stored_user(request.session, handle)
    if user is None or not (
        user.is_active
        and constant_time_compare(request.session.get(HASH_KEY, ""), session_auth_hash(user))
    ):
        # Suspended, deleted, or the password changed: this session is over.
        request.session.flush()
        return AnonymousVisitor()
    return user


def page_user(request: HttpRequest, handle: str) -> User | None:
    """The active user `handle` for a page about them (a wall), read with the
    session when it is not loaded yet: the viewer's own page costs no read,
    someone else's rides along in the session's one round trip. None if there
    is no such active user. Without a session (an anonymous visitor) it is
    one point read."""
    asked = getattr(request.session, "also_read_users", None)
    if asked is not None:
        asked([handle])
    viewer = request.user
    if viewer.is_authenticated and viewer.handle == handle:
        return viewer
    user = _stored_user(request.session, handle)
    return user if user is not None and user.is_active else None


def page_edges(request: HttpRequest, handle: str) -> list[dict] | None:
    """The follow edges between the viewer and `handle` if the session's read
    brought them along with `page_user(request, handle)`; else None."""
    edges_with = getattr(request.session, "edges_with", None)
    return edges_with(handle) if edges_with is not None else None
