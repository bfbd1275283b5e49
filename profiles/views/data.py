"""Taking one's data along (`/settings/export/`) and leaving
(`/settings/delete/`): docs/accounts.md#export-and-erasure."""

from django.conf import settings
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from profiles import auth
from profiles.documents import DataExport
from profiles.forms import AccountDeleteForm
from profiles.services import erasure, exports
from profiles.views import confirm
from socialsite.clock import aware, now
from socialsite.http import login_required
from socialsite.ids import parse_object_id


@login_required
@require_http_methods(["GET", "POST"])
def export(request: HttpRequest) -> HttpResponse:
    handle = request.user.handle
    status = 200
    if request.method == "POST":
        try:
            exports.export_request(handle=handle)
        except exports.ExportRefused as exc:
            messages.error(request, str(exc))
            status = 429
        else:
            messages.success(request, "Your export is being built. It shows here when ready.")
            return redirect("profiles:export")
    latest = DataExport.objects(owner=handle).order_by("-requested").first()
    downloadable = (
        latest is not None
        and latest.state == "ready"
        and latest.expires is not None
        and aware(latest.expires) > now()
    )
    context = {
        "export": latest,
        "downloadable": downloadable,
        "keep_days": settings.EXPORT_KEEP_DAYS,
        "max_bytes": settings.EXPORT_MAX_BYTES,
    }
    return render(request, "accounts/export.html", context, status=status)


@login_required
@require_GET
def export_download(request: HttpRequest, export_id: str) -> HttpResponse:
    oid = parse_object_id(export_id)
    found = oid and exports.export_file(handle=request.user.handle, export_id=oid)
    if not found:  # someone else's, expired, unknown: all the same
        raise Http404("No such export")
    response = FileResponse(found, as_attachment=True, filename=found.filename)
    response["Content-Type"] = "application/zip"
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = AccountDeleteForm(
        request.POST if request.method == "POST" else None, needs_code=user.has_2fa
    )
    status = 200
    if request.method == "POST":
        ok, status = confirm.proven(
            request,
            form,
            scope="account_delete",
            rule=settings.RATELIMIT_ACCOUNT_DELETE,
            mismatch="That password (or code) does not match your account.",
        )
        if ok:
            erasure.erasure_begin(user=user)
            auth.logout(request)
            messages.success(request, "Your account is deleted. Goodbye.")
            return redirect("/")
    context = {"form": form, "hold_days": settings.HANDLE_HOLD_DAYS}
    return render(request, "accounts/delete.html", context, status=status)
