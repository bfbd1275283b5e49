"""Polls (docs.joinmastodon.org/methods/polls): a poll's id is its post's,
read and voted in as on the post page (docs/api.md#polls). Ours take one
choice each."""

from django.http import Http404, HttpRequest

from api.entities.poll import poll_entity
from api.http import ApiError, api_view
from api.params import Params
from api.views.sight import visible_post
from feeds.selectors import pages as post_pages
from feeds.selectors import polls as poll_reads
from feeds.services import polls
from feeds.services import posts as post_services

VOTE_LIMIT = ("vote", "RATELIMIT_VOTE")


def _poll(request: HttpRequest, poll_id: str) -> dict:
    post = visible_post(request, poll_id)
    if post["type"] != "poll":
        raise Http404
    return post


def _entity(request: HttpRequest, post: dict) -> dict:
    viewer = request.user
    handle = viewer.handle if viewer.is_authenticated else None
    choice = poll_reads.votes_of(handle, [post["_id"]]).get(post["_id"]) if handle else None
    return poll_entity(post, choice, handle)


@api_view(["GET"], scope="read:statuses", user=None)
def poll(request: HttpRequest, params: Params, poll_id: str) -> dict:
    return _entity(request, _poll(request, poll_id))


@api_view(["POST"], scope="write:statuses", user=True, limit=VOTE_LIMIT)
def vote(request: HttpRequest, params: Params, poll_id: str) -> dict:
    """`choices[]`: one option's index."""
    post = _poll(request, poll_id)
    choices = params.getlist("choices")
    if len(choices) != 1:
        raise ApiError(422, "Validation failed: choose one option")
    raw = choices[0].strip()
    options = (post.get("detail") or {}).get("options") or []
    if not raw.isascii() or not raw.isdigit() or int(raw) >= len(options):
        raise ApiError(422, "Validation failed: that is not one of the poll's options")
    try:
        post_services.poll_vote(post_id=post["_id"], voter=request.user, option=int(raw))
    except polls.PollError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    voted = post_pages.post_by_id(post["_id"])
    if voted is None:
        raise Http404
    return _entity(request, voted)
