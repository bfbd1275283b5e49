"""What a client asks at start: the instance, its emojis and announcements
(we have none), and the person's posting preferences."""

from django.http import HttpRequest

from api.entities.instance import instance_v1, instance_v2
from api.http import api_view
from api.params import Params
from feeds.selectors import posts as post_selectors
from profiles import selectors as people


def _origin(request: HttpRequest) -> tuple[str, str]:
    return request.build_absolute_uri("/").rstrip("/"), request.get_host()


def _streaming(request: HttpRequest) -> str:
    """Where the streams are (docs/api.md#streaming): this host, over
    `wss` (`ws` when the site is served over plain http)."""
    return ("wss://" if request.is_secure() else "ws://") + request.get_host()


@api_view(["GET"], user=None)
def instance(request: HttpRequest, params: Params) -> dict:
    base, host = _origin(request)
    return instance_v1(
        base,
        host,
        users=people.users_estimated(),
        posts=post_selectors.posts_estimated(),
        streaming=_streaming(request),
    )


@api_view(["GET"], user=None)
def instance_v2_view(request: HttpRequest, params: Params) -> dict:
    base, host = _origin(request)
    return instance_v2(
        base, host, active_month=people.users_estimated(), streaming=_streaming(request)
    )


@api_view(["GET"], user=None)
def custom_emojis(request: HttpRequest, params: Params) -> list:
    return []


@api_view(["GET"], scope="read", user=True)
def announcements(request: HttpRequest, params: Params) -> list:
    return []


@api_view(["GET"], scope="read:accounts", user=True)
def preferences(request: HttpRequest, params: Params) -> dict:
    """Our posts are public unless the composer picks circles, never marked
    sensitive, and spoilers (content warnings) start folded."""
    return {
        "posting:default:visibility": "public",
        "posting:default:sensitive": False,
        "posting:default:language": None,
        "reading:expand:media": "default",
        "reading:expand:spoilers": False,
    }
