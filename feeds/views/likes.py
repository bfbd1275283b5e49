"""Like and unlike (DESIGN.md §9). Thin: parse, check sight, call the service.

A plain form post answers 302 back to `next` (same-site only), so the button
works without JavaScript; static/js/site.js sends the same form with
`Accept: application/json` and gets `{"liked": bool, "likes": n}` to update
the button in place.
"""

from django.conf import settings
from django.http import Http404
from django.views.decorators.http import require_POST

from feeds.services import likes
from feeds.views.actions import done, refused, signed_in_and_within_limit
from feeds.views.pages import visible_post_or_404


def _act(request, post_id: str, action):
    # The post page's rule (DESIGN.md §4): unknown, removed or hidden is 404.
    post = visible_post_or_404(request, post_id)
    answer = signed_in_and_within_limit(
        request, post_id, scope="like", rule=settings.RATELIMIT_LIKE
    )
    if answer is not None:
        return answer
    try:
        state = action(post_id=post["_id"], user=request.user)
    except likes.NoSuchPost as exc:  # deleted since the read
        raise Http404("No such post.") from exc
    except likes.LikeError as exc:  # across a block, or removed (a moderator sees it)
        return refused(request, post_id, str(exc), 403)
    return done(request, post_id, {"liked": state.liked, "likes": state.likes})


@require_POST
def like(request, post_id):
    return _act(request, post_id, likes.like_create)


@require_POST
def unlike(request, post_id):
    return _act(request, post_id, likes.like_delete)
