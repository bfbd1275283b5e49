"""Two-factor login: TOTP (RFC 6238) codes from any authenticator app, and
recovery codes for when the phone is lost (docs/accounts.md#two-factor-login).

Each check that a code may be used happens in the update that records its
use: a TOTP code's time step must be newer than the last one accepted
(`totp_step`), so a code never works twice, not even in two requests at
once; a recovery code's hash is pulled from the list, so each works once.
"""

import hashlib
import re
import secrets
import time

import pyotp
import segno
from django.conf import settings

from profiles.documents import User

RECOVERY_CODES = 10
SIX_DIGITS = re.compile(r"[0-9]{6}")
# A code of the step before or after this one still counts: a phone's clock
# a little off, a code typed as it changed.
DRIFT_STEPS = 1


class TwoFactorError(Exception):
    """A code that does not work (the message says so for the form)."""


def pending_secret(*, user: User) -> str:
    """The secret being enrolled, made on the first visit and kept until
    confirmed, so that a page reload shows the same QR code."""
    if user.totp_pending:
        return user.totp_pending
    secret = pyotp.random_base32()
    User._get_collection().update_one({"_id": user.handle}, {"$set": {"totp_pending": secret}})
    user.totp_pending = secret
    return secret


def qr_svg(*, user: User, secret: str) -> str:
    """The enrolment QR code as inline SVG: the `otpauth://` URI an app scans."""
    uri = pyotp.TOTP(secret).provisioning_uri(name=user.handle, issuer_name=settings.SITE_NAME)
    qr = segno.make(uri, error="m")
    return qr.svg_inline(scale=4, title="QR code for your authenticator app")


def _hash(code: str) -> str:
    return hashlib.sha256(_normal(code).encode()).hexdigest()


def _normal(code: str) -> str:
    return "".join(ch for ch in code.lower() if ch.isascii() and ch.isalnum())


def _new_codes() -> list[str]:
    """Ten codes of 10 random characters each (50 bits): a fast hash is enough."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return [
        "-".join("".join(secrets.choice(alphabet) for _ in range(5)) for _ in range(2))
        for _ in range(RECOVERY_CODES)
    ]


def _step_of(secret: str, code: str) -> int | None:
    """The time step whose TOTP code `code` is, within the drift; None if none."""
    code = code.strip().replace(" ", "")
    # ASCII digits only: str.isdigit() also takes "٣" or "²".
    if not SIX_DIGITS.fullmatch(code):
        return None
    totp = pyotp.TOTP(secret)
    now_step = int(time.time()) // totp.interval
    for step in range(now_step - DRIFT_STEPS, now_step + DRIFT_STEPS + 1):
        if secrets.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def enable(*, user: User, code: str) -> list[str]:
    """Turn two-factor login on with the pending secret, if `code` is its
    current code; returns the recovery codes, to be shown once."""
    secret = user.totp_pending
    step = _step_of(secret, code) if secret else None
    if step is None:
        raise TwoFactorError("That code is not the one your app shows now. Try the next one.")
    codes = _new_codes()
    done = User._get_collection().update_one(
        {"_id": user.handle, "totp_pending": secret},
        {
            "$set": {
                "totp_secret": secret,
                "totp_step": step,
                "recovery_codes": [_hash(c) for c in codes],
            },
            "$unset": {"totp_pending": ""},
        },
    )
    if not done.modified_count:
        raise TwoFactorError("Start again: this page is out of date.")
    user.totp_secret, user.totp_pending, user.totp_step = secret, None, step
    return codes


def verify(*, user: User, code: str) -> bool:
    """Whether `code` is a TOTP code not used before, or an unused recovery
    code (used up now). Either way it is spent in the update that checks it."""
    if not user.totp_secret or not isinstance(code, str) or len(code) > 64:
        return False
    step = _step_of(user.totp_secret, code)
    users = User._get_collection()
    if step is not None:
        done = users.update_one(
            {"_id": user.handle, "totp_step": {"$lt": step}}, {"$set": {"totp_step": step}}
        )
        return done.modified_count == 1
    hashed = _hash(code)
    done = users.update_one(
        {"_id": user.handle, "recovery_codes": hashed}, {"$pull": {"recovery_codes": hashed}}
    )
    return done.modified_count == 1


def used_already(*, user: User, code: str) -> bool:
    """Whether `code` is a right TOTP code that was used before (its step is
    no newer than the last accepted): after `verify` refused it, this says
    "wait for the next code" rather than "wrong". Reads nothing."""
    if not user.totp_secret or not isinstance(code, str) or len(code) > 64:
        return False
    step = _step_of(user.totp_secret, code)
    return step is not None and step <= (user.totp_step or 0)


REUSED_CODE = (
    "That code was used a moment ago, and each code works once: enter the next one your app shows."
)


def disable(*, user: User) -> None:
    User._get_collection().update_one(
        {"_id": user.handle},
        {
            "$unset": {"totp_secret": "", "totp_pending": "", "recovery_codes": ""},
            "$set": {"totp_step": 0},
        },
    )
    user.totp_secret, user.totp_pending, user.recovery_codes = None, None, []
