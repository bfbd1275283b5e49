"""The pages people see about whole servers (docs/federation.md#moderation-and-safety):
the moderators' /mod/domains/ (rules, and the deliveries waiting on each
server) and a person's own domain blocks, listed beside their blocked
people on /circles/.

Every action is a POST that redirects back with a message (the site's
pattern, moderation/views.py); the rule form alone re-renders with its
errors and a 400, so what the moderator wrote is kept.
"""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from federation import delivery, moderation
from federation.forms import DomainForm, DomainRuleForm
from moderation.views import moderator_required
from profiles.services import remote
from socialsite import ratelimit
from socialsite.http import login_required, redirect_back


def _path_domain(value: str) -> str:
    """The domain in a URL's path: one a rule could have been made for, else 404."""
    try:
        return moderation.clean_domain(value)
    except moderation.DomainError:
        raise Http404("That is not a domain.") from None


@moderator_required
@require_http_methods(["GET", "POST"])
def domains(request: HttpRequest) -> HttpResponse:
    """The rules, a form for a new one (a POST here sets it), the backlog of
    deliveries by domain and the latest that failed for good."""
    form = DomainRuleForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            suspended = moderation.domain_rule_set(
                moderator=request.user,
                domain=data["domain"],
                level=data["level"],
                reason=data["reason"],
            )
        except moderation.DomainError as exc:
            form.add_error(None, str(exc))
        else:
            done = "blocked" if data["level"] == "block" else "silenced"
            note = f" {suspended} of its people suspended." if suspended else ""
            messages.success(request, f"{data['domain']} is {done}.{note}")
            return redirect("federation:domains")
    context = {
        "form": form,
        "rules": moderation.rules(),
        "backlog": delivery.backlog(),
        "failed": delivery.failed(),
    }
    status = 400 if form.is_bound else 200
    return render(request, "federation/domains.html", context, status=status)


@moderator_required
@require_POST
def domain_lift(request: HttpRequest, domain: str) -> HttpResponse:
    """Lift a rule: a block's suspensions of the domain's people end with it.

    Only a rule that exists is lifted: `domain_rule_delete` unsuspends every
    suspended person of the domain, which for a domain with no rule would
    undo suspensions moderators made one by one."""
    domain = _path_domain(domain)
    if moderation.rule_of(domain) is None:
        messages.error(request, f"{domain} has no rule to lift.")
    else:
        moderation.domain_rule_delete(moderator=request.user, domain=domain)
        messages.success(request, f"The rule on {domain} is lifted.")
    return redirect("federation:domains")


@moderator_required
@require_POST
def domain_retry(request: HttpRequest, domain: str) -> HttpResponse:
    """Try a domain's failed deliveries again (after its server is back)."""
    domain = _path_domain(domain)
    if moderation.is_blocked(domain):
        # Nothing is sent to a blocked server: the sends would drop them.
        messages.error(request, f"{domain} is blocked: nothing is sent to it.")
        return redirect("federation:domains")
    count = delivery.retry_failed(domain=domain)
    messages.success(
        request, f"{count} failed deliver{'y' if count == 1 else 'ies'} to {domain} queued again."
    )
    return redirect("federation:domains")


def _circles() -> str:
    return reverse("profiles:circles") + "#blocked-domains"


@login_required
@require_POST
def domain_block(request: HttpRequest) -> HttpResponse:
    """A person hides a server for themselves: its people they know are
    blocked now, and those met later as they arrive."""
    form = DomainForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors.get("domain", ["Write a domain."])))
        return redirect_back(request, _circles())
    domain = form.cleaned_data["domain"]
    try:
        # Each of the server's people known here is blocked, feeds pruned:
        # limited as one person's blocks are (profiles/views/people.py).
        ratelimit.hit("follow", [f"user:{request.user.handle}"], settings.RATELIMIT_FOLLOW)
    except ratelimit.RateLimited as exc:
        messages.error(request, str(exc))
        return redirect_back(request, _circles())
    count = moderation.person_blocks_domain(user=request.user, domain=domain)
    known = f" {count} of its people you knew are blocked." if count else ""
    messages.success(request, f"You blocked {domain}.{known}")
    return redirect_back(request, _circles())


@login_required
@require_POST
def domain_unblock(request: HttpRequest) -> HttpResponse:
    """The domain block ends; the blocks of its people it made stay (each is
    lifted from its person, as any block), since some may have been the
    person's own choice before."""
    try:
        domain = moderation.clean_domain(request.POST.get("domain"))
    except moderation.DomainError as exc:
        messages.error(request, str(exc))
        return redirect_back(request, _circles())
    if domain not in (request.user.blocked_domains or ()):
        messages.error(request, f"You have not blocked {domain}.")
    else:
        remote.domain_block_remove(user=request.user, domain=domain)
        messages.success(request, f"You unblocked {domain}.")
    return redirect_back(request, _circles())
