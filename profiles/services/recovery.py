"""A person's email address and the password reset it allows (docs/accounts.md).

Each function returns what the view needs to send (a token for a link); the
view queues the mail (`socialsite.mail`), since only it knows the site's
address. Every check that a link is still good happens in the update that
uses it (`email_nonce` / `reset_nonce` in the filter), so two clicks of one
link cannot both work.
"""

from django.contrib.auth.hashers import make_password

from profiles import tokens
from profiles.documents import User
from socialsite.sessions import end_sessions_of

# How long a link works (seconds): an address check 3 days, a reset 1 hour.
VERIFY_MAX_AGE = 3 * 24 * 3600
RESET_MAX_AGE = 3600


def normal_email(value: str) -> str:
    """The form an address is stored and looked up in: trimmed, lower-cased
    (the local part of real addresses is case-insensitive in practice)."""
    return value.strip().lower()


def email_set(*, user: User, email: str) -> str:
    """Give the account this address, not verified yet; returns the token of
    the link that verifies it (any earlier link stops working)."""
    address, nonce = normal_email(email), tokens.nonce()
    User._get_collection().update_one(
        {"_id": user.handle},
        {"$set": {"email": address, "email_verified": False, "email_nonce": nonce}},
    )
    user.email, user.email_verified, user.email_nonce = address, False, nonce
    return tokens.make(tokens.VERIFY_EMAIL, {"h": user.handle, "e": address, "n": nonce})


def email_verify(token: object) -> str | None:
    """Verify the address a link was sent to, once; returns the handle, or
    None if the link is forged, expired, used, or the address changed since."""
    payload = tokens.read(tokens.VERIFY_EMAIL, token, VERIFY_MAX_AGE)
    if payload is None or not all(isinstance(payload.get(k), str) for k in "hen"):
        return None
    done = User._get_collection().update_one(
        {"_id": payload["h"], "email": payload["e"], "email_nonce": payload["n"]},
        {"$set": {"email_verified": True}, "$unset": {"email_nonce": ""}},
    )
    return payload["h"] if done.modified_count else None


def password_reset_links(email: str) -> list[tuple[User, str]]:
    """For each active account whose verified address this is, a reset
    token (replacing any earlier one). Empty for an unknown or unverified
    address: the caller answers the same either way."""
    address = normal_email(email)
    found = []
    for user in User.objects(email=address, email_verified=True, status="active"):
        nonce = tokens.nonce()
        User._get_collection().update_one({"_id": user.handle}, {"$set": {"reset_nonce": nonce}})
        found.append((user, tokens.make(tokens.RESET_PASSWORD, {"h": user.handle, "n": nonce})))
    return found


def password_reset_user(token: object) -> User | None:
    """The account a reset link is good for now, or None."""
    payload = _reset_payload(token)
    if payload is None:
        return None
    return User.objects(handle=payload["h"], reset_nonce=payload["n"], status="active").first()


def password_reset(*, token: object, new_password: str) -> User | None:
    """Set the new password if the link is still good, in the update that
    uses it up, and end every session of the account; None if it is not."""
    payload = _reset_payload(token)
    if payload is None:
        return None
    done = User._get_collection().update_one(
        {"_id": payload["h"], "reset_nonce": payload["n"], "status": "active"},
        {"$set": {"password": make_password(new_password)}, "$unset": {"reset_nonce": ""}},
    )
    if not done.modified_count:
        return None
    end_sessions_of(payload["h"])
    return User.objects(handle=payload["h"]).first()


def _reset_payload(token: object) -> dict | None:
    payload = tokens.read(tokens.RESET_PASSWORD, token, RESET_MAX_AGE)
    if payload is None or not all(isinstance(payload.get(k), str) for k in "hn"):
        return None
    return payload
