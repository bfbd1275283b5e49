"""The Application entity (docs.joinmastodon.org/entities/Application)."""

from api.documents import OAuthApp


def application(app: OAuthApp, *, secret: str | None = None) -> dict:
    """With `secret`, the CredentialApplication `POST /api/v1/apps` answers
    (the one time the secret is shown)."""
    data: dict = {
        "id": app.client_id,
        "name": app.name,
        "website": app.website,
        "scopes": list(app.scopes),
        "redirect_uri": "\n".join(app.redirect_uris),
        "redirect_uris": list(app.redirect_uris),
        "vapid_key": None,
    }
    if secret is not None:
        data.update(client_id=app.client_id, client_secret=secret, client_secret_expires_at=0)
    return data


def token_application(name: str, website: str | None, scopes: list[str]) -> dict:
    """`apps/verify_credentials`: the app a token belongs to."""
    return {
        "id": None,
        "name": name,
        "website": website,
        "scopes": scopes,
        "redirect_uri": None,
        "redirect_uris": None,
        "vapid_key": None,
    }
