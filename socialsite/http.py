"""Small view helpers shared by every app."""

from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme


def safe_next(request, fallback: str) -> str:
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


def redirect_back(request, fallback: str):
    return redirect(safe_next(request, fallback))


def login_redirect(request):
    query = urlencode({REDIRECT_FIELD_NAME: request.get_full_path()})
    return redirect(f"{settings.LOGIN_URL}?{query}")


def login_required(view):
    """Like Django's decorator, which would pull in the ORM-backed auth views."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return login_redirect(request)
        return view(request, *args, **kwargs)

    return wrapper
