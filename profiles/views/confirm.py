"""A form that proves the person at the keyboard owns the account: the
password, and a two-factor code when the account has one. Shared by the
pages that do something no stolen session should (changing the password or
the email address, turning two-factor login on or off, deleting the
account; docs/accounts.md#what-a-stolen-session-cannot-do).

Wrong attempts are limited per account, and each attempt takes its slot
before the password is checked (`ratelimit.reserve`), so a burst of
parallel guesses checks at most the limit; a right one gives it back."""

from django import forms
from django.contrib.auth.hashers import check_password
from django.http import HttpRequest

from profiles.services import twofactor
from socialsite import ratelimit


def proven(
    request: HttpRequest,
    form: forms.Form,
    *,
    scope: str,
    rule: str,
    mismatch: str,
    password_field: str = "password",  # noqa: S107 (a field name)
    error_field: str | None = None,
    with_code: bool = True,
) -> tuple[bool, int]:
    """(whether the bound `form` proves it, the status to answer otherwise):
    the form's own errors when it is invalid (nothing checked, nothing
    counted), 429 with the limit's message when too many attempts failed,
    else `mismatch` on `error_field` (the form's top by default), counted as
    one more failure. `with_code=False` checks the password alone (the
    code on the form is for something else: a new authenticator's first)."""
    if not form.is_valid():
        return False, 200
    user = request.user
    try:
        attempt = ratelimit.reserve([(scope, [f"user:{user.handle}"], rule)])
    except ratelimit.RateLimited as exc:
        form.add_error(None, str(exc))
        return False, 429
    data = form.cleaned_data
    right_password = check_password(data[password_field], user.password)
    if right_password and (
        not with_code or not user.has_2fa or twofactor.verify(user=user, code=data["code"])
    ):
        attempt.refund()
        return True, 200
    if right_password and with_code and user.has_2fa:
        user.reload()
        if twofactor.used_already(user=user, code=data["code"]):
            # The password was right and so was the code, but it was spent.
            form.add_error("code", twofactor.REUSED_CODE)
            return False, 200
    form.add_error(error_field, mismatch)
    return False, 200
