"""Like and unlike, repost and undo (a person's mark on a post,
feeds/services/interactions.py). Thin: parse, check sight, call the service.

A plain form post answers 302 back to `next` (same-site only), so the
buttons work without JavaScript; static/js/site.js sends the same form with
`Accept: application/json` and gets `{"liked": bool, "likes": n}` or
`{"reposted": bool, "reposts": n}` (or `{"error": ...}`) to update the
button in place. A repost answers a plain post with a message too.
"""

from typing import Protocol

from bson import ObjectId
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from feeds.selectors import marks
from feeds.services import likes, reposts
from feeds.views.actions import done, refused, signed_in_and_within_limit, wants_json
from feeds.views.pages import visible_post_and_author
from profiles.auth import AnonymousVisitor
from profiles.documents import User
from socialsite.ids import object_id_or_404


class MarkAction[State](Protocol):
    """A service that puts a mark on a post or takes it back: the like and
    repost services share this one signature so the views can pass either."""

    def __call__(self, *, post_id: ObjectId, user: User, author: User | None = None) -> State: ...


def _like_act(
    request: HttpRequest, post_id: str, action: MarkAction[likes.LikeState]
) -> HttpResponse:
    # The post page's rule (docs/architecture.md): unknown, removed or hidden is 404.
    # Its author comes with the session's read: their blocks cost no query.
    post, author = visible_post_and_author(request, post_id)
    answer = signed_in_and_within_limit(
        request, post_id, scope="like", rule=settings.RATELIMIT_LIKE
    )
    if answer is not None:
        return answer
    try:
        state = action(post_id=post["_id"], user=request.user, author=author)
    except likes.NoSuchPost as exc:  # deleted since the read
        raise Http404("No such post.") from exc
    except likes.LikeError as exc:  # across a block, or removed (a moderator sees it)
        return refused(request, post_id, str(exc), 403)
    return done(request, post_id, {"liked": state.liked, "likes": state.likes})


@require_POST
def like(request: HttpRequest, post_id: str) -> HttpResponse:
    return _like_act(request, post_id, likes.like_create)


@require_POST
def unlike(request: HttpRequest, post_id: str) -> HttpResponse:
    return _like_act(request, post_id, likes.like_delete)


DONE = {True: "Reposted to your followers.", False: "Repost undone."}
ALREADY = {True: "You reposted this already.", False: "You had not reposted this."}


def _reposted(post_id: ObjectId, user: User | AnonymousVisitor) -> bool:
    return str(post_id) in marks.reposted_by(user, [post_id])


def _repost_act(
    request: HttpRequest,
    post_id: str,
    action: MarkAction[reposts.RepostState],
    *,
    undo: bool,
) -> HttpResponse:
    oid = object_id_or_404(post_id)
    # The post page's rule (docs/architecture.md): unknown, removed or hidden is 404;
    # but one's own repost can always be undone, whatever became of the post.
    author = None
    if not (undo and _reposted(oid, request.user)):
        _, author = visible_post_and_author(request, post_id)
    answer = signed_in_and_within_limit(
        request, post_id, scope="repost", rule=settings.RATELIMIT_REPOST
    )
    if answer is not None:
        return answer
    try:
        state = action(post_id=oid, user=request.user, author=author)
    except reposts.NoSuchPost as exc:  # deleted or removed since the read
        raise Http404("No such post.") from exc
    except reposts.RepostError as exc:  # own, limited audience, across a block
        return refused(request, post_id, str(exc), 403)
    if not wants_json(request):
        messages.success(
            request, DONE[state.reposted] if state.changed else ALREADY[state.reposted]
        )
    return done(request, post_id, {"reposted": state.reposted, "reposts": state.reposts})


@require_POST
def repost(request: HttpRequest, post_id: str) -> HttpResponse:
    return _repost_act(request, post_id, reposts.repost_create, undo=False)


@require_POST
def unrepost(request: HttpRequest, post_id: str) -> HttpResponse:
    return _repost_act(request, post_id, reposts.repost_delete, undo=True)
