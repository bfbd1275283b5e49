"""The "Authorized apps" part of the sessions page (profiles/views/sessions.py
shows it through socialsite/extensions.py) and its Revoke button."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from api import scopes, selectors, services
from socialsite.http import login_required


def sessions_context(request: HttpRequest) -> dict:
    """The apps the signed-in person authorized, newest first: one read."""
    apps = [
        {**row, "plain_scopes": [scopes.plain(scope) for scope in row["scopes"]]}
        for row in selectors.tokens_of(request.user.handle)
    ]
    return {"authorized_apps": apps}


@login_required
@require_POST
def revoke(request: HttpRequest, key: str) -> HttpResponse:
    """Only the person's own token: another's (or none) is a 404."""
    if len(key) > 40 or not services.token_revoke_own(user=request.user.handle, key=key):
        raise Http404("No such app")
    messages.success(request, "That app can no longer use your account.")
    return redirect("profiles:sessions")
