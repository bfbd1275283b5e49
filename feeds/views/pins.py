"""Pin a post to the top of one's wall, or unpin it (docs/discovery.md#pins).
Thin: parse, check sight and ownership, call the service, go back with a
message."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from feeds.services import pins
from feeds.views.pages import visible_post_or_404
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back
from socialsite.ids import object_id_or_404


def _limited(request: HttpRequest) -> bool:
    try:
        ratelimit.hit("pin", [f"user:{request.user.handle}"], settings.RATELIMIT_PIN)
    except ratelimit.RateLimited as exc:
        messages.error(request, str(exc))
        return True
    return False


def _back(request: HttpRequest) -> HttpResponseRedirect:
    return redirect_back(request, reverse("profiles:profile", args=[request.user.handle]))


@login_required
@require_POST
def pin(request: HttpRequest, post_id: str) -> HttpResponse:
    # As an edit: a post one may not see, or someone else's, is a 404.
    post = visible_post_or_404(request, post_id)
    if post["by"]["id"] != request.user.handle:
        raise Http404("No such post.")
    if not _limited(request):
        try:
            pinned = pins.post_pin(user=request.user, post=post)
        except pins.NotYours as exc:
            raise Http404("No such post.") from exc
        except pins.PinError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request, "Pinned to your wall." if pinned else "This post is pinned already."
            )
    return _back(request)


@login_required
@require_POST
def unpin(request: HttpRequest, post_id: str) -> HttpResponse:
    oid = object_id_or_404(post_id)
    # One's own pin can always be taken out, whatever became of the post;
    # anything else must be a post of one's own that one may see.
    if oid not in (request.user.pinned or []):
        post = visible_post_or_404(request, post_id)
        if post["by"]["id"] != request.user.handle:
            raise Http404("No such post.")
    if not _limited(request):
        if pins.post_unpin(user=request.user, post_id=oid):
            messages.success(request, "Unpinned from your wall.")
        else:
            messages.info(request, "This post was not pinned.")
    return _back(request)
