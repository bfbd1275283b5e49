"""`/settings/`: every setting a person has, in one place (docs/features.md#routes).

The settings pages share one sub-navigation (templates/profiles/_settings_nav.html);
this page lists the same sections, each with what it is for.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from socialsite.http import login_required


@login_required
@require_GET
def settings_index(request: HttpRequest) -> HttpResponse:
    return render(request, "profiles/settings.html")
