"""The OAuth 2 endpoints (docs/api.md#apps-and-tokens): the consent page,
the token exchange, revocation, and the server's metadata (RFC 8414)."""

from typing import Any
from urllib.parse import urlencode, urlsplit

from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from oauthlib.oauth2 import FatalClientError, OAuth2Error

from api import scopes, selectors
from api.http import NoSession, app_endpoint
from api.oauth import OOB, server
from api.params import BadParams, Params
from socialsite.http import login_required

FORM = "application/x-www-form-urlencoded"


def _oauth_response(headers: dict, body: str | None, status: int) -> HttpResponse:
    response = HttpResponse(body or "", status=status, content_type="application/json")
    for name, value in headers.items():
        if name.lower() != "content-type":
            response[name] = value
    return response


def _form_body(request: HttpRequest) -> tuple[str, dict[str, str]]:
    """The request's parameters as a form body for oauthlib, whether the
    client sent a form or JSON (Mastodon takes both), and the headers."""
    params = Params.of(request)
    pairs = [
        (name, value)
        for name in params.names()
        if name not in request.GET
        for value in params.getlist(name)
    ]
    headers = {"Content-Type": FORM}
    if request.headers.get("Authorization"):
        headers["Authorization"] = request.headers["Authorization"]
    return urlencode(pairs), headers


def _endpoint_uri(request: HttpRequest) -> str:
    return request.build_absolute_uri(request.path)


@app_endpoint("POST")
@csrf_exempt
@require_POST
def token(request: HttpRequest) -> HttpResponse:
    """`POST /oauth/token`: a code (with its PKCE verifier) or the app's own
    credentials for a token. A bearer client sends no cookie to use."""
    request.session = NoSession()
    try:
        body, headers = _form_body(request)
    except BadParams as exc:
        return JsonResponse(
            {"error": "invalid_request", "error_description": str(exc)}, status=400
        )
    answer_headers, answer, status = server.create_token_response(
        _endpoint_uri(request), "POST", body, headers
    )
    return _oauth_response(answer_headers, answer, status)


@app_endpoint("POST")
@csrf_exempt
@require_POST
def revoke(request: HttpRequest) -> HttpResponse:
    """`POST /oauth/revoke`: the app's token ends; `{}` whether or not it existed."""
    request.session = NoSession()
    try:
        body, headers = _form_body(request)
    except BadParams as exc:
        return JsonResponse(
            {"error": "invalid_request", "error_description": str(exc)}, status=400
        )
    answer_headers, answer, status = server.create_revocation_response(
        _endpoint_uri(request), "POST", body, headers
    )
    if status == 200:
        return JsonResponse({})
    return _oauth_response(answer_headers, answer, status)


@require_GET
def metadata(request: HttpRequest) -> JsonResponse:
    """RFC 8414's metadata, as Mastodon 4.3 serves it."""
    request.session = NoSession()
    origin = request.build_absolute_uri("/").rstrip("/")
    return JsonResponse(
        {
            "issuer": origin + "/",
            "authorization_endpoint": origin + reverse("api:authorize"),
            "token_endpoint": origin + reverse("api:token"),
            "revocation_endpoint": origin + reverse("api:revoke"),
            "app_registration_endpoint": origin + reverse("api:apps"),
            "scopes_supported": list(scopes.SUPPORTED),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic",
                "client_secret_post",
                "none",
            ],
        }
    )


def _with_query(uri: str, values: dict[str, str]) -> str:
    joiner = "&" if urlsplit(uri).query else "?"
    return uri + joiner + urlencode({k: v for k, v in values.items() if v})


@login_required
@require_http_methods(["GET", "POST"])
def authorize(request: HttpRequest) -> HttpResponseBase:
    """The consent page: which app asks for what, Authorize or Deny.

    The page posts back to its own URL, query and all, so the same request
    is checked again before a code is issued; a bad app or redirect URI is
    shown here, never redirected to (RFC 6749 4.1.2.1)."""
    uri = request.build_absolute_uri()
    try:
        asked, credentials = server.validate_authorization_request(uri, "GET", None, {})
    except FatalClientError as exc:
        return render(request, "api/authorize_error.html", {"error": exc.description}, status=400)
    except OAuth2Error as exc:
        if exc.redirect_uri and exc.redirect_uri != OOB:
            return app_redirect(exc.in_uri(exc.redirect_uri))
        return render(request, "api/authorize_error.html", {"error": exc.description}, status=400)
    app = selectors.app(credentials["client_id"])
    redirect_uri = credentials["redirect_uri"]
    if request.method == "GET" or app is None:
        context: dict[str, Any] = {
            "app": app,
            "scopes": [(scope, scopes.plain(scope)) for scope in asked],
            "action": request.get_full_path(),
        }
        return render(request, "api/authorize.html", context)
    if request.POST.get("decision") != "authorize":
        if redirect_uri == OOB:
            return render(request, "api/authorize_error.html", {"error": "You denied access."})
        return app_redirect(
            _with_query(
                redirect_uri,
                {"error": "access_denied", "state": credentials.get("state") or ""},
            )
        )
    kept = {
        key: credentials[key]
        for key in (
            "client_id",
            "redirect_uri",
            "response_type",
            "state",
            "code_challenge",
            "code_challenge_method",
        )
        if key in credentials
    }
    kept["user"] = request.user
    headers, _, _ = server.create_authorization_response(uri, "GET", None, {}, asked, kept)
    location = headers["Location"]
    if redirect_uri == OOB:
        code = dict(_query_pairs(location)).get("code", "")
        return render(request, "api/authorize_code.html", {"app": app, "code": code})
    return app_redirect(location)


def app_redirect(uri: str) -> HttpResponseRedirect:
    """To one of the app's registered redirect URIs, whose scheme may be
    its own (`myapp://callback`): registration refused only `javascript:`,
    `data:` and the like (api/views/apps.py), so any registered scheme goes."""
    response = HttpResponseRedirect.__new__(HttpResponseRedirect)
    response.allowed_schemes = [urlsplit(uri).scheme]
    HttpResponseRedirect.__init__(response, uri)
    return response


def _query_pairs(uri: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(urlsplit(uri).query)
