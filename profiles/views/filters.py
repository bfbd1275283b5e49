"""`/settings/filters/`: the reader's keyword filters, a form to add one, and
a button to delete each (docs/privacy.md#keyword-filters)."""

import re

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from profiles.documents import User
from profiles.filters import MAX_FILTERS, contexts_label, stored_filters
from profiles.forms import KeywordFilterForm
from profiles.services import filters as services
from socialsite import clock, ratelimit
from socialsite.http import login_required

# A filter's id as `keyword_filter_create` makes them (an ObjectId's hex).
FILTER_ID = re.compile(r"[0-9a-f]{24}")


def _limited(request: HttpRequest) -> ratelimit.RateLimited | None:
    """Count one of the reader's filter writes; the refusal if over the limit."""
    try:
        ratelimit.hit("filters", [f"user:{request.user.handle}"], settings.RATELIMIT_FILTERS)
    except ratelimit.RateLimited as exc:
        return exc
    return None


def _page(request: HttpRequest, form: KeywordFilterForm, status: int = 200) -> HttpResponse:
    context = {"form": form, "filters": _listed(request.user), "max_filters": MAX_FILTERS}
    return render(request, "profiles/filters.html", context, status=status)


def _listed(user: User) -> list[dict]:
    """The filters as the page lists them, expired ones marked."""
    moment = clock.now()
    return [
        {
            "filter": kept,
            "contexts": contexts_label(kept.contexts),
            "expired": kept.expired(moment),
        }
        for kept in stored_filters(user.filters)
    ]


@login_required
@require_http_methods(["GET", "POST"])
def filter_list(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = KeywordFilterForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if refused := _limited(request):
            form.is_valid()  # cleaned_data, for the error below
            form.add_error(None, str(refused))
            status = 429
        elif form.is_valid():
            data = form.cleaned_data
            try:
                made = services.keyword_filter_create(
                    user=user,
                    phrase=data["phrase"],
                    contexts=data["context"],
                    action=data["action"],
                    expires_in=services.EXPIRY_CHOICES[data["expires"]],
                )
            except services.FilterError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"Filter “{made.phrase}” added.")
                return redirect("profiles:filters")
    return _page(request, form, status)


@login_required
@require_POST
def filter_delete(request: HttpRequest, filter_id: str) -> HttpResponse:
    if not FILTER_ID.fullmatch(filter_id):
        raise Http404("No such filter")
    if refused := _limited(request):
        messages.error(request, str(refused))
        return _page(request, KeywordFilterForm(), 429)
    if not services.keyword_filter_delete(user=request.user, filter_id=filter_id):
        raise Http404("No such filter")
    messages.success(request, "Filter deleted.")
    return redirect("profiles:filters")
