"""The browser's live stream: one Server-Sent Events connection per tab
(docs/live.md#in-the-browser).

The person's own topic carries what happened for them (a news entry, a
notification, a message); a post's page adds the post's topic (its new
comments). An event here is a nudge with ids: the page then reads what
changed through the same URLs it polls without the stream, which apply
every rule of the page (docs/privacy.md), so nothing is shown here that
the page would not show.
"""

from bson import ObjectId
from bson.errors import InvalidId
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.views.decorators.http import require_GET

from live import topics
from live.broker import Event
from live.streams import EventStream, Frames, data


@require_GET
def stream(request: HttpRequest) -> HttpResponseBase:
    user = request.user
    if not user.is_authenticated:
        # 204 tells EventSource not to come back: a visitor's pages poll.
        return HttpResponse(status=204)
    handle = user.handle
    subscribed = {topics.person(handle)}
    post = _post_id(request.GET.get("post"))
    if post is not None:
        subscribed.add(topics.post(post))
    apart = set(user.blocked or ()) | set(user.muted or ())

    def frames_of(event: Event) -> Frames:
        if event.kind == "comment" and event.data.get("by") in apart:
            return ()
        return [(event.kind, data(event.data))]

    return EventStream(
        topics=subscribed,
        frames_of=frames_of,
        last_event_id=request.headers.get("Last-Event-ID") or request.GET.get("last"),
    )


def _post_id(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return str(ObjectId(value))
    except (InvalidId, TypeError):
        return None
