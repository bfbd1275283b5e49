"""Statuses (docs.joinmastodon.org/methods/statuses): posting, reading,
editing and deleting, and the marks people leave on posts, through the same
services and selectors as the post page (docs/api.md#statuses).

A status the reader may not see (a circle post they are not in, an author
either of them blocked, a removed or unknown post) is a 404 exactly like an
id that never was, for reads and actions alike.
"""

from typing import Any

from bson import ObjectId
from django.http import Http404, HttpRequest, JsonResponse

from api import paging
from api import scopes as scope_names
from api.entities.account import account
from api.entities.dates import iso
from api.entities.status import (
    comment_statuses,
    content_html,
    parse_status_id,
    poll_entity,
    status,
)
from api.http import INVALID_TOKEN, NEEDS_USER, OUT_OF_SCOPE, ApiError, api_view, rate_limited
from api.params import Params
from api.services import media_release, media_take
from api.views import direct
from comments import selectors as comment_selectors
from comments import services as comment_services
from comments.forms import CommentForm
from comments.stores import Comment, UnknownParent, get_store
from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.forms import CW_MAX, TEXT_MAX, PostForm
from feeds.selectors import marks
from feeds.selectors import pages as post_pages
from feeds.selectors import posts as feed_posts
from feeds.services import likes, pins, polls, reposts
from feeds.services import posts as post_services
from feeds.services.bookmarks import bookmark_create, bookmark_delete
from profiles import selectors as people
from socialsite import once
from socialsite.ids import parse_handle
from socialsite.text import strip_controls

#: Visibilities and the audience each posts to (docs/api.md#how-our-concepts-map).
AUDIENCES = {"public": [PUBLIC], "unlisted": [PUBLIC], "private": [ALL_CIRCLES]}
ACCOUNTS_DEFAULT, ACCOUNTS_MAX = 40, 80


def base_of(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


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


def _respond(data: Any, headers: dict[str, str]) -> JsonResponse:
    response = JsonResponse(data, safe=False)
    for name, value in headers.items():
        response[name] = value
    return response


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
        return _respond(status(earlier, request.user, base_of(request)), headers)
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
        return _respond(status(earlier, request.user, base_of(request)), headers)
    except post_services.PostError as exc:
        if upload is not None:
            media_release(media_id=upload["_id"], post_id=upload["post"])
        raise ApiError(422, f"Validation failed: {exc}") from exc
    # The post as written (no read again), its author the reader.
    written = post.to_mongo().to_dict()
    shown = status(written, request.user, base_of(request), known=[request.user])
    return _respond(shown, headers)


def _text(params: Params) -> tuple[str, str]:
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
    text, cw = _text(params)
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
            raise ApiError(422, f"Validation failed: {_first_error(form)}")
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
        raise ApiError(422, f"Validation failed: {_first_error(form)}")
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


def _first_error(form: Any) -> str:
    errors = form.errors
    return str(next(iter(errors.values()))[0]) if errors else "invalid"


def _reply(request: HttpRequest, params: Params) -> JsonResponse:
    """A reply is a comment on the post or on the comment replied to."""
    headers = rate_limited(request, "comment", "RATELIMIT_COMMENT")
    post, parent = visible_status(request, params.get("in_reply_to_id") or "")
    form = CommentForm({"text": params.get("status") or ""})
    if not form.is_valid():
        raise ApiError(422, f"Validation failed: {_first_error(form)}")
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
    return _respond(as_status(request, post, comment), headers)


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
    text, _cw = _text(params)
    if comment is not None:
        headers = rate_limited(request, "comment_edit", "RATELIMIT_COMMENT_EDIT")
        form = CommentForm({"text": text})
        if not form.is_valid():
            raise ApiError(422, f"Validation failed: {_first_error(form)}")
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
        return _respond(
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
    return _respond(status(edited, request.user, base_of(request)), headers)


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


# --- marks --------------------------------------------------------------------

LIKE_LIMIT = ("like", "RATELIMIT_LIKE")
REPOST_LIMIT = ("repost", "RATELIMIT_REPOST")
BOOKMARK_LIMIT = ("bookmark", "RATELIMIT_BOOKMARK")
PIN_LIMIT = ("pin", "RATELIMIT_PIN")


def _marked(request: HttpRequest, post: dict, **changes: Any) -> dict:
    """The status after an action, with what the action answered."""
    shown = status(post, request.user, base_of(request))
    shown.update(changes)
    return shown


def _like(request: HttpRequest, status_id: str, *, on: bool) -> dict:
    post = visible_post(request, status_id)
    act = likes.like_create if on else likes.like_delete
    try:
        state = act(post_id=post["_id"], user=request.user)
    except likes.NoSuchPost as exc:
        raise Http404 from exc
    except likes.LikeError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    return _marked(request, post, favourited=state.liked, favourites_count=state.likes)


@api_view(["POST"], scope="write:favourites", user=True, limit=LIKE_LIMIT)
def favourite(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _like(request, status_id, on=True)


@api_view(["POST"], scope="write:favourites", user=True, limit=LIKE_LIMIT)
def unfavourite(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _like(request, status_id, on=False)


def _repost(request: HttpRequest, status_id: str, *, on: bool) -> dict:
    post = visible_post(request, status_id)
    act = reposts.repost_create if on else reposts.repost_delete
    try:
        state = act(post_id=post["_id"], user=request.user)
    except reposts.NoSuchPost as exc:
        raise Http404 from exc
    except reposts.RepostError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    changes = {"reblogged": state.reposted, "reblogs_count": state.reposts}
    made = marks.repost_by(post["_id"], request.user.handle) if on else None
    if made is None:
        return _marked(request, post, **changes)
    # Mastodon answers a reblog with the new status, the original inside,
    # as a timeline shows a repost (timelines/selectors/entries.py).
    reposted = {**post, "reposted_by": request.user.handle, "_at": (made["ts"], made["_id"])}
    shown = status(reposted, request.user, base_of(request))
    shown["reblog"].update(changes)
    return shown


@api_view(["POST"], scope="write:statuses", user=True, limit=REPOST_LIMIT)
def reblog(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _repost(request, status_id, on=True)


@api_view(["POST"], scope="write:statuses", user=True, limit=REPOST_LIMIT)
def unreblog(request: HttpRequest, params: Params, status_id: str) -> dict:
    return _repost(request, status_id, on=False)


@api_view(["POST"], scope="write:bookmarks", user=True, limit=BOOKMARK_LIMIT)
def bookmark(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    bookmark_create(owner=request.user.handle, post_id=post["_id"])
    return _marked(request, post, bookmarked=True)


@api_view(["POST"], scope="write:bookmarks", user=True, limit=BOOKMARK_LIMIT)
def unbookmark(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    bookmark_delete(owner=request.user.handle, post_id=post["_id"])
    return _marked(request, post, bookmarked=False)


@api_view(["POST"], scope="write:accounts", user=True, limit=PIN_LIMIT)
def pin(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    if post["by"]["id"] != request.user.handle:
        raise Http404
    try:
        pins.post_pin(user=request.user, post=post)
    except pins.NotYours as exc:
        raise Http404 from exc
    except pins.PinError as exc:
        raise ApiError(422, f"Validation failed: {exc}") from exc
    return _marked(request, post, pinned=True)


@api_view(["POST"], scope="write:accounts", user=True, limit=PIN_LIMIT)
def unpin(request: HttpRequest, params: Params, status_id: str) -> dict:
    post = visible_post(request, status_id)
    if post["by"]["id"] != request.user.handle:
        raise Http404
    pins.post_unpin(user=request.user, post_id=post["_id"])
    return _marked(request, post, pinned=False)


def _markers(request: HttpRequest, params: Params, status_id: str, kind: str) -> JsonResponse:
    """Who liked or reposted it, in handle order, paged with a Link header."""
    post = visible_post(request, status_id)
    window = paging.window(params, parse_handle, default=ACCOUNTS_DEFAULT, maximum=ACCOUNTS_MAX)
    before = window.min_id or window.since_id
    handles, more = marks.markers_page(
        kind,
        post["_id"],
        after=None if before else window.max_id,
        before=before,
        size=window.limit,
    )
    hidden = set(request.user.blocked or ()) if request.user.is_authenticated else set()
    base = base_of(request)
    items = [account(user, base) for user in people.accounts(handles) if user.handle not in hidden]
    return paging.paged(
        request,
        items,
        first_id=handles[0] if handles else None,
        last_id=handles[-1] if handles else None,
        more=more,
    )


@api_view(["GET"], scope="read:statuses", user=None)
def favourited_by(request: HttpRequest, params: Params, status_id: str) -> JsonResponse:
    return _markers(request, params, status_id, "like")


@api_view(["GET"], scope="read:statuses", user=None)
def reblogged_by(request: HttpRequest, params: Params, status_id: str) -> JsonResponse:
    return _markers(request, params, status_id, "repost")


# Used by api/views/polls.py: a poll's entity as the reader sees it.
def poll_of(request: HttpRequest, post: dict, choice: int | None) -> dict:
    viewer = request.user
    return poll_entity(post, choice, viewer.handle if viewer.is_authenticated else None)
