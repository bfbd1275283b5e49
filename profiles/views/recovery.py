"""The email address, its verification, and the password reset it allows
(docs/accounts.md)."""

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from profiles.forms import EmailForm, SetPasswordForm
from profiles.services import recovery
from socialsite import mail, ratelimit
from socialsite.http import login_required

INVALID_LINK = (
    "This link is not valid any more: it expired, was used already, "
    "or was replaced by a newer one."
)


@login_required
@require_http_methods(["GET", "POST"])
def email(request):
    user = request.user
    form = EmailForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        try:
            ratelimit.hit("email", [f"user:{user.handle}"], settings.RATELIMIT_EMAIL)
        except ratelimit.RateLimited as exc:
            form.add_error(None, str(exc))
            status = 429
        else:
            if form.is_valid():
                token = recovery.email_set(user=user, email=form.cleaned_data["email"])
                link = request.build_absolute_uri(reverse("profiles:email_verify", args=[token]))
                mail.send(user.email, "verify_email", {"name": user.name, "link": link})
                messages.success(
                    request, f"We sent a link to {user.email}: open it to verify the address."
                )
                return redirect("profiles:email")
    return render(request, "accounts/email.html", {"form": form}, status=status)


@require_GET
def email_verify(request, token):
    handle = recovery.email_verify(token)
    if handle is None:
        return render(request, "accounts/link_invalid.html", {"reason": INVALID_LINK}, status=400)
    messages.success(request, "Your email address is verified.")
    if request.user.is_authenticated and request.user.handle == handle:
        return redirect("profiles:email")
    return redirect("profiles:login")


@require_http_methods(["GET", "POST"])
def password_reset(request):
    """Never tells whether the address belongs to an account: the answer is
    the same redirect either way, and the work the two differ by (finding the
    account, queueing the mail) hashes nothing."""
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
            for user, token in recovery.password_reset_links(form.cleaned_data["email"]):
                link = request.build_absolute_uri(
                    reverse("profiles:password_reset_confirm", args=[token])
                )
                mail.send(
                    user.email,
                    "password_reset",
                    {"name": user.name, "handle": user.handle, "link": link},
                )
            return redirect("profiles:password_reset_sent")
    return render(request, "accounts/password_reset.html", {"form": form})


@require_GET
def password_reset_sent(request):
    return render(request, "accounts/password_reset_sent.html")


@require_http_methods(["GET", "POST"])
def password_reset_confirm(request, token):
    user = recovery.password_reset_user(token)
    if user is None:
        return render(request, "accounts/link_invalid.html", {"reason": INVALID_LINK}, status=400)
    form = SetPasswordForm(request.POST if request.method == "POST" else None, user=user)
    if request.method == "POST" and form.is_valid():
        done = recovery.password_reset(
            token=token, new_password=form.cleaned_data["new_password1"]
        )
        if done is None:  # used by another click meanwhile
            return render(
                request, "accounts/link_invalid.html", {"reason": INVALID_LINK}, status=400
            )
        messages.success(
            request, "Your password is changed and every session was logged out. Log in again."
        )
        return redirect("profiles:login")
    return render(request, "accounts/password_reset_confirm.html", {"form": form, "who": user})
