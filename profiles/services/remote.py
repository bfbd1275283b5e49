"""People of other servers, kept in `user` like our own (docs/federation.md).

A remote person is a `user` whose handle names their domain
(`ada@other.example`), with the `domain` and what their actor document said
(`actor`), so every page, timeline model, block, mute, filter and moderation
tool works on them unchanged. They never sign in: their password is Django's
unusable one. The federation app reads their actor documents and calls this
module; nothing else writes these fields.
"""

from django.forms import ValidationError
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from profiles.documents import User
from profiles.names import clean_display_name, has_visible_letter, name_terms
from socialsite import events
from socialsite.clock import now
from socialsite.ids import REMOTE_HANDLE_RE

#: Django's mark of a password nobody can sign in with.
UNUSABLE_PASSWORD = "!remote"


def remote_user_upsert(
    *, handle: str, domain: str, name: str, bio: str, actor: dict, website: str = ""
) -> tuple[User, bool]:
    """Store or refresh a remote person; (their user, whether new).

    One upsert on `_id`. Two inboxes meeting the same new person at once
    race on it: the loser gets E11000 on `_id` and its second try matches
    the document the winner inserted."""
    if not REMOTE_HANDLE_RE.fullmatch(handle) or not handle.endswith("@" + domain):
        raise ValueError(f"invalid remote handle: {handle!r}")
    shown = _shown_name(name) or handle.split("@", 1)[0]
    fields = {
        "name": shown[:80],
        "name_terms": name_terms(shown),
        "profile.bio": bio[:500],
        "profile.website": website[:200],
        "domain": domain,
        "actor": {**actor, "fetched": now()},
    }
    for attempt in range(2):
        try:
            before = User._get_collection().find_one_and_update(
                {"_id": handle},
                {
                    "$set": fields,
                    "$setOnInsert": {
                        "password": UNUSABLE_PASSWORD,
                        "role": "user",
                        "status": "active",
                        "created": now(),
                        "last_seen": now(),
                    },
                },
                upsert=True,
                return_document=ReturnDocument.BEFORE,
                projection={"_id": 1},
            )
            break
        except DuplicateKeyError:
            if attempt:
                raise
    user = User.objects(handle=handle).first()
    assert user is not None
    if before is None:
        # Their timelines, as for anyone new (their wall holds their posts).
        events.user_created.send(sender=User, handle=handle)
    return user, before is None


def _shown_name(name: str) -> str:
    """Their display name if it passes our own rules for names (no direction
    controls, no invisible letters), else none: the handle stands in."""
    try:
        return clean_display_name((name or "")[:200]) if has_visible_letter(name or "") else ""
    except ValidationError:
        return ""


def remote_user_forget(*, handle: str) -> bool:
    """The actor was deleted on its server: the account is closed here at once
    (every page treats it as gone) and erased by the erasure walk."""
    return (
        User._get_collection()
        .update_one({"_id": handle, "domain": {"$ne": None}}, {"$set": {"status": "erasing"}})
        .modified_count
        > 0
    )


def domain_block_add(*, user: User, domain: str) -> None:
    """The person hides a whole server for themselves (the federation app
    then blocks each of its people they know, and each one met later)."""
    User._get_collection().update_one(
        {"_id": user.handle}, {"$addToSet": {"blocked_domains": domain}}
    )
    user.blocked_domains = sorted({*(user.blocked_domains or []), domain})


def domain_block_remove(*, user: User, domain: str) -> None:
    User._get_collection().update_one({"_id": user.handle}, {"$pull": {"blocked_domains": domain}})
    user.blocked_domains = [d for d in user.blocked_domains or [] if d != domain]
