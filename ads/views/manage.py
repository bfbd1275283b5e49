"""Campaign management pages (docs/ads-api.md): `/ads/manage/...`.

Admins manage every campaign, advertisers their own; everyone else, signed
in or not, gets 404, so the pages do not even say they exist. Campaign and
unit ids come from the path and are parsed before any query
(docs/architecture.md#reliability-and-security-habits).
These pages never show ads.
"""

import csv
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ads import selectors, services
from ads.charts import daily_chart
from ads.documents import Campaign
from ads.forms import CampaignForm, UnitForm, campaign_initial
from profiles.documents import User

MANAGER_ROLES = ("admin", "advertiser")
# A spreadsheet runs a cell that starts with one of these as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def manager_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user = request.user
        if not user.is_authenticated or getattr(user, "role", None) not in MANAGER_ROLES:
            raise Http404("Not found.")
        return view(request, *args, **kwargs)

    return wrapper


def _campaign_or_404(request: HttpRequest, campaign_id: str) -> Campaign:
    parsed = selectors.parse_campaign_id(campaign_id)
    campaign = selectors.managed_campaign(request.user, parsed) if parsed else None
    if campaign is None:
        raise Http404("No such campaign.")
    return campaign


def _report(request: HttpRequest, action: Callable[[], object], success: str) -> None:
    """Run a campaign action; say what it did, or why the service refused."""
    try:
        action()
    except services.AdsError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, success)


def _own_advertiser(user: User) -> str | None:
    """The advertiser name a user must create under: admins choose any
    (None), everyone else only their own handle."""
    return None if user.is_admin else user.handle


def _campaign_url(campaign_id: str) -> str:
    return f"/ads/manage/campaigns/{campaign_id}/"


@manager_required
@require_GET
def campaign_list(request: HttpRequest) -> HttpResponse:
    before = str(request.GET.get("before", ""))[:100] or None
    page = selectors.campaigns(request.user, before)
    return render(request, "ads/manage/list.html", {"page": page, "campaigns": page.items})


@manager_required
@require_GET
def campaign_new(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(
        initial={"advertiser": request.user.handle, "cap_count": 0, "cap_hours": 0},
        own_advertiser=_own_advertiser(request.user),
    )
    return render(request, "ads/manage/new.html", {"form": form})


@manager_required
@require_POST
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST, own_advertiser=_own_advertiser(request.user))
    if form.is_valid():
        data = form.cleaned_data
        try:
            campaign = services.campaign_create(
                owner=request.user.handle,
                advertiser=data["advertiser"],
                name=data["name"],
                ecpm=data["ecpm"],
                keywords=data["keywords"],
                cap_count=data["cap_count"],
                cap_hours=data["cap_hours"],
                budget=data["budget"],
                ends=data["ends"],
            )
        except services.AdsError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request, f"Campaign {campaign.name} created. Add a unit, then activate it."
            )
            return redirect(_campaign_url(campaign.id))
    return render(request, "ads/manage/new.html", {"form": form}, status=400)


@manager_required
@require_http_methods(["GET", "POST"])
def campaign_detail(request: HttpRequest, campaign_id: str) -> HttpResponse:
    """The campaign, its units, its report (`?format=csv`), and its edit form."""
    campaign = _campaign_or_404(request, campaign_id)
    if request.method == "POST":
        return _campaign_edit(request, campaign)
    if request.GET.get("format") == "csv":
        return _report_csv(campaign)
    return _campaign_page(request, campaign)


def _campaign_edit(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    form = CampaignForm(request.POST, editing=campaign)
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.campaign_update(
                campaign_id=campaign.id,
                name=data["name"],
                ecpm=data["ecpm"],
                keywords=data["keywords"],
                cap_count=data["cap_count"],
                cap_hours=data["cap_hours"],
                budget=data["budget"],
                ends=data["ends"],
            )
        except services.AdsError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Campaign saved.")
            return redirect(_campaign_url(campaign.id))
    return _campaign_page(request, campaign, edit_form=form, status=400)


def _campaign_page(
    request: HttpRequest,
    campaign: Campaign,
    *,
    edit_form: CampaignForm | None = None,
    unit_form: UnitForm | None = None,
    status: int = 200,
) -> HttpResponse:
    report = selectors.report(campaign)
    by_unit = {line.ad_unit_id: line for line in report.units}
    context = {
        "campaign": campaign,
        "units": [(unit, by_unit.get(unit.ad_unit_id)) for unit in campaign.units],
        "edit_form": edit_form
        or CampaignForm(initial=campaign_initial(campaign), editing=campaign),
        "unit_form": unit_form or UnitForm(),
        "report": report,
        "chart": daily_chart(report.days),
        "budget_left": None
        if campaign.budget is None
        else max(campaign.budget - report.total.spend, 0),
    }
    return render(request, "ads/manage/campaign.html", context, status=status)


def _cell(value: str) -> str:
    """A text cell a spreadsheet shows as text, never runs as a formula (OWASP)."""
    return "'" + value if value.startswith(FORMULA_PREFIXES) else value


def _report_csv(campaign: Campaign) -> HttpResponse:
    report = selectors.report(campaign)
    name = re.sub(r"[^a-z0-9_-]+", "-", campaign.id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{name}.csv"'
    response["Cache-Control"] = "private, no-store"
    writer = csv.writer(response)
    writer.writerow(["day", "ad_unit_id", "impressions", "clicks", "spend"])
    for line in report.rows:
        writer.writerow(
            [_cell(line.day), _cell(line.ad_unit_id), line.impressions, line.clicks, line.spend]
        )
    return response


@manager_required
@require_POST
def unit_add(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = _campaign_or_404(request, campaign_id)
    form = UnitForm(request.POST)
    if form.is_valid():
        try:
            services.unit_add(campaign_id=campaign.id, **form.cleaned_data)
        except services.AdsError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Unit {form.cleaned_data['ad_unit_id']} added.")
            return redirect(_campaign_url(campaign.id) + "#units")
    return _campaign_page(request, campaign, unit_form=form, status=400)


@manager_required
@require_POST
def unit_remove(request: HttpRequest, campaign_id: str, ad_unit_id: str) -> HttpResponse:
    campaign = _campaign_or_404(request, campaign_id)
    unit_id = selectors.parse_unit_id(ad_unit_id)
    if unit_id is None or all(unit.ad_unit_id != unit_id for unit in campaign.units):
        raise Http404("No such unit.")
    _report(
        request,
        lambda: services.unit_remove(campaign_id=campaign.id, ad_unit_id=unit_id),
        f"Unit {unit_id} removed.",
    )
    return redirect(_campaign_url(campaign.id) + "#units")


@manager_required
@require_POST
def campaign_activate(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = _campaign_or_404(request, campaign_id)
    _report(
        request,
        lambda: services.campaign_activate(campaign_id=campaign.id),
        "Campaign activated: its units are being served.",
    )
    return redirect(_campaign_url(campaign.id))


@manager_required
@require_POST
def campaign_deactivate(request: HttpRequest, campaign_id: str) -> HttpResponse:
    campaign = _campaign_or_404(request, campaign_id)
    _report(
        request,
        lambda: services.campaign_deactivate(campaign_id=campaign.id),
        "Campaign deactivated: its units are no longer served.",
    )
    return redirect(_campaign_url(campaign.id))
