"""The email address, its verification, and the password reset it allows
(docs/accounts.md)."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from profiles import auth, tasks
from profiles.documents import User
from profiles.forms import EmailChangeForm, EmailForm, SetPasswordForm
from profiles.services import recovery
from profiles.views import confirm
from socialsite import mail, ratelimit
from socialsite.http import login_required

INVALID_LINK = (
    "This link is not valid any more: it expired, was used already, "
    "or was replaced by a newer one."
)


def _link_invalid(request: HttpRequest, kind: str) -> HttpResponse:
    """The page for a dead mailed link; `kind` (verify, reset, undo) picks
    the way on that suits what the link was for."""
    context = {"reason": INVALID_LINK, "kind": kind}
    return render(request, "accounts/link_invalid.html", context, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def email(request: HttpRequest) -> HttpResponse:
    """Change the address: with the password (and code), since whoever holds
    the address can reset the password; the old address is told, with a
    link that undoes the change for 7 days."""
    user = request.user
    form = EmailChangeForm(
        request.POST if request.method == "POST" else None, needs_code=user.has_2fa
    )
    status = 200
    if request.method == "POST":
        ok, status = confirm.proven(
            request,
            form,
            scope="password",
            rule=settings.RATELIMIT_PASSWORD,
            mismatch="That password"
            + (" and code do" if user.has_2fa else " does")
            + " not match your account.",
        )
        if ok:
            try:  # each change sends mail: limited per account
                ratelimit.hit("email", [f"user:{user.handle}"], settings.RATELIMIT_EMAIL)
            except ratelimit.RateLimited as exc:
                form.add_error(None, str(exc))
                status = 429
            else:
                _change(request, user, form.cleaned_data["email"])
                return redirect("profiles:email")
    return render(request, "accounts/email.html", {"form": form}, status=status)


def _change(request: HttpRequest, user: User, address: str) -> None:
    old = user.email
    token, undo = recovery.email_set(user=user, email=address)
    if undo:
        undo_link = request.build_absolute_uri(reverse("profiles:email_undo", args=[undo]))
        mail.send(
            old,
            "email_changed",
            {"name": user.name, "handle": user.handle, "new": user.email, "link": undo_link},
        )
    link = request.build_absolute_uri(reverse("profiles:email_verify", args=[token]))
    mail.send(user.email, "verify_email", {"name": user.name, "link": link})
    messages.success(request, f"We sent a link to {user.email}: open it to verify the address.")


@require_http_methods(["GET", "POST"])
def email_undo(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a replaced address. A GET only asks (mail
    programs open links to scan them); the POST puts the address back, ends
    every session, and goes straight on to a new password when the address
    was verified: whoever clicked it has just proved they read its mail."""
    found = recovery.email_undo_entry(token)
    if found is None:
        return _link_invalid(request, "undo")
    handle, entry = found
    if request.method == "GET":
        context = {"handle": handle, "address": entry["email"], "verified": entry["verified"]}
        return render(request, "accounts/email_undo.html", context)
    done = recovery.email_undo(token=token)
    if done is None:
        return _link_invalid(request, "undo")
    handle, verified = done
    auth.logout(request)
    reset = recovery.password_reset_for(handle=handle) if verified else None
    if reset:
        messages.success(
            request,
            "Your address is back and every session was logged out. Choose a new password now.",
        )
        return redirect("profiles:password_reset_confirm", token=reset)
    messages.success(
        request, "Your address is back and every session was logged out. Reset your password."
    )
    return redirect("profiles:password_reset")


@require_GET
def email_verify(request: HttpRequest, token: str) -> HttpResponse:
    handle = recovery.email_verify(token)
    if handle is None:
        return _link_invalid(request, "verify")
    messages.success(request, "Your email address is verified.")
    if request.user.is_authenticated and request.user.handle == handle:
        return redirect("profiles:email")
    return redirect("profiles:login")


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """Never tells whether the address belongs to an account: the answer is
    the same redirect either way, after the same work (two rate-limit
    counters and one task queued)."""
    form = EmailForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        address = recovery.normal_email(request.POST.get("email", ""))[:254]
        try:
            ratelimit.hit(
                "password_reset",
                [f"ip:{ratelimit.client_ip(request)}", f"email:{address}"],
                settings.RATELIMIT_PASSWORD_RESET,
            )
        except ratelimit.RateLimited as exc:
            form.add_error(None, str(exc))
            return render(request, "accounts/password_reset.html", {"form": form}, status=429)
        if form.is_valid():
            # Only queued: finding the account and mailing it happen in one
            # task, so a known and an unknown address cost this answer the same.
            tasks.password_reset_send.enqueue(
                form.cleaned_data["email"], request.build_absolute_uri("/").rstrip("/")
            )
            return redirect("profiles:password_reset_sent")
    return render(request, "accounts/password_reset.html", {"form": form})


@require_GET
def password_reset_sent(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/password_reset_sent.html")


@require_http_methods(["GET", "POST"])
def password_reset_confirm(request: HttpRequest, token: str) -> HttpResponse:
    user = recovery.password_reset_user(token)
    if user is None:
        return _link_invalid(request, "reset")
    form = SetPasswordForm(request.POST if request.method == "POST" else None, user=user)
    if request.method == "POST" and form.is_valid():
        done = recovery.password_reset(
            token=token, new_password=form.cleaned_data["new_password1"]
        )
        if done is None:  # used by another click meanwhile
            return _link_invalid(request, "reset")
        messages.success(
            request, "Your password is changed and every session was logged out. Log in again."
        )
        return redirect("profiles:login")
    return render(request, "accounts/password_reset_confirm.html", {"form": form, "who": user})
