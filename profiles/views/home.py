"""The front page: signed out, who joined lately; signed in, the news feed."""

from django.conf import settings
from django.shortcuts import redirect, render

from profiles.documents import User


def home(request):
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    # Every field the "New here" list shows is loaded: an unloaded counter reads as 0.
    newest = (
        User.objects(status="active")
        .only("handle", "name", "followers_count")
        .order_by("-created")
        .limit(8)
    )
    return render(request, "home.html", {"newest": list(newest)})
