from django.http import HttpRequest


def unread(request: HttpRequest) -> dict[str, int]:
    """The header's count of unread conversations: read from the user
    document the request already loaded with its session, so it costs no
    round trip (docs/messages.md)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"messages_unread": max(getattr(user, "messages_unread", 0) or 0, 0)}
