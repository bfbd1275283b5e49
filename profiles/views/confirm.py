"""A form that proves the person at the keyboard owns the account: the
password, and a two-factor code when the account has one. Shared by the
pages that do something no stolen session should (turning two-factor login
off, deleting the account). Wrong attempts are limited per account."""

from django.contrib.auth.hashers import check_password

from profiles.services import twofactor
from socialsite import ratelimit


def proven(request, form, *, scope: str, rule: str, mismatch: str) -> tuple[bool, int]:
    """(whether the bound `form` proves it, the status to answer otherwise):
    429 with the limit's message when too many attempts failed, else the
    form's own errors or `mismatch`, counted as one more failure."""
    user = request.user
    limit = (scope, [f"user:{user.handle}"], rule)
    try:
        ratelimit.check(*limit)
    except ratelimit.RateLimited as exc:
        form.is_valid()  # an error needs a cleaned form
        form.add_error(None, str(exc))
        return False, 429
    if not form.is_valid():
        return False, 200
    data = form.cleaned_data
    if check_password(data["password"], user.password) and (
        not user.has_2fa or twofactor.verify(user=user, code=data["code"])
    ):
        return True, 200
    ratelimit.count(*limit)
    form.add_error(None, mismatch)
    return False, 200
