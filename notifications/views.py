"""The notifications page. Thin: parse the cursor, read, mark read, render."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from notifications import selectors, services
from socialsite.cursors import Cursor
from socialsite.http import login_required
from socialsite.middleware import writes_on_get


@writes_on_get  # marks the page's notifications read
@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    raw = request.GET.get("before")
    before = None
    if raw is not None:
        before = Cursor.decode(raw)
        if before is None:
            raise Http404("Bad page cursor.")
    page = selectors.notification_page(request.user, before)
    if before is None:
        # Opening the page reads everything up to the newest item stored.
        services.notifications_mark_read(user=request.user, newest=page.newest)
        request.user.notifications_unread = 0
    return render(request, "notifications/list.html", {"page": page})
