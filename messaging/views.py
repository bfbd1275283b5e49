"""The inbox and a conversation's page (docs/messages.md). Thin: parse,
call a selector or a service, render or redirect. Anyone who is not in a
conversation gets a 404 from every route of it, as for a missing one."""

from bson import ObjectId
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from messaging import selectors, services
from messaging.forms import MessageForm, StartForm, handles_in
from socialsite import ratelimit
from socialsite.cursors import Cursor
from socialsite.http import login_required
from socialsite.ids import object_id_or_404
from socialsite.middleware import writes_on_get


def _inbox_page(request: HttpRequest, form: StartForm, status: int = 200) -> HttpResponse:
    raw = request.GET.get("before")
    before = None
    if raw is not None:
        before = Cursor.decode(raw)
        if before is None:
            raise Http404("Bad page cursor.")
    page = selectors.inbox_page(request.user, before)
    if before is None:  # the first page: the header's count follows what it shows
        truth = selectors.unread_truth(request.user, page)
        if truth is not None:
            services.unread_recount(reader=request.user, unread=truth)
    return render(request, "messaging/inbox.html", {"page": page, "form": form}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def inbox(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        to = handles_in(request.GET.getlist("to"))[: services.MAX_RECIPIENTS]
        return _inbox_page(request, StartForm(initial={"to": ", ".join(to)}))
    form = StartForm(request.POST, recipients=handles_in(request.POST.getlist("to")))
    if not form.is_valid():
        return _inbox_page(request, form, status=400)
    try:
        ratelimit.hit(
            "conversation_start", [f"user:{request.user.handle}"], settings.RATELIMIT_CONVERSATION
        )
        conversation_id = services.conversation_start(
            sender=request.user, to=form.cleaned_data["to"], text=form.cleaned_data["text"]
        )
    except ratelimit.RateLimited as exc:
        form.add_error(None, str(exc))
        return _inbox_page(request, form, status=429)
    except services.MessageRefused as exc:
        form.add_error(None, str(exc))
        return _inbox_page(request, form, status=403)
    return redirect(reverse("messaging:conversation", args=[conversation_id]) + "#latest")


def _page(
    request: HttpRequest, conversation_id: ObjectId, form: MessageForm, status: int = 200
) -> HttpResponse:
    try:
        page = selectors.conversation_page(
            conversation_id,
            request.user,
            before=request.GET.get("before"),
            after=request.GET.get("after"),
        )
    except selectors.BadCursor as exc:
        raise Http404("Bad page cursor.") from exc
    if page is None:
        raise Http404("No such conversation.")
    if request.method == "GET":
        _read(request, conversation_id, page)
    context = {"page": page, "form": form}
    return render(request, "messaging/conversation.html", context, status=status)


def _read(
    request: HttpRequest, conversation_id: ObjectId, page: selectors.ConversationPage
) -> None:
    """Showing the conversation's newest message reads it, up to the newest
    message shown."""
    if (
        page.latest
        and page.unread
        and services.conversation_read(
            conversation_id=conversation_id,
            reader=request.user,
            newest=page.newest,
            seat=page.seat,
        )
    ):
        request.user.messages_unread = max(0, (request.user.messages_unread or 0) - 1)


@writes_on_get  # opening a conversation moves the reader's marker
@login_required
@require_http_methods(["GET", "POST"])
def conversation(request: HttpRequest, conversation_id: str) -> HttpResponse:
    oid = object_id_or_404(conversation_id)
    if request.method != "POST":
        return _page(request, oid, MessageForm())
    form = MessageForm(request.POST)
    if not form.is_valid():
        return _page(request, oid, form, status=400)
    try:
        ratelimit.hit("message", [f"user:{request.user.handle}"], settings.RATELIMIT_MESSAGE)
        services.message_send(
            conversation_id=oid, sender=request.user, text=form.cleaned_data["text"]
        )
    except ratelimit.RateLimited as exc:
        form.add_error(None, str(exc))
        return _page(request, oid, form, status=429)
    except services.MessageRefused as exc:
        form.add_error(None, str(exc))
        return _page(request, oid, form, status=403)
    except services.NotInConversation as exc:
        raise Http404("No such conversation.") from exc
    return redirect(reverse("messaging:conversation", args=[oid]) + "#latest")


@writes_on_get  # showing the newest messages moves the reader's marker, as the page does
@login_required
@require_GET
def newer(request: HttpRequest, conversation_id: str) -> HttpResponse:
    """`GET /messages/<id>/newer/?after=<cursor>`: the messages after the
    open page's last one (`data-after` on its list), as the page's own list
    items, for the page to add when told a message came (static/js/live.js,
    docs/live.md#in-the-browser). The same selector and template as the
    page, and, like the page, showing the newest message reads it. Without
    `after`: the newest page's. 404 to anyone not in it, as the page."""
    oid = object_id_or_404(conversation_id)
    try:
        page = selectors.conversation_page(oid, request.user, after=request.GET.get("after"))
    except selectors.BadCursor as exc:
        raise Http404("Bad page cursor.") from exc
    if page is None:
        raise Http404("No such conversation.")
    _read(request, oid, page)
    response = render(request, "messaging/_newer.html", {"page": page})
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def leave(request: HttpRequest, conversation_id: str) -> HttpResponse:
    oid = object_id_or_404(conversation_id)
    try:
        services.conversation_leave(conversation_id=oid, member=request.user)
    except services.NotInConversation as exc:
        raise Http404("No such conversation.") from exc
    messages.success(request, "You left the conversation.")
    return redirect("messaging:inbox")
