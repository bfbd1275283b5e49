"""The client API in the owner registry (socialsite/owners.py)."""

from api import circles, selectors, services
from socialsite import owners

APP = "api"

owners.owned(
    "oauth_app",
    app=APP,
    fields=(),
    erase=None,
    why="a registered app names no person: anyone may register one, anonymously",
)
owners.owned("oauth_code", app=APP, fields=("user",), erase=services.tokens_erase)
owners.owned("oauth_token", app=APP, fields=("user",), erase=services.tokens_erase)
owners.owned("api_media", app=APP, fields=("owner",), erase=services.media_erase)
owners.owned("api_marker", app=APP, fields=("_id",), erase=services.markers_erase)
owners.owned("api_list", app=APP, fields=("owner",), erase=circles.list_ids_erase)
owners.exported("authorized_apps", app=APP, export=selectors.tokens_export)
