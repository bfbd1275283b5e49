"""`/dev/` (switch this session's models), `/dev/compare/` (one page under
every model) and `/dev/mail/` (the mail the site sent, where the demo's
mailbox keeps it), admins only: a reset link in that mail is a key to its
account, so not even moderators read it. Everyone else, anonymous visitors
included, gets the site's 404, so the pages' existence is not advertised."""

from collections.abc import Callable
from functools import wraps
from typing import Concatenate

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from devlens import compare as comparing
from devlens import selectors
from devlens.forms import ModelsForm
from socialsite import mail
from socialsite.active import COMMENT_STORES, TIMELINE_MODELS


def _only[**P](
    flag: str,
) -> Callable[
    [Callable[Concatenate[HttpRequest, P], HttpResponseBase]],
    Callable[Concatenate[HttpRequest, P], HttpResponseBase],
]:
    """A view for users whose `flag` is true; everyone else gets the 404."""

    def decorator(
        view: Callable[Concatenate[HttpRequest, P], HttpResponseBase],
    ) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
            if not getattr(request.user, flag, False):
                raise Http404("No such page.")
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


admin_only = _only("is_admin")


@admin_only
@require_safe
def mail_sent(request: HttpRequest) -> HttpResponse:
    """What the mailbox kept (socialsite/mail.py), newest first, so that a
    reset or a verification can be finished on the demo alone."""
    return render(
        request,
        "devlens/mail.html",
        {
            "messages_kept": mail.mailbox(),
            "keeps_mail": mail.keeps_mail(),
            "backend": mail.backend(),
        },
    )


def _page(request: HttpRequest, form: ModelsForm, status: int = 200) -> HttpResponse:
    session = request.session
    return render(
        request,
        "devlens/switch.html",
        {
            "form": form,
            "in_use": selectors.models_in_use(session),
            "ignored": selectors.ignored_choices(session),
            "shadows_on": selectors.shadows_on(),
            "maintained": sorted(selectors.maintained_timeline_models()),
            "maintained_stores": sorted(selectors.maintained_comment_stores()),
            "last": selectors.last_page(session),
            "timeline_models": TIMELINE_MODELS,
            "comment_stores": COMMENT_STORES,
        },
        status=status,
    )


@admin_only
@require_http_methods(["GET", "POST"])
def switch(request: HttpRequest) -> HttpResponse:
    session = request.session
    if request.method == "GET":
        # From now on this session records what each page it views costs.
        if not session.get(selectors.SESSION_RECORDING):
            session[selectors.SESSION_RECORDING] = True
        in_use = {row.name: row.value for row in selectors.models_in_use(session)}
        form = ModelsForm(
            initial={
                "timeline_model": in_use["timeline model"],
                "embed": in_use["entries"] == "embed",
                "comment_store": in_use["comment store"],
            }
        )
        return _page(request, form)
    if "reset" in request.POST:
        session.pop(selectors.SESSION_CHOICE, None)
        messages.success(request, "Back to the models the settings name.")
        return redirect("devlens:switch")
    form = ModelsForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    session[selectors.SESSION_CHOICE] = form.choice()
    for warning in form.warnings():
        messages.warning(request, warning)
    messages.success(request, "Switched: this session's pages now read through these models.")
    return redirect("devlens:switch")


@admin_only
@require_safe
def compare(request: HttpRequest) -> HttpResponse:
    raw = request.GET.get("path")
    try:
        target = comparing.parse_target(raw)
    except comparing.BadPath as exc:
        context = {"error": str(exc), "path": raw if isinstance(raw, str) else ""}
        return render(request, "devlens/compare.html", context, status=400)
    comparison = comparing.compare(request, target)
    return render(
        request,
        "devlens/compare.html",
        {
            "c": comparison,
            "path": target.full_path,
            "shadows_on": selectors.shadows_on(),
            "pull_threshold": settings.FEED_PULL_THRESHOLD,
            "pulled_authors": selectors.pulled_authors(),
        },
    )
