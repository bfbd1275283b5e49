from django.http import HttpRequest


def unread(request: HttpRequest) -> dict[str, int]:
    """The header's count: read from the user document the request already
    loaded with its session, so it costs no round trip."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"notifications_unread": max(getattr(user, "notifications_unread", 0) or 0, 0)}
