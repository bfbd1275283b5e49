"""Writes to users and profiles."""

from django.contrib.auth.hashers import make_password
from mongoengine.errors import NotUniqueError
from pymongo.errors import DuplicateKeyError

from profiles.documents import MESSAGES_FROM, Profile, User
from profiles.names import name_terms
from profiles.selectors import handle_held
from socialsite import events
from socialsite.clock import now
from socialsite.ids import parse_handle
from socialsite.sessions import end_sessions_of


class GraphError(Exception):
    """A graph change that is refused, with a message for the user."""


class HandleTaken(Exception):
    """The handle belongs to someone already."""


class UnknownUser(Exception):
    """No active user has that handle (a 404 for the views)."""


# --- users -------------------------------------------------------------------


def user_create(
    *, handle: str, name: str, password: str, role: str = "user", profile: Profile | None = None
) -> User:
    """Create a user; `password` is the raw password (validated by the caller)."""
    parsed = parse_handle(handle)
    if parsed is None or parsed != handle:
        raise ValueError(f"invalid handle: {handle!r}")
    if handle_held(handle):  # erased lately (docs/accounts.md#erasure)
        raise HandleTaken(handle)
    user = User(
        handle=handle,
        name=name,
        name_terms=name_terms(name),
        password=make_password(password),
        role=role,
        profile=profile or Profile(),
        remote_followers_count=0,
    )
    try:
        user.save(force_insert=True)
    except (DuplicateKeyError, NotUniqueError) as exc:
        raise HandleTaken(handle) from exc
    events.user_created.send(sender=User, handle=handle)
    return user


def user_touch(*, user: User) -> None:
    t, previous = now(), user.last_seen
    User.objects(handle=user.handle).update_one(set__last_seen=t)
    user.last_seen = t
    events.user_seen.send(sender=User, user=user, previous=previous)


def password_change(*, user: User, new_password: str, keep_session: str | None = None) -> None:
    """Set a new password and end every other session of the user."""
    user.password = make_password(new_password)
    User.objects(handle=user.handle).update_one(set__password=user.password)
    end_sessions_of(user.handle, keep=keep_session)


def profile_update(
    *,
    user: User,
    name: str,
    bio: str,
    location: str,
    interests: list[str],
    website: str,
    messages_from: str | None = None,
) -> None:
    """Set the edited fields one by one: profile fields this code does not
    know (the profile evolves, *Storing Updates and Profiles*) stay as they are.
    `messages_from`: who may start a conversation with them (None: unchanged)."""
    edited = {"bio": bio, "location": location, "interests": interests, "website": website}
    chosen = {"messages_from": messages_from} if messages_from in MESSAGES_FROM else {}
    User._get_collection().update_one(
        {"_id": user.handle},
        {
            "$set": {
                "name": name,
                "name_terms": name_terms(name),
                **{f"profile.{field}": value for field, value in edited.items()},
                **chosen,
            }
        },
    )
    if chosen:
        user.messages_from = messages_from
    user.name, user.name_terms = name, name_terms(name)
    for field, value in edited.items():
        setattr(user.profile, field, value)
    events.profile_changed.send(sender=User, user=user)
