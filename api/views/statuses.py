"""Statuses (docs.joinmastodon.org/methods/statuses): reading one, its
context, history and source, editing and deleting it, through the same
services and selectors as the post page (docs/api.md#statuses). Posting:
api/views/posting.py; the marks: api/views/marks.py; who may see what:
api/views/sight.py."""

from typing import Any

from django.http import Http404, HttpRequest, JsonResponse

from api import scopes as scope_names
from api.entities.dates import iso
from api.entities.reply import comment_statuses
from api.entities.status import (
    content_html,
    status,
)
from api.http import INVALID_TOKEN, NEEDS_USER, OUT_OF_SCOPE, ApiError, api_view, rate_limited
from api.params import Params
from api.views.common import base_of
from api.views.posting import first_error, post_text
from api.views.sight import as_status, respond, visible_post, visible_status
from comments import selectors as comment_selectors
from comments import services as comment_services
from comments.forms import CommentForm
from comments.stores import Comment, get_store
from feeds.selectors import pages as post_pages
from feeds.selectors import posts as feed_posts
from feeds.services import posts as post_services
from feeds.services import reposts

# --- reading ----------------------------------------------------------------


@api_view(["GET", "PUT", "DELETE"], scope=None, user=None)
def status_detail(request: HttpRequest, params: Params, status_id: str) -> Any:
    """GET reads (`read:statuses`, or no token for a public status), PUT
    edits and DELETE deletes (`write:statuses`, the author)."""
    if request.method == "GET":
        return _read(request, status_id)
    return _write(request, params, status_id)


def _read(request: HttpRequest, status_id: str) -> dict:
    _need_scope(request, "read:statuses", person=False)
    post, comment = visible_status(request, status_id)
    return as_status(request, post, comment)


def _need_scope(request: HttpRequest, scope: str, *, person: bool) -> None:
    """The checks of `api_view` for a view whose methods need different ones."""
    grant = getattr(request, "grant", None)
    if grant is None:
        if person:
            raise ApiError(401, INVALID_TOKEN)
        return
    if not scope_names.covers(grant.scopes, scope):
        raise ApiError(403, OUT_OF_SCOPE)
    if person and grant.user is None:
        raise ApiError(422, NEEDS_USER)


def _write(request: HttpRequest, params: Params, status_id: str) -> JsonResponse:
    _need_scope(request, "write:statuses", person=True)
    if request.method == "PUT":
        return _edit(request, params, status_id)
    return _delete(request, status_id)


def _edit(request: HttpRequest, params: Params, status_id: str) -> JsonResponse:
    """The text, as the post page's edit form changes it (a poll's question
    and options stay: people voted on them)."""
    post, comment = visible_status(request, status_id)
    if post.get("reposted_by"):
        raise Http404  # a repost has nothing of its own to edit
    text, _cw = post_text(params)
    if comment is not None:
        headers = rate_limited(request, "comment_edit", "RATELIMIT_COMMENT_EDIT")
        form = CommentForm({"text": text})
        if not form.is_valid():
            raise ApiError(422, f"Validation failed: {first_error(form)}")
        try:
            comment_services.comment_edit(
                post_id=post["_id"],
                slug=comment.slug,
                actor=request.user,
                text=form.cleaned_data["text"],
            )
        except comment_services.CommentRefused as exc:
            if comment.author.get("id") != request.user.handle:
                raise Http404 from exc
            raise ApiError(422, f"Validation failed: {exc}") from exc
        return respond(
            as_status(request, post, get_store().get(post["_id"], comment.slug)), headers
        )
    if post["by"]["id"] != request.user.handle:
        raise Http404
    headers = rate_limited(request, "post_edit", "RATELIMIT_POST_EDIT")
    fields = post_services.EDITABLE[post["type"]]
    if "text" not in fields:
        raise ApiError(422, "Validation failed: a poll's question and options can't change")
    if post["type"] == "status" and not text:
        raise ApiError(422, "Validation failed: A status needs some text.")
    try:
        post_services.post_edit(post_id=post["_id"], actor=request.user, changes={"text": text})
    except post_services.NotFound as exc:
        raise Http404 from exc
    except post_services.PostError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    edited = post_pages.post_by_id(post["_id"])
    if edited is None:
        raise Http404
    return respond(status(edited, request.user, base_of(request)), headers)


def _delete(request: HttpRequest, status_id: str) -> JsonResponse:
    """Deleted as the page deletes it; answered with its `text`, for a
    redraft. A repost's id: one's own repost is undone."""
    post, comment = visible_status(request, status_id)
    if post.get("reposted_by"):
        if post["reposted_by"] != request.user.handle:
            raise Http404
        undone = status(post, request.user, base_of(request))
        reposts.repost_delete(post_id=post["_id"], user=request.user)
        return JsonResponse({**undone, "text": ""})
    if comment is not None:
        try:
            comment_services.comment_delete(
                post_id=post["_id"], slug=comment.slug, actor=request.user
            )
        except comment_services.CommentRefused as exc:
            raise Http404 from exc
        gone = as_status(request, post, comment)
        return JsonResponse({**gone, "text": comment.text})
    if post["by"]["id"] != request.user.handle:
        raise Http404
    gone = status(post, request.user, base_of(request))
    try:
        post_services.post_delete(post_id=post["_id"], actor=request.user)
    except post_services.NotFound as exc:
        raise Http404 from exc
    detail = post.get("detail") or {}
    text = detail.get("question") if post["type"] == "poll" else detail.get("text")
    return JsonResponse({**gone, "text": text or ""})


@api_view(["GET"], scope="read:statuses", user=None)
def context(request: HttpRequest, params: Params, status_id: str) -> dict:
    """Ancestors and descendants: a post's are its thread's first page, as
    the post page reads it; a comment's, the post and the comments above it,
    and its replies as its permalink page reads them."""
    post, comment = visible_status(request, status_id)
    base = base_of(request)
    viewer = request.user
    if comment is None:
        thread = comment_selectors.thread(post["_id"], order="threaded", viewer=viewer)
        shown = _shown(thread.page.comments, thread.hidden_authors, thread.blocked_authors)
        return {"ancestors": [], "descendants": comment_statuses(shown, post, viewer, base)}
    found = comment_selectors.permalink(post["_id"], comment.slug, viewer=viewer)
    if found is None:
        raise Http404
    above = _shown(found.ancestors, found.hidden_authors, found.blocked_authors)
    below = [
        c
        for c in _shown(found.page.comments, found.hidden_authors, found.blocked_authors)
        if c.slug != comment.slug
    ]
    return {
        "ancestors": [
            status(post, viewer, base, context="thread"),
            *comment_statuses(above, post, viewer, base),
        ],
        "descendants": comment_statuses(below, post, viewer, base),
    }


def _shown(comments: list[Comment], hidden: set, blocked: set) -> list[Comment]:
    """Comments the thread would not hide: blocks hide in both directions,
    and a suspended author's are hidden (docs/privacy.md)."""
    return [
        c
        for c in comments
        if c.author.get("id") not in hidden and c.author.get("id") not in blocked
    ]


@api_view(["GET"], scope="read:statuses", user=None)
def history(request: HttpRequest, params: Params, status_id: str) -> list:
    """Every version, oldest first, the current one last (StatusEdit)."""
    post = visible_post(request, status_id)
    base = base_of(request)
    shown = status(post, request.user, base)
    versions = []
    for revision in reversed(feed_posts.revisions_of(post["_id"])):
        then = {**post, "detail": {**(post.get("detail") or {}), **(revision.get("detail") or {})}}
        versions.append(_edit_entity(then, revision.get("since") or post["ts"], shown, base))
    versions.append(_edit_entity(post, post.get("edited") or post["ts"], shown, base))
    return versions


def _edit_entity(post: dict, when: Any, shown: dict, base: str) -> dict:
    return {
        "content": content_html(post, base),
        "spoiler_text": shown["spoiler_text"],
        "sensitive": shown["sensitive"],
        "created_at": iso(when),
        "account": shown["account"],
        "poll": shown["poll"],
        "media_attachments": shown["media_attachments"],
        "emojis": [],
    }


@api_view(["GET"], scope="read:statuses", user=True)
def source(request: HttpRequest, params: Params, status_id: str) -> dict:
    """The text to edit: the author's own status."""
    post, comment = visible_status(request, status_id)
    if comment is not None:
        if comment.author.get("id") != request.user.handle:
            raise Http404
        return {"id": status_id, "text": comment.text, "spoiler_text": ""}
    if post["by"]["id"] != request.user.handle:
        raise Http404
    detail = post.get("detail") or {}
    text = detail.get("question") if post["type"] == "poll" else detail.get("text")
    return {"id": status_id, "text": text or "", "spoiler_text": detail.get("cw") or ""}
