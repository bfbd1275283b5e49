"""OAuth 2 with oauthlib over our documents (docs/api.md#apps-and-tokens).

django-oauth-toolkit needs the Django ORM; oauthlib needs only a
`RequestValidator`, which answers its questions from `api.selectors` and
writes through `api.services`. The server speaks what Mastodon 4.3 does:
the authorization code grant (PKCE with S256 optional: with it, a public
client needs no secret) and client credentials; no password grant, no
implicit grant, no refresh tokens (a token lasts until it is revoked).
"""

import base64
from typing import Any
from urllib.parse import unquote

from oauthlib.common import Request
from oauthlib.oauth2 import (
    AuthorizationEndpoint,
    BearerToken,
    RequestValidator,
    RevocationEndpoint,
    TokenEndpoint,
)
from oauthlib.oauth2.rfc6749.grant_types import AuthorizationCodeGrant, ClientCredentialsGrant
from oauthlib.oauth2.rfc6749.tokens import OAuth2Token

from api import scopes as scope_names
from api import secrets, selectors, services
from api.documents import OAuthApp

OOB = "urn:ietf:wg:oauth:2.0:oob"
DEFAULT_SCOPES = ["read"]


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    """client_id and secret from an `Authorization: Basic` header (RFC 6749 2.3.1)."""
    header = request.headers.get("Authorization", "")
    kind, _, value = header.partition(" ")
    if kind.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except ValueError:
        return None
    client_id, sep, secret = decoded.partition(":")
    return (unquote(client_id), unquote(secret)) if sep else None


class Validator(RequestValidator):
    """oauthlib's questions, answered from the apps, codes and tokens."""

    # --- clients ----------------------------------------------------------

    def _app(self, request: Request, client_id: object) -> OAuthApp | None:
        cached = getattr(request, "_socialsite_app", None)
        if cached is not None and cached.client_id == client_id:
            return cached
        found = selectors.app(client_id)
        request._socialsite_app = found
        return found

    def validate_client_id(self, client_id: str, request: Request, *args: Any, **kw: Any) -> bool:
        return self._app(request, client_id) is not None

    def client_authentication_required(self, request: Request, *args: Any, **kw: Any) -> bool:
        """A secret is needed, except to exchange a code issued with a PKCE
        challenge (a public client: a phone app holds no secret)."""
        if request.grant_type != "authorization_code" or _sent_secret(request):
            return True
        if not isinstance(request.code, str) or not isinstance(request.client_id, str):
            return True
        return selectors.code_challenge(request.code, request.client_id) is None

    def authenticate_client(self, request: Request, *args: Any, **kw: Any) -> bool:
        basic = _basic_credentials(request)
        client_id, secret = basic if basic else (request.client_id, request.client_secret)
        if not isinstance(secret, str) or not secret:
            return False
        app = self._app(request, client_id)
        if app is None or not _same(secrets.digest(secret), app.secret_digest):
            return False
        request.client = app
        request.client_id = app.client_id
        return True

    def authenticate_client_id(
        self, client_id: str, request: Request, *args: Any, **kw: Any
    ) -> bool:
        app = self._app(request, client_id)
        if app is None:
            return False
        request.client = app
        return True

    def validate_grant_type(
        self, client_id: str, grant_type: str, client: Any, request: Request, *a: Any, **kw: Any
    ) -> bool:
        return grant_type in ("authorization_code", "client_credentials")

    def validate_response_type(
        self, client_id: str, response_type: str, client: Any, request: Request, *a: Any, **k: Any
    ) -> bool:
        return response_type == "code"

    # --- redirects and scopes ----------------------------------------------

    def validate_redirect_uri(
        self, client_id: str, redirect_uri: str, request: Request, *args: Any, **kw: Any
    ) -> bool:
        app = self._app(request, client_id)
        return app is not None and redirect_uri in app.redirect_uris

    def get_default_redirect_uri(
        self, client_id: str, request: Request, *args: Any, **kw: Any
    ) -> str | None:
        app = self._app(request, client_id)
        return app.redirect_uris[0] if app is not None and app.redirect_uris else None

    def validate_scopes(
        self, client_id: str, scopes: list[str], client: Any, request: Request, *a: Any, **k: Any
    ) -> bool:
        """Known scopes, each within what the app registered (`read` covers
        `read:statuses`, as Mastodon allows)."""
        app = self._app(request, client_id)
        if app is None or any(scope not in scope_names.SUPPORTED for scope in scopes):
            return False
        return scope_names.all_covered(app.scopes, scopes)

    def get_default_scopes(
        self, client_id: str, request: Request, *args: Any, **kw: Any
    ) -> list[str]:
        return list(DEFAULT_SCOPES)

    def is_pkce_required(self, client_id: str, request: Request) -> bool:
        return False

    def is_origin_allowed(self, client_id: str, origin: str, request: Request) -> bool:
        return False  # CORS is corsheaders' (settings.CORS_URLS_REGEX), not oauthlib's

    # --- codes ----------------------------------------------------------------

    def save_authorization_code(
        self, client_id: str, code: dict, request: Request, *args: Any, **kw: Any
    ) -> None:
        services.code_save(
            code=code["code"],
            client_id=client_id,
            user=request.user.handle,
            redirect_uri=request.redirect_uri,
            scopes=list(request.scopes),
            challenge=request.code_challenge,
            challenge_method=request.code_challenge_method if request.code_challenge else None,
        )

    def validate_code(
        self, client_id: str, code: str, client: Any, request: Request, *args: Any, **kw: Any
    ) -> bool:
        """Taken here, once: a second exchange of it finds nothing. Its
        redirect and PKCE checks come after, on what was taken."""
        if not isinstance(code, str) or not code:
            return False
        row = services.code_take(code, client_id)
        if row is None:
            return False
        request._socialsite_code = row
        request.user = row["user"]
        request.scopes = list(row.get("scopes") or [])
        return True

    def confirm_redirect_uri(
        self,
        client_id: str,
        code: str,
        redirect_uri: str | None,
        client: Any,
        request: Request,
        *args: Any,
        **kw: Any,
    ) -> bool:
        row = getattr(request, "_socialsite_code", None)
        return row is not None and redirect_uri == row["redirect_uri"]

    def get_code_challenge(self, code: str, request: Request) -> str | None:
        row = getattr(request, "_socialsite_code", None)
        return None if row is None else row.get("challenge")

    def get_code_challenge_method(self, code: str, request: Request) -> str | None:
        row = getattr(request, "_socialsite_code", None)
        return None if row is None else row.get("challenge_method")

    def invalidate_authorization_code(
        self, client_id: str, code: str, request: Request, *args: Any, **kw: Any
    ) -> None:
        pass  # already deleted by `validate_code`, which took it

    # --- tokens ---------------------------------------------------------------

    def save_bearer_token(self, token: dict, request: Request, *args: Any, **kwargs: Any) -> None:
        user = request.user if isinstance(request.user, str) else None
        created = services.token_create(
            token=token["access_token"], app=request.client, user=user, scopes=request.scopes
        )
        # Mastodon's token response: no expiry (a token lasts until revoked).
        token["created_at"] = int(created.timestamp())
        token.pop("expires_in", None)

    def revoke_token(
        self, token: str, token_type_hint: str | None, request: Request, *args: Any, **kw: Any
    ) -> None:
        services.token_revoke(token=token, client_id=request.client.client_id)


def _sent_secret(request: Request) -> bool:
    return bool(request.client_secret) or _basic_credentials(request) is not None


def _same(one: str, other: str) -> bool:
    import hmac

    return hmac.compare_digest(one.encode(), other.encode())


class _Grant(AuthorizationCodeGrant):
    def create_authorization_code(self, request: Request) -> dict:
        grant = {"code": secrets.new_secret()}
        if request.state:
            grant["state"] = request.state
        return grant


class _Bearer(BearerToken):
    def create_token(
        self, request: Request, refresh_token: bool = False, **kw: Any
    ) -> OAuth2Token:
        token = super().create_token(request, refresh_token=False, **kw)
        if request.scopes is not None:
            token["scope"] = " ".join(request.scopes)
        return token


class Server(AuthorizationEndpoint, TokenEndpoint, RevocationEndpoint):
    """The endpoints Mastodon 4.3 has, with only the grants it allows."""

    def __init__(self, validator: RequestValidator) -> None:
        code_grant = _Grant(validator, refresh_token=False)
        # S256 only: "plain" sends the verifier itself through the browser.
        code_grant._code_challenge_methods = {"S256": code_grant._code_challenge_methods["S256"]}
        credentials = ClientCredentialsGrant(validator)
        bearer = _Bearer(validator, token_generator=lambda request: secrets.new_secret())
        AuthorizationEndpoint.__init__(
            self,
            default_response_type="code",
            response_types={"code": code_grant},
            default_token_type=bearer,
        )
        TokenEndpoint.__init__(
            self,
            default_grant_type="authorization_code",
            grant_types={"authorization_code": code_grant, "client_credentials": credentials},
            default_token_type=bearer,
        )
        RevocationEndpoint.__init__(self, validator, supported_token_types=["access_token"])


server = Server(Validator())
