"""A person's email address and the password reset it allows (docs/accounts.md).

Each function returns what the view needs to send (a token for a link); the
view queues the mail (`socialsite.mail`), since only it knows the site's
address. Every check that a link is still good happens in the update that
uses it (`email_nonce` / `reset_nonce` in the filter), so two clicks of one
link cannot both work.
"""

from django.contrib.auth.hashers import make_password
from django.urls import reverse

from profiles import tokens
from profiles.documents import User
from socialsite import durable, mail
from socialsite.clock import now
from socialsite.sessions import end_sessions_of

# How long a link works (seconds): an address check 3 days, a reset 1 hour,
# the undo of an address change 7 days.
VERIFY_MAX_AGE = 3 * 24 * 3600
RESET_MAX_AGE = 3600
UNDO_MAX_AGE = 7 * 24 * 3600
# Undo links kept per account: each change's own, the newest few.
UNDO_KEPT = 5


def normal_email(value: str) -> str:
    """The form an address is stored and looked up in: trimmed, lower-cased
    (the local part of real addresses is case-insensitive in practice)."""
    return value.strip().lower()


def email_set(*, user: User, email: str) -> tuple[str, str | None]:
    """Give the account this address, not verified yet. Returns the token of
    the link that verifies it, and, when it replaces another address, the
    token of the link that undoes the change (mailed to the old address).

    Every link minted before stops working: the verification's nonce is
    replaced and the reset's removed, so a reset link sent to the old
    address cannot be used once the address is someone else's."""
    address, nonce = normal_email(email), tokens.nonce()
    old, was_verified = user.email, bool(user.email_verified)
    update: dict = {
        "$set": {"email": address, "email_verified": False, "email_nonce": nonce},
        "$unset": {"reset_nonce": ""},
    }
    undo = None
    if old and old != address:
        undo_nonce = tokens.nonce()
        entry = {
            "n": undo_nonce,
            "email": old,
            "verified": was_verified,
            "had_2fa": user.has_2fa,
            "at": now(),
        }
        update["$push"] = {"email_undos": {"$each": [entry], "$slice": -UNDO_KEPT}}
        undo = tokens.make(tokens.UNDO_EMAIL, {"h": user.handle, "n": undo_nonce})
    User._get_collection().update_one({"_id": user.handle}, update)
    user.email, user.email_verified, user.email_nonce = address, False, nonce
    user.reset_nonce = None
    return tokens.make(tokens.VERIFY_EMAIL, {"h": user.handle, "e": address, "n": nonce}), undo


def email_undo_entry(token: object) -> tuple[str, dict] | None:
    """(handle, what the change replaced) for a good undo link, or None."""
    payload = tokens.read(tokens.UNDO_EMAIL, token, UNDO_MAX_AGE)
    if payload is None or not all(isinstance(payload.get(k), str) for k in "hn"):
        return None
    row = User._get_collection().find_one(
        {"_id": payload["h"], "email_undos.n": payload["n"], "status": "active"},
        {"email_undos": 1},
    )
    if row is None:
        return None
    entry = next(e for e in row["email_undos"] if e.get("n") == payload["n"])
    return payload["h"], entry


def email_undo(*, token: object) -> tuple[str, bool] | None:
    """Put back the address a change replaced, once, and end every session
    of the account: whoever changed it may hold one. Two-factor login turned
    on since the change is turned off (the password is reset next), and the
    other undo links and every pending link go. Returns (handle, whether the
    restored address is verified), or None for a link that is not good."""
    found = email_undo_entry(token)
    if found is None:
        return None
    handle, entry = found
    unset = {"email_nonce": "", "reset_nonce": ""}
    restore: dict = {"email": entry["email"], "email_verified": bool(entry["verified"])}
    if not entry.get("had_2fa"):
        unset.update({"totp_secret": "", "totp_pending": "", "recovery_codes": ""})
        restore["totp_step"] = 0
    done = User._get_collection().update_one(
        {"_id": handle, "email_undos.n": entry["n"]},
        {"$set": {**restore, "email_undos": []}, "$unset": unset},
    )
    if not done.modified_count:  # used by another click meanwhile
        return None
    end_sessions_of(handle)
    return handle, bool(entry["verified"])


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
    mark = durable.running_mark()
    for user in User.objects(email=address, email_verified=True, status="active"):
        # A second run of the same queued request (socialsite/durable.py) mints
        # the same nonce, so it changes nothing and mails the same link.
        nonce = tokens.nonce_for(f"reset:{mark}:{user.handle}") if mark else tokens.nonce()
        User._get_collection().update_one(
            {"_id": user.handle, "email": address}, {"$set": {"reset_nonce": nonce}}
        )
        payload = {"h": user.handle, "e": address, "n": nonce}
        found.append((user, tokens.make(tokens.RESET_PASSWORD, payload)))
    return found


def password_reset_for(*, handle: str) -> str | None:
    """A reset token for the account, minted on the spot: after an undo,
    the restored address has just proved itself (profiles/views/recovery.py)."""
    user = User.objects(handle=handle, status="active", email_verified=True).first()
    if user is None or not user.email:
        return None
    nonce = tokens.nonce()
    User._get_collection().update_one(
        {"_id": handle, "email": user.email}, {"$set": {"reset_nonce": nonce}}
    )
    return tokens.make(tokens.RESET_PASSWORD, {"h": handle, "e": user.email, "n": nonce})


def password_reset_user(token: object) -> User | None:
    """The account a reset link is good for now, or None."""
    payload = _reset_payload(token)
    if payload is None:
        return None
    return User.objects(
        handle=payload["h"], email=payload["e"], reset_nonce=payload["n"], status="active"
    ).first()


def password_reset(*, token: object, new_password: str) -> User | None:
    """Set the new password if the link is still good, in the update that
    uses it up, and end every session of the account; None if it is not."""
    payload = _reset_payload(token)
    if payload is None:
        return None
    done = User._get_collection().update_one(
        {
            "_id": payload["h"],
            "email": payload["e"],
            "reset_nonce": payload["n"],
            "status": "active",
        },
        {"$set": {"password": make_password(new_password)}, "$unset": {"reset_nonce": ""}},
    )
    if not done.modified_count:
        return None
    end_sessions_of(payload["h"])
    return User.objects(handle=payload["h"]).first()


def _reset_payload(token: object) -> dict | None:
    payload = tokens.read(tokens.RESET_PASSWORD, token, RESET_MAX_AGE)
    # The address is in the link too: a link minted for an address the
    # account no longer has is dead even if its nonce were somehow left.
    if payload is None or not all(isinstance(payload.get(k), str) for k in "hen"):
        return None
    return payload


def password_reset_send(*, address: str, site: str) -> int:
    """The whole work of a reset request, run as one task: find the accounts
    whose verified address this is and mail each its link. The request only
    queues this, so a known and an unknown address cost it the same
    (docs/accounts.md#password-reset). `site` is the scheme and host the
    request came to. Returns how many were sent."""
    sent = 0
    for user, token in password_reset_links(address):
        link = site + reverse("profiles:password_reset_confirm", args=[token])
        context = {"name": user.name, "handle": user.handle, "link": link}
        # Sent here, not queued again: this is already the background.
        sent += mail.deliver.call(user.email, "password_reset", context)
    return sent
