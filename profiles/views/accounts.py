"""Sign up, log in, log out, change password."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import date_format
from django.views.decorators.http import require_http_methods, require_POST

from profiles import auth, services
from profiles.documents import User
from profiles.forms import LoginForm, PasswordChangeForm, SignupForm
from profiles.views import confirm
from socialsite import ratelimit
from socialsite.http import login_required, safe_next
from socialsite.ids import parse_handle

BAD_LOGIN = "That handle and password don't match an account."


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    # Bound on every POST, even an empty one: the rate-limit error below is
    # added before validation, which an unbound form cannot take.
    form = SignupForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        try:
            ratelimit.hit(
                "signup",
                [f"ip:{ratelimit.client_ip(request)}"]
                + [f"handle:{h}" for h in [parse_handle(request.POST.get("username"))] if h],
                settings.RATELIMIT_SIGNUP,
            )
        except ratelimit.RateLimited as exc:
            form.add_error(None, str(exc))
            status = 429
        else:
            if form.is_valid():
                data = form.cleaned_data
                try:
                    user = services.user_create(
                        handle=data["username"], name=data["name"], password=data["password1"]
                    )
                except services.HandleTaken:
                    form.add_error("username", "That handle is taken.")
                else:
                    auth.login(request, user)
                    messages.success(request, f"Welcome to Socialsite, {user.name}!")
                    return redirect("profiles:profile_edit")
    return render(request, "accounts/signup.html", {"form": form}, status=status)


def _login_limits(request: HttpRequest, handle: str | None) -> list[tuple[str, list[str], str]]:
    """(scope, keys, rule) for failed logins: per IP, tightly per (handle, IP),
    loosely per handle, so failures from one address cannot lock the owner
    out from another."""
    ip = ratelimit.client_ip(request)
    limits = [("login", [f"ip:{ip}"], settings.RATELIMIT_LOGIN)]
    if handle:
        limits += [
            ("login_handle_ip", [f"{handle}@{ip}"], settings.RATELIMIT_LOGIN_FAILURES),
            ("login_handle", [f"handle:{handle}"], settings.RATELIMIT_LOGIN_HANDLE),
        ]
    return limits


def _suspended_message(user: User) -> str:
    until = user.suspended_until
    when = f" until {date_format(until, 'j F Y, H:i')} UTC" if until else ""
    return (
        f"This account is suspended{when} by the moderators, so it can't log in. "
        "Your password was right."
    )


@require_http_methods(["GET", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    next_url = safe_next(request, settings.LOGIN_REDIRECT_URL)
    if request.user.is_authenticated:
        return redirect(next_url)
    form = LoginForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        limits = _login_limits(request, parse_handle(form.cleaned_data["username"]))
        try:
            # The guess holds a slot before the password is checked, so a
            # burst of parallel guesses checks at most the limit.
            attempt = ratelimit.reserve(limits)
        except ratelimit.RateLimited as exc:
            form.add_error(None, str(exc))
            status = 429
        else:
            user, suspended = auth.credentials(
                form.cleaned_data["username"], form.cleaned_data["password"]
            )
            if suspended is not None:
                form.add_error(None, _suspended_message(suspended))
            elif user is None:
                form.add_error(None, BAD_LOGIN)  # the failure keeps its slot
            else:
                attempt.refund()  # only failures count: the owner is never locked out
                if user.has_2fa:
                    # The code comes next: no session until it passes.
                    response = redirect("profiles:login_2fa")
                    response.set_cookie(
                        auth.SECOND_STEP_COOKIE,
                        auth.second_step_token(user, next_url),
                        max_age=auth.SECOND_STEP_SECONDS,
                        httponly=True,
                        samesite="Lax",
                        secure=request.is_secure(),
                    )
                    return response
                auth.login(request, user)
                return redirect(next_url)
    return render(request, "accounts/login.html", {"form": form, "next": next_url}, status=status)


@require_POST
def logout(request: HttpRequest) -> HttpResponse:
    auth.logout(request)
    messages.info(request, "You are logged out.")
    return redirect("home")


@login_required
@require_http_methods(["GET", "POST"])
def password_change(request: HttpRequest) -> HttpResponse:
    form = PasswordChangeForm(request.POST or None, user=request.user)
    status = 200
    if request.method == "POST":
        # Wrong current passwords are limited like failed logins: a session
        # left open must not become a way to guess the password.
        ok, status = confirm.proven(
            request,
            form,
            scope="password",
            rule=settings.RATELIMIT_PASSWORD,
            mismatch="That is not your current password"
            + (" and code." if request.user.has_2fa else "."),
            password_field="old_password",
            error_field="old_password",
        )
        if ok:
            services.password_change(
                user=request.user,
                new_password=form.cleaned_data["new_password1"],
                keep_session=request.session.session_key,
            )
            auth.login(request, request.user)  # a fresh session key and hash here
            messages.success(request, "Password changed. Your other sessions were logged out.")
            return redirect("profiles:profile_edit")
    return render(request, "accounts/password.html", {"form": form}, status=status)
