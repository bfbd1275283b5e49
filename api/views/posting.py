"""`POST /api/v1/statuses` (docs.joinmastodon.org/methods/statuses): a
post, a poll, a photo post or a reply, checked by the composer's form and
written by its services (docs/api.md#statuses)."""

from typing import Any

from bson import ObjectId
from django.http import Http404, HttpRequest, JsonResponse

from api.entities.status import (
    parse_status_id,
    status,
)
from api.http import ApiError, api_view, rate_limited
from api.params import Params
from api.services import media_release, media_take
from api.views import direct
from api.views.common import base_of
from api.views.sight import as_status, respond, visible_status
from comments import services as comment_services
from comments.forms import CommentForm
from comments.stores import UnknownParent
from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.forms import CW_MAX, TEXT_MAX, PostForm
from feeds.selectors import pages as post_pages
from feeds.services import polls
from feeds.services import posts as post_services
from socialsite import once
from socialsite.text import strip_controls

#: Visibilities and the audience each posts to (docs/api.md#how-our-concepts-map).
AUDIENCES = {"public": [PUBLIC], "unlisted": [PUBLIC], "private": [ALL_CIRCLES]}


# --- posting ---------------------------------------------------------------


@api_view(["POST"], scope="write:statuses", user=True)
def statuses_create(request: HttpRequest, params: Params) -> Any:
    """A post, a poll, a photo post (one `media_ids[]`), or with
    `in_reply_to_id` a comment on that post or comment. `Idempotency-Key`:
    the same key from the same person answers the first post."""
    visibility = (params.get("visibility") or "public").strip().lower()
    if visibility == "direct":
        return direct.create(request, params)
    if visibility not in AUDIENCES:
        raise ApiError(
            422, "Validation failed: Visibility is not one of public, unlisted, private"
        )
    if params.get("in_reply_to_id"):
        return _reply(request, params)
    headers = rate_limited(request, "post", "RATELIMIT_POST")
    key = request.headers.get("Idempotency-Key")
    post_id = (
        once.claim(scope="api-post", owner=request.user.handle, key=key)
        if once.usable(key)
        else None
    )
    if post_id is not None and (earlier := post_pages.post_by_id(post_id)) is not None:
        return respond(status(earlier, request.user, base_of(request)), headers)
    kind, detail, upload = _composed(request, params, post_id)
    try:
        post = post_services.post_create(
            author=request.user,
            type=kind,
            detail=detail,
            circles=AUDIENCES[visibility],
            post_id=post_id if upload is None else upload["post"],
        )
    except post_services.AlreadyPosted as exc:
        earlier = post_pages.post_by_id(exc.post_id)
        if earlier is None:
            raise ApiError(422, str(exc)) from exc
        return respond(status(earlier, request.user, base_of(request)), headers)
    except post_services.PostError as exc:
        if upload is not None:
            media_release(media_id=upload["_id"], post_id=upload["post"])
        raise ApiError(422, f"Validation failed: {exc}") from exc
    # The post as written (no read again), its author the reader.
    written = post.to_mongo().to_dict()
    shown = status(written, request.user, base_of(request), known=[request.user])
    return respond(shown, headers)


def post_text(params: Params) -> tuple[str, str]:
    """`status` and `spoiler_text` as the composer keeps them."""
    text = strip_controls(params.get("status") or "").replace("\r\n", "\n").strip()
    cw = " ".join(strip_controls(params.get("spoiler_text") or "").split())
    if len(text) > TEXT_MAX:
        raise ApiError(422, f"Validation failed: Text is at most {TEXT_MAX} characters")
    if len(cw) > CW_MAX:
        raise ApiError(422, f"Validation failed: Spoiler text is at most {CW_MAX} characters")
    return text, cw


def _composed(
    request: HttpRequest, params: Params, post_id: ObjectId | None
) -> tuple[str, dict, dict | None]:
    """(type, detail, the upload taken) of the post to write, checked by the
    composer's own form (feeds/forms.py)."""
    text, cw = post_text(params)
    options = params.getlist("poll[options]")
    media_ids = params.getlist("media_ids")
    if options and media_ids:
        raise ApiError(422, "Validation failed: a status has a poll or media, not both")
    if media_ids:
        return _photo(request, media_ids, text, cw, post_id)
    kind = "poll" if options else "status"
    if options:
        detail = _poll_detail(request, params, text, options)
    else:
        form = PostForm({"type": "status", "text": text}, owner_circles=request.user.circles)
        if not form.is_valid():
            raise ApiError(422, f"Validation failed: {first_error(form)}")
        detail = form.cleaned_data["detail"]
    if cw:
        detail["cw"] = cw
    return kind, detail, None


def _poll_detail(request: HttpRequest, params: Params, text: str, options: list[str]) -> dict:
    if params.boolean("poll[multiple]"):
        raise ApiError(422, "Validation failed: a poll here takes one choice")
    form = PostForm(
        {"type": "poll", "text": text, "options": "\n".join(options)},
        owner_circles=request.user.circles,
    )
    if not form.is_valid():
        raise ApiError(422, f"Validation failed: {first_error(form)}")
    raw = (params.get("poll[expires_in]") or str(polls.DEFAULT_DURATION)).strip()
    if not raw.isascii() or not raw.isdigit() or len(raw) > 9:
        raise ApiError(422, "Validation failed: Poll expires_in is not a number of seconds")
    detail = form.cleaned_data["detail"]
    try:
        # Any duration Mastodon allows, not only the composer's choices.
        return polls.poll_detail(
            question=detail["question"], options=detail["options"], expires_in=int(raw)
        )
    except polls.PollError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc


def _photo(
    request: HttpRequest, media_ids: list[str], text: str, cw: str, post_id: ObjectId | None
) -> tuple[str, dict, dict]:
    """A photo post of the one upload named: taken for the post about to be
    written, so two statuses cannot both have it."""
    if len(media_ids) > 1:
        raise ApiError(422, "Validation failed: a post here has one photo")
    media_id = parse_status_id(media_ids[0])
    if media_id is None or media_id[1] is not None:
        raise ApiError(422, "Validation failed: unknown media")
    new_id = post_id or ObjectId()
    upload = media_take(media_id=media_id[0], owner=request.user.handle, post_id=new_id)
    if upload is None:
        raise ApiError(422, "Validation failed: unknown media, or used by another status")
    detail = {"text": text, **upload.get("detail", {})}
    if upload.get("description"):
        detail["alt"] = upload["description"]
    if cw:
        detail["cw"] = cw
    return "photo", detail, upload


def first_error(form: Any) -> str:
    errors = form.errors
    return str(next(iter(errors.values()))[0]) if errors else "invalid"


def _reply(request: HttpRequest, params: Params) -> JsonResponse:
    """A reply is a comment on the post or on the comment replied to."""
    headers = rate_limited(request, "comment", "RATELIMIT_COMMENT")
    post, parent = visible_status(request, params.get("in_reply_to_id") or "")
    form = CommentForm({"text": params.get("status") or ""})
    if not form.is_valid():
        raise ApiError(422, f"Validation failed: {first_error(form)}")
    try:
        comment = comment_services.comment_create(
            post=post,
            author=request.user,
            text=form.cleaned_data["text"],
            parent_slug=parent.slug if parent is not None else None,
        )
    except UnknownParent as exc:
        raise Http404 from exc
    except comment_services.CommentRefused as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    return respond(as_status(request, post, comment), headers)
