"""What a status id names and whether the reader may see it, for every
statuses, media and polls view (docs/api.md#statuses): the post page's
rule, so what the page hides is a 404 exactly like an unknown id."""

from typing import Any

from django.http import Http404, HttpRequest, JsonResponse

from api.entities.reply import comment_statuses
from api.entities.status import (
    parse_status_id,
    status,
)
from api.views.common import base_of
from comments.stores import Comment, get_store
from feeds.selectors import marks
from feeds.selectors import pages as post_pages
from profiles import selectors as people

# --- what the reader may see ---------------------------------------------


def visible_post(request: HttpRequest, status_id: str) -> dict:
    """The post of a status id, as the post page shows it to the reader;
    Http404 for anything the reader may not see. A repost's id (a
    timeline's reblog) is its original, with `reposted_by` and `_at` as a
    timeline reads it. A moderator's sight of removed posts is the pages'
    (a client has no restore button)."""
    parsed = parse_status_id(status_id)
    if parsed is None or parsed[1] is not None:
        raise Http404
    post = post_pages.post_by_id(parsed[0])
    people_in_it = []
    if post is None:
        # Not a post: a repost's own id, one point read more.
        repost = marks.repost_time(parsed[0])
        original = post_pages.post_by_id(repost["post"]) if repost is not None else None
        if repost is None or original is None:
            raise Http404
        post = {**original, "reposted_by": repost["by"], "_at": (repost["ts"], repost["_id"])}
        people_in_it.append(repost["by"])
    shown = post_pages.shown_to(post, request.user)
    if shown is None or shown.get("removed") is not None:
        raise Http404
    _refuse_blockers(request, [shown["by"]["id"], *people_in_it])
    return shown


def _refuse_blockers(request: HttpRequest, handles: list[str]) -> None:
    """Someone who blocked the reader, or whom the reader blocked, is gone
    for them, as Mastodon answers: one read by `_id` (the reader's own
    blocks are on their document)."""
    viewer = request.user
    if not viewer.is_authenticated:
        return
    others = [h for h in dict.fromkeys(handles) if h != viewer.handle]
    if any(h in (viewer.blocked or ()) for h in others) or (
        others and people.blockers_among(viewer.handle, others)
    ):
        raise Http404


def visible_status(request: HttpRequest, status_id: str) -> tuple[dict, Comment | None]:
    """The post, and the comment when the id is a comment's."""
    parsed = parse_status_id(status_id)
    if parsed is None:
        raise Http404
    post_id, slug = parsed
    post = visible_post(request, str(post_id))
    if slug is None:
        return post, None
    comment = get_store().get(post_id, slug)
    if comment is None:
        raise Http404
    author = comment.author.get("id")
    if author and request.user.is_authenticated and author in (request.user.blocked or ()):
        raise Http404
    return post, comment


def as_status(request: HttpRequest, post: dict, comment: Comment | None) -> dict:
    """A post as its own page shows it: the reader's "thread" filters apply."""
    base = base_of(request)
    if comment is None:
        return status(post, request.user, base, context="thread")
    return comment_statuses([comment], post, request.user, base)[0]


def respond(data: Any, headers: dict[str, str]) -> JsonResponse:
    response = JsonResponse(data, safe=False)
    for name, value in headers.items():
        response[name] = value
    return response
