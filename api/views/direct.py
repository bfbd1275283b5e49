"""`visibility=direct` on `POST /api/v1/statuses` (docs/api.md#conversations):
a direct status is a message. Its recipients are the people its text
mentions (Mastodon's rule for a direct status); the message goes into the
conversation with exactly them, or starts one, by the messages page's
service, with its rate limit and its rules (blocks, "who may message me",
suspensions). Answers the message as a Status."""

from django.http import HttpRequest

from api.entities.conversation import message_status
from api.entities.status import Authors
from api.http import ApiError, rate_limited
from api.params import Params
from api.views.common import base_of
from feeds.mentions import handles_in
from messaging import selectors, services
from socialsite.clock import aware
from socialsite.text import strip_controls


def create(request: HttpRequest, params: Params) -> dict:
    text = strip_controls(params.get("status") or "").replace("\r\n", "\n").strip()
    if params.get("media_ids[]") or params.getlist("media_ids") or params.get("poll[options][]"):
        raise ApiError(422, "Validation failed: a direct message is text only")
    to = sorted(handles_in(text) - {request.user.handle})
    if not to:
        raise ApiError(
            422,
            "Validation failed: a direct status is a message (/api/v1/conversations): "
            "mention who it is for",
        )
    if len(to) > services.MAX_RECIPIENTS:
        raise ApiError(
            422, f"Validation failed: write to at most {services.MAX_RECIPIENTS} people at once"
        )
    headers = rate_limited(request, "conversation_start", "RATELIMIT_CONVERSATION")
    try:
        conversation_id, stored = services.conversation_write(
            sender=request.user, to=to, text=text
        )
    except services.MessageRefused as exc:
        raise ApiError(422, f"Validation failed: {exc}", headers) from exc
    message = selectors.Message(
        id=str(stored["_id"]),
        by=stored["by"],
        name=stored.get("name") or "",
        text=stored.get("text") or "",
        ts=aware(stored["ts"]),
        place=(0, 0),
        mine=True,
    )
    authors = Authors([request.user.handle], base_of(request))
    return message_status(message, str(conversation_id), [request.user.handle, *to], authors)
