"""The browser's live stream: one Server-Sent Events connection per tab
(static/js/live.js, docs/live.md#in-the-browser), and the header's counts
it reads when told something changed.

The person's own topic carries what happened for them (a news entry, a
notification, a message); a post's page adds the post's topic (its new
comments), the news feed its pulled authors and followed tags
(live/browser.py decides both, and what each event becomes). An event
here is a nudge with ids: the page then reads what changed through the
same URLs it polls without the stream, which apply every rule of the page
(docs/privacy.md), so nothing is shown here that the page would not show.
"""

from bson import ObjectId
from bson.errors import InvalidId
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views.decorators.http import require_GET

from live import browser
from live.streams import EventStream, data
from messaging import context_processors as messages
from notifications import context_processors as notifications

#: The stream's first event, sent only when it is served (not by a WSGI
#: server, whose answer is `retry:` and nothing else): the page counts on
#: the stream from then on.
READY = ("ready", data({}))


@require_GET
def stream(request: HttpRequest) -> HttpResponseBase:
    user = request.user
    if not user.is_authenticated:
        # 204 tells EventSource not to come back: a visitor's pages poll.
        return HttpResponse(status=204)
    return EventStream(
        topics=browser.topics_for(
            user, post=_object_id(request.GET.get("post")), feed=bool(request.GET.get("feed"))
        ),
        frames_of=browser.frames_for(user),
        last_event_id=request.headers.get("Last-Event-ID") or request.GET.get("last"),
        opening=[READY],
        frames_on_loop=browser.reads_nothing,
    )


@require_GET
def counts(request: HttpRequest) -> JsonResponse:
    """`GET /live/counts`: the header's unread counts, as the header computes
    them (the context processors, from the user document the session read),
    for a page told that one changed. JSON for a script: no login redirect."""
    if not request.user.is_authenticated:
        response = JsonResponse({"error": "Sign in to see your counts."}, status=403)
    else:
        found = {**notifications.unread(request), **messages.unread(request)}
        response = JsonResponse(
            {
                "notifications": found.get("notifications_unread", 0),
                "messages": found.get("messages_unread", 0),
            }
        )
    response["Cache-Control"] = "no-store"
    return response


def _object_id(value: str | None) -> ObjectId | None:
    if not value:
        return None
    try:
        return ObjectId(value)
    except (InvalidId, TypeError):
        return None
