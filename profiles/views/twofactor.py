"""Two-factor login: turning it on and off (`/settings/2fa/`), and the code
step of a login (`/accounts/login/2fa/`) (docs/accounts.md#two-factor-login)."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from profiles import auth
from profiles.documents import User
from profiles.forms import TwoFactorCodeForm, TwoFactorEnrolForm, TwoFactorOffForm
from profiles.services import twofactor
from profiles.views import confirm
from socialsite import ratelimit
from socialsite.http import login_required


def _codes_text(user: User, codes: list[str]) -> str:
    """The recovery codes as the file the page offers to download or copy."""
    lines = [f"Socialsite recovery codes for @{user.handle}", "Each works once.", ""]
    return "\n".join([*lines, *codes, ""])


BAD_CODE = "That code does not work: use the one your app shows now, or an unused recovery code."


def _setup_page(request: HttpRequest, form: TwoFactorEnrolForm, status: int = 200) -> HttpResponse:
    user = request.user
    secret = twofactor.pending_secret(user=user)
    context = {"form": form, "secret": secret, "qr": twofactor.qr_svg(user=user, secret=secret)}
    return render(request, "accounts/twofactor_setup.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def settings_2fa(request: HttpRequest) -> HttpResponse:
    user = request.user
    if user.has_2fa:
        return _turn_off(request)
    form = TwoFactorEnrolForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        # The password first: a stolen session must not tie the account to
        # the thief's authenticator and lock its owner out.
        ok, status = confirm.proven(
            request,
            form,
            scope="password",
            rule=settings.RATELIMIT_PASSWORD,
            mismatch="That is not your password.",
            error_field="password",
            with_code=False,
        )
        if ok:
            try:
                codes = twofactor.enable(user=user, code=form.cleaned_data["code"])
            except twofactor.TwoFactorError as exc:
                form.add_error("code", str(exc))
            else:
                # Shown once: only their hashes are kept.
                return render(
                    request,
                    "accounts/twofactor_codes.html",
                    {"codes": codes, "codes_text": _codes_text(request.user, codes)},
                )
    return _setup_page(request, form, status)


def _turn_off(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = TwoFactorOffForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        # Wrong passwords and codes are limited as a password change's are.
        ok, status = confirm.proven(
            request,
            form,
            scope="password",
            rule=settings.RATELIMIT_PASSWORD,
            mismatch="That password and code do not match your account.",
        )
        if ok:
            twofactor.disable(user=user)
            messages.success(request, "Two-factor login is off.")
            return redirect("profiles:settings_2fa")
    left = len(user.recovery_codes or [])
    return render(
        request, "accounts/twofactor_on.html", {"form": form, "left": left}, status=status
    )


@require_http_methods(["GET", "POST"])
def login_2fa(request: HttpRequest) -> HttpResponse:
    step = auth.second_step(request.COOKIES.get(auth.SECOND_STEP_COOKIE))
    if step is None:
        messages.info(request, "Log in again: the code step expired.")
        response = redirect("profiles:login")
        response.delete_cookie(auth.SECOND_STEP_COOKIE)
        return response
    user, next_url = step
    form = TwoFactorCodeForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        ip = ratelimit.client_ip(request)
        limits = [
            ("login_2fa", [f"{user.handle}@{ip}"], settings.RATELIMIT_LOGIN_FAILURES),
            ("login_2fa_handle", [f"handle:{user.handle}"], settings.RATELIMIT_LOGIN_2FA),
        ]
        if form.is_valid():
            try:
                # The guess holds its slot before the code is checked.
                attempt = ratelimit.reserve(limits)
            except ratelimit.RateLimited as exc:
                form.add_error(None, str(exc))
                status = 429
            else:
                if twofactor.verify(user=user, code=form.cleaned_data["code"]):
                    attempt.refund()  # only failures count, as for passwords
                    auth.login(request, user)
                    response = redirect(next_url)
                    response.delete_cookie(auth.SECOND_STEP_COOKIE)
                    return response
                # A right code used already (this minute's, say) is not a wrong one.
                user.reload()
                reused = twofactor.used_already(user=user, code=form.cleaned_data["code"])
                form.add_error("code", twofactor.REUSED_CODE if reused else BAD_CODE)
    return render(request, "accounts/login_2fa.html", {"form": form, "who": user}, status=status)
