"""`POST /api/v1/apps` and `GET /api/v1/apps/verify_credentials`."""

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest

from api import scopes, services
from api.entities.application import application, token_application
from api.http import ApiError, api_view
from api.oauth import OOB
from api.params import Params
from socialsite import ratelimit

#: Schemes a redirect URI may not have: they would run in the browser.
REFUSED_SCHEMES = frozenset({"javascript", "data", "vbscript", "file", "blob", "about"})
MAX_REDIRECT_URIS = 10


def redirect_uris(value: str | None) -> list[str]:
    """The app's redirect URIs (newline separated, or a list): absolute,
    without a fragment, of an app's own scheme or the web's, or the
    out-of-band URN; else ApiError(422)."""
    uris = [line.strip() for line in (value or "").splitlines() if line.strip()]
    if not uris:
        raise ApiError(422, "Validation failed: Redirect URI can't be blank")
    if len(uris) > MAX_REDIRECT_URIS:
        raise ApiError(422, "Validation failed: Redirect URI too many")
    for uri in uris:
        if uri == OOB:
            continue
        parts = urlsplit(uri)
        if (
            len(uri) > 2000
            or not parts.scheme
            or parts.scheme.lower() in REFUSED_SCHEMES
            or parts.fragment
            or (parts.scheme in ("http", "https") and not parts.netloc)
            or any(ch.isspace() for ch in uri)
        ):
            raise ApiError(422, "Validation failed: Redirect URI must be an absolute URI.")
    return uris


def _text(params: Params, name: str, limit: int) -> str | None:
    value = (params.get(name) or "").strip()
    if len(value) > limit:
        raise ApiError(422, f"Validation failed: {name} is too long")
    return value or None


@api_view(["POST"], user=None)
def create(request: HttpRequest, params: Params) -> dict:
    """Register an app: anyone may, a few an hour from one address."""
    try:
        ratelimit.hit(
            "api_apps", [f"ip:{ratelimit.client_ip(request)}"], settings.RATELIMIT_API_APPS
        )
    except ratelimit.RateLimited as exc:
        raise ApiError(429, "Too many requests", {"Retry-After": str(exc.retry_after)}) from exc
    name = _text(params, "client_name", 200)
    if name is None:
        raise ApiError(422, "Validation failed: Application name can't be blank")
    asked = scopes.parse(params.get("scopes") or "read")
    if asked is None:
        raise ApiError(422, "Validation failed: Scopes are invalid")
    website = _text(params, "website", 500)
    if website is not None and urlsplit(website).scheme not in ("http", "https"):
        website = None
    uris = params.getlist("redirect_uris")
    app, secret = services.app_create(
        name=name,
        redirect_uris=redirect_uris("\n".join(uris)),
        scopes=asked or ["read"],
        website=website,
    )
    return application(app, secret=secret)


@api_view(["GET"], user=False)
def verify_credentials(request: HttpRequest, params: Params) -> dict:
    grant = request.grant
    return token_application(grant.app_name, grant.app_website, grant.scopes)
