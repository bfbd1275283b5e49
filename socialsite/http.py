"""Small view helpers shared by every app."""

from collections.abc import Callable
from functools import wraps
from typing import Concatenate
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.http import HttpRequest, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme

from socialsite import drafts
from socialsite.methods import page_of


def safe_next(request: HttpRequest, fallback: str) -> str:
    """`next` from the query or form if it is a same-site path, else `fallback`."""
    target = request.POST.get(REDIRECT_FIELD_NAME) or request.GET.get(REDIRECT_FIELD_NAME) or ""
    if (
        isinstance(target, str)
        and target.startswith("/")
        and not target.startswith("//")
        and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return target
    return fallback


def redirect_back(request: HttpRequest, fallback: str) -> HttpResponseRedirect:
    return redirect(safe_next(request, fallback))


def login_redirect(request: HttpRequest) -> HttpResponseRedirect:
    """To the login page, and back afterwards. A form sent with no session
    (it ended while the person wrote) keeps its words (socialsite/drafts.py)
    and comes back to the page the form was on, never to the form's action
    (a POST-only URL)."""
    back = request.get_full_path()
    if request.method == "POST":
        drafts.keep(request)
        back = _referring_page(request) or page_of(request.path)
    query = urlencode({REDIRECT_FIELD_NAME: back})
    return redirect(f"{settings.LOGIN_URL}?{query}")


def _referring_page(request: HttpRequest) -> str | None:
    """The path of the same-site page that sent this request, if it says."""
    referer = request.headers.get("Referer") or ""
    parts = urlsplit(referer)
    if not parts.path.startswith("/") or not url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def login_required[**P](
    view: Callable[Concatenate[HttpRequest, P], HttpResponseBase],
) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
    """Like Django's decorator, which would pull in the ORM-backed auth views."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return login_redirect(request)
        return view(request, *args, **kwargs)

    return wrapper
