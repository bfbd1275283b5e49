"""The account's sessions: where it is logged in, and ending one (docs/accounts.md)."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from socialsite import extensions, sessions
from socialsite.http import login_required


@login_required
@require_GET
def session_list(request: HttpRequest) -> HttpResponse:
    current = sessions.public_id(request.session.session_key or "")
    listed = [
        {**session, "current": session["id"] == current}
        for session in sessions.sessions_of(request.user.handle)
    ]
    context = {"sessions": listed}
    # What other apps add: the apps authorized through the client API.
    context.update(extensions.page_context("sessions", request))
    return render(request, "accounts/sessions.html", context)


@login_required
@require_POST
def session_end(request: HttpRequest, session_id: str) -> HttpResponse:
    if session_id == sessions.public_id(request.session.session_key or ""):
        messages.info(request, "This is the session you are using: log out to end it.")
        return redirect("profiles:sessions")
    if not sessions.end_session_of(request.user.handle, session_id):
        raise Http404("No such session")
    messages.success(request, "That session is logged out.")
    return redirect("profiles:sessions")
