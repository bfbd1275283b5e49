"""Reports (docs.joinmastodon.org/methods/reports): filed through the
report page's own service, with its reasons, checks and rate limit
(docs/api.md#reports, docs/moderation.md#reports).

Our reports are one person's report of one item. A Mastodon report names
an account and, optionally, some of its statuses: with statuses, each is
filed as a report of that post or comment; without, the account is. The
category is our reason (`spam`, `legal` = illegal, `violation` =
harassment, `other`); we have no server rules, so `rule_ids` are refused,
and nothing is forwarded (every account is ours).
"""

from django.conf import settings
from django.http import Http404, HttpRequest

from api.entities.account import account
from api.entities.discovery import REASON_OF_CATEGORY, report
from api.entities.status import parse_status_id
from api.http import ApiError, api_view
from api.params import Params
from api.views.common import person_or_404
from api.views.sight import visible_status
from moderation import selectors as moderation
from moderation import services as moderation_services
from moderation.documents import Report
from moderation.targets import Target, resolve_target
from socialsite import ratelimit
from socialsite.clock import now

#: The most statuses one report names.
STATUSES_MAX = 20
#: The longest comment (a report's note).
COMMENT_MAX = Report.note.max_length


def _targets(request: HttpRequest, params: Params, handle: str) -> tuple[list[Target], list[str]]:
    """What is reported: each status (seen by the reporter, and by the
    reported account), or the account."""
    status_ids = list(dict.fromkeys(params.getlist("status_ids")))
    if len(status_ids) > STATUSES_MAX:
        raise ApiError(422, f"Validation failed: at most {STATUSES_MAX} statuses in one report")
    targets = []
    for status_id in status_ids:
        if parse_status_id(status_id) is None:
            raise Http404
        post, comment = visible_status(request, status_id)
        if comment is None:
            author, found = post["by"]["id"], resolve_target("post", str(post["_id"]))
        else:
            author = comment.author.get("id")
            found = resolve_target("comment", f"{post['_id']}/{comment.slug}")
        if author != handle:
            raise ApiError(422, "Validation failed: a status reported is not by that account")
        if found is None:
            raise Http404
        targets.append(found)
    if not targets:
        found = resolve_target("user", handle)
        if found is None:
            raise Http404
        targets.append(found)
    return targets, status_ids


@api_view(["POST"], scope="write:reports", user=True, limit=("report", "RATELIMIT_REPORT"))
def reports(request: HttpRequest, params: Params) -> dict:
    """`account_id`, `status_ids[]`, `comment`, `category`, `forward`,
    `rule_ids[]`: a report for the moderators' queue."""
    person = person_or_404(params.get("account_id"))
    if person.handle == request.user.handle:
        raise ApiError(422, "Validation failed: you can't report yourself")
    category = (params.get("category") or "other").strip()
    if category not in REASON_OF_CATEGORY:
        raise ApiError(422, "Validation failed: category is spam, legal, violation or other")
    if [r for r in params.getlist("rule_ids") if r]:
        raise ApiError(422, "Validation failed: this server has no rules to cite (rule_ids)")
    comment = params.get("comment") or ""
    if len(comment) > COMMENT_MAX:
        raise ApiError(422, f"Validation failed: the comment is at most {COMMENT_MAX} characters")
    reason = REASON_OF_CATEGORY[category]
    targets, status_ids = _targets(request, params, person.handle)
    for _extra in targets[1:]:
        # Each item filed counts against the report page's limit, as one
        # report there would (the request itself counted the first).
        try:
            ratelimit.hit("report", [f"user:{request.user.handle}"], settings.RATELIMIT_REPORT)
        except ratelimit.RateLimited as exc:
            raise ApiError(429, str(exc), {"Retry-After": str(exc.retry_after)}) from exc
    for target in targets:
        try:
            moderation_services.report_create(
                reporter=request.user, target=target, reason=reason, note=comment
            )
        except moderation_services.ModerationError as exc:
            raise ApiError(422, f"Validation failed: {exc}") from exc
    first = targets[0]
    kept = moderation.report_of(first.type, first.id, request.user.handle)
    return report(
        report_id=str(kept["_id"]) if kept else "",
        reason=reason,
        comment=comment,
        created=kept["created"] if kept else now(),
        status_ids=status_ids,
        target_account=account(person, request.build_absolute_uri("/").rstrip("/")),
    )
