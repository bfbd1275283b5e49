"""Moderation pages (`/mod/`) and the report control every user has."""

from collections.abc import Callable, Collection
from datetime import UTC, datetime
from functools import wraps
from typing import Concatenate, Literal, NoReturn

from bson import ObjectId
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from feeds import words
from feeds.selectors import pages as feed_selectors
from messaging import selectors as messaging
from moderation import selectors, services
from moderation.documents import REASONS, STATUSES, TARGET_TYPES
from moderation.targets import Target, resolve_target
from profiles import selectors as people
from profiles.documents import ROLES, User
from socialsite import ratelimit
from socialsite.http import login_redirect, login_required, redirect_back, safe_next
from socialsite.ids import handle_or_404, parse_handle
from socialsite.methods import page_of


def moderator_required[**P](
    view: Callable[Concatenate[HttpRequest, P], HttpResponseBase],
) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
    """Anonymous visitors are sent to log in; signed-in non-moderators get 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return login_redirect(request)
        if not request.user.is_moderator:
            raise PermissionDenied("Moderators only.")
        return view(request, *args, **kwargs)

    return wrapper


def _choice(request: HttpRequest, name: str, allowed: Collection[str]) -> str | None:
    value = request.GET.get(name) or request.POST.get(name)
    return value if value in allowed else None


def _cursors(request: HttpRequest) -> dict:
    """`?before=` (older rows) or `?after=` (newer rows): keyset cursors, as
    strings; the selectors parse them and take anything malformed as the start."""
    return {name: str(request.GET.get(name, ""))[:400] or None for name in ("before", "after")}


def _reason(request: HttpRequest) -> str:
    return str(request.POST.get("reason", ""))[:500].strip()


@login_required
@require_http_methods(["GET", "POST"])
def report(request: HttpRequest) -> HttpResponse:
    """Any signed-in user reports a post, a comment, a user or a message.

    A GET (`?target=`) is the report form on a page of its own: where a
    page's Report control links when no script opens the page's one report
    dialog in its place (docs/moderation.md#reports)."""
    posted = request.method == "POST"
    data = request.POST if posted else request.GET
    if not posted and "target" not in data:
        # The form's action reached without one (reloaded, or after logging
        # in): the page it belongs to, as for every action (socialsite/methods.py).
        return redirect(page_of(request.path))
    target = resolve_target(data.get("target"))
    if target is None or not _may_see(request.user, target):
        raise Http404("Nothing to report.")
    if not posted:
        return _report_page(request, target)
    try:
        # Every report lands in a moderator's queue: a flood of them is abuse too.
        ratelimit.hit("report", [f"user:{request.user.handle}"], settings.RATELIMIT_REPORT)
        is_new = services.report_create(
            reporter=request.user,
            target=target,
            reason=request.POST.get("reason"),
            note=str(request.POST.get("note", "")),
        )
    except (services.ModerationError, ratelimit.RateLimited) as exc:
        messages.error(request, str(exc))
    else:
        if is_new:
            messages.success(request, "Thanks. A moderator will look at it.")
        else:
            # One report per person: a second one says what the first says now.
            messages.info(
                request, "You reported this already: your report now has this reason and note."
            )
    return redirect_back(request, _back(target))


def _report_page(request: HttpRequest, target: Target) -> HttpResponse:
    # One's own, or what is gone already: no Report control leads here.
    if target.author == request.user.handle or target.gone:
        raise Http404("Nothing to report.")
    if target.type == "user":
        what, excerpt = f"@{target.id}", ""
    else:
        what, excerpt = WHAT[target.type], target.excerpt
        if target.author:
            what += f" by @{target.author}"
    context = {
        "target": target,
        "what": what,
        "excerpt": excerpt,
        "back": safe_next(request, _back(target)),
    }
    return render(request, "moderation/report.html", context)


WHAT = {"post": "a post", "comment": "a comment", "message": "a message"}


def _back(target: Target) -> str:
    """Where the reporter goes back to without a `next`: the item, or for a
    message (which has no link a moderator could follow) its conversation,
    which the reporter is in."""
    if target.type == "message":
        return reverse("messaging:conversation", args=[target.message_address[0]])
    return target.link


def _may_see(viewer: User, target: Target) -> bool:
    """A post, comment or message is reportable only by someone who may see
    it (else 404)."""
    if target.type == "user":
        return True
    if target.type == "message":
        # Only an active member reads a conversation (docs/messages.md), and a
        # message across a block is hidden from both sides of it.
        conversation_id, _ = target.message_address
        if not messaging.member_of(conversation_id, viewer.handle):
            return False
        author = target.author
        return not author or not (
            author in (viewer.blocked or ()) or people.blockers_among(viewer.handle, [author])
        )
    post_id = ObjectId(target.id.split("/")[0])  # parsed already by resolve_target
    return feed_selectors.post_for_viewer(post_id, viewer) is not None


@moderator_required
def dashboard(request: HttpRequest) -> HttpResponse:
    services.expire_suspensions()  # suspensions whose end date has passed
    return render(request, "moderation/dashboard.html", {"d": selectors.dashboard()})


@moderator_required
def reports(request: HttpRequest) -> HttpResponse:
    status = _choice(request, "status", STATUSES) or "open"
    target_type = _choice(request, "type", TARGET_TYPES)
    reason = _choice(request, "reason", REASONS)
    page = selectors.queue(
        status=status, target_type=target_type, reason=reason, **_cursors(request)
    )
    context = {
        "items": page.items,
        "page": page,
        "filters": {"status": status, "type": target_type or "", "reason": reason or ""},
        "statuses": STATUSES,
        "types": TARGET_TYPES,
        "reasons": REASONS,
    }
    return render(request, "moderation/reports.html", context)


@moderator_required
@require_POST
def act(request: HttpRequest) -> HttpResponse:
    """One action on one target: remove, restore or dismiss."""
    target = resolve_target(request.POST.get("key"))
    action = request.POST.get("action")
    handler = services.ACTIONS.get((target.type, action)) if target else None
    if target is None or handler is None:
        raise Http404("Unknown target or action.")
    try:
        handler(moderator=request.user, target=target, reason=_reason(request))
    except services.ModerationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"{PAST[action]}: {target.type} {target.excerpt or target.id}")
    return redirect_back(request, reverse("moderation:reports"))


PAST = {"remove": "Removed", "restore": "Restored", "dismiss": "Dismissed"}


@moderator_required
@require_POST
def bulk(request: HttpRequest) -> HttpResponse:
    action = _choice(request, "action", services.BULK_ACTIONS)
    keys = [k for k in request.POST.getlist("keys") if isinstance(k, str)][:200]
    if action is None or not keys:
        messages.error(request, "Select items and an action.")
        return redirect_back(request, reverse("moderation:reports"))
    if action == "remove" and not _reason(request):
        # Each author is told the reason (notifications): a bulk removal gives one.
        messages.error(request, "Give a reason for removing them: each author is told it.")
        return redirect_back(request, reverse("moderation:reports"))
    done, skipped = services.bulk(
        moderator=request.user, action=action, keys=keys, reason=_reason(request)
    )
    if done:
        messages.success(request, f"{PAST[action]}: {done} item{'s' if done != 1 else ''}.")
    if skipped:
        messages.error(request, "Not done: " + "; ".join(skipped[:10]))
    return redirect_back(request, reverse("moderation:reports"))


@moderator_required
def users(request: HttpRequest) -> HttpResponse:
    q = str(request.GET.get("q", ""))[:80].strip()
    after = str(request.GET.get("after", ""))[:30] or None
    page = selectors.find_users(q, parse_handle(after) if after else None)
    return render(request, "moderation/users.html", {"q": q, "found": page.items, "page": page})


@moderator_required
def user_detail(request: HttpRequest, handle: str) -> HttpResponse:
    overview = selectors.user_overview(handle_or_404(handle))
    if overview is None:
        raise Http404("No such user.")
    return render(request, "moderation/user.html", {**overview, "roles": ROLES})


@moderator_required
@require_POST
def user_suspend(request: HttpRequest, handle: str) -> HttpResponse:
    target = resolve_target("user", handle_or_404(handle)) or _missing()
    until = _parse_until(request.POST.get("until"))
    reason = _reason(request)
    if not reason or until is False:
        messages.error(request, "Give a reason, and an end date in the future (or none).")
        return redirect("moderation:user", handle=target.id)
    try:
        services.user_suspend(moderator=request.user, target=target, reason=reason, until=until)
    except services.ModerationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"@{target.id} is suspended.")
    return redirect("moderation:user", handle=target.id)


@moderator_required
@require_POST
def user_unsuspend(request: HttpRequest, handle: str) -> HttpResponse:
    target = resolve_target("user", handle_or_404(handle)) or _missing()
    try:
        services.user_unsuspend(moderator=request.user, target=target, reason=_reason(request))
    except services.ModerationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"@{target.id} is no longer suspended.")
    return redirect("moderation:user", handle=target.id)


@moderator_required
@require_POST
def user_role(request: HttpRequest, handle: str) -> HttpResponse:
    if not request.user.is_admin:
        raise PermissionDenied("Admins only.")
    target = resolve_target("user", handle_or_404(handle)) or _missing()
    try:
        services.role_set(actor=request.user, handle=target.id, role=request.POST.get("role"))
    except services.ModerationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"@{target.id}'s role changed.")
    return redirect("moderation:user", handle=target.id)


@moderator_required
def log(request: HttpRequest) -> HttpResponse:
    moderator = str(request.GET.get("moderator", ""))[:30].strip().lower() or None
    action = str(request.GET.get("action", ""))[:40].strip() or None
    target = str(request.GET.get("target", ""))[:240].strip() or None
    page = selectors.log(moderator=moderator, action=action, target=target, **_cursors(request))
    context = {
        "entries": page.items,
        "page": page,
        "filters": {"moderator": moderator or "", "action": action or "", "target": target or ""},
        "actions": selectors.actions(),
    }
    return render(request, "moderation/log.html", context)


def _missing() -> NoReturn:
    raise Http404("No such user.")


def _parse_until(raw: object) -> datetime | Literal[False] | None:
    """None for no end date, a future datetime, or False when invalid."""
    if not raw:
        return None
    try:
        until = datetime.strptime(str(raw)[:10], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return False
    return until if until > datetime.now(UTC) else False


@moderator_required
@require_POST
def tag_trend(request: HttpRequest, tag: str, action: str) -> HttpResponse:
    """Hide a tag from the trends, or show it again (docs/discovery.md#trends)."""
    folded = words.clean_tag(tag)
    if folded is None:
        raise Http404("That is not a tag.")
    act = services.tag_hide if action == "hide" else services.tag_show
    try:
        act(moderator=request.user, tag=folded, reason=_reason(request))
    except services.ModerationError as exc:
        messages.error(request, str(exc))
    else:
        done = "hidden from" if action == "hide" else "back in"
        messages.success(request, f"#{folded} is {done} the trends.")
    return redirect_back(request, reverse("explore:explore"))
