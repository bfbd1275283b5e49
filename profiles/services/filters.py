"""Keyword filters: adding and deleting them (docs/privacy.md#keyword-filters).

The list lives on its owner's document (`User.filters`), read by every page
with the session (profiles/filters.py applies it). Each write is one atomic
update: a `$push` whose filter holds the cap (MAX_FILTERS), so racing adds
cannot pass it, and a `$pull` by id. Expired filters stay until deleted,
except that an add at the cap first clears the expired ones out of its way.
"""

from datetime import datetime, timedelta

from bson import ObjectId

from profiles.documents import StoredFilter, User
from profiles.filters import (
    ACTIONS,
    CONTEXTS,
    MAX_FILTERS,
    MAX_PHRASE,
    KeywordFilter,
    keyword_filter,
    phrase_pattern,
)
from socialsite import clock, events

# What the settings form offers: the filter's lifetime from now.
EXPIRY_CHOICES: dict[str, timedelta | None] = {
    "never": None,
    "1h": timedelta(hours=1),
    "1d": timedelta(days=1),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}


class FilterError(Exception):
    """A filter that is refused, with a message for its owner."""


def _push(handle: str, entry: dict) -> bool:
    # `filters.<cap-1>` missing means fewer than MAX_FILTERS entries.
    changed = User._get_collection().update_one(
        {"_id": handle, f"filters.{MAX_FILTERS - 1}": {"$exists": False}},
        {"$push": {"filters": entry}},
    )
    return changed.matched_count == 1


def keyword_filter_create(
    *,
    user: User,
    phrase: str,
    contexts: list[str],
    action: str,
    expires_in: timedelta | None,
) -> KeywordFilter:
    """Add a filter to `user`'s list. Raises FilterError past MAX_FILTERS
    live ones, or for a phrase, context or action that is not one."""
    phrase = " ".join(phrase.split())
    if not phrase or len(phrase) > MAX_PHRASE or phrase_pattern(phrase) is None:
        raise FilterError(f"Give a word or phrase of 1 to {MAX_PHRASE} characters.")
    chosen = [c for c in CONTEXTS if c in contexts]
    if not chosen or len(chosen) != len(set(contexts)):
        raise FilterError("Choose where the filter applies.")
    if action not in ACTIONS:
        raise FilterError("Choose to hide or to warn.")
    moment = clock.now()
    # The same phrase where a live filter of it applies already is a repeat
    # (the same phrase elsewhere, say hidden in threads but warned of at
    # home, is a filter of its own).
    folded = phrase.casefold()
    if any(
        f.phrase.casefold() == folded and set(f.contexts) & set(chosen) and not _expired(f, moment)
        for f in user.filters or ()
    ):
        raise FilterError(f"You filter “{phrase}” there already: delete that filter to change it.")
    entry = {
        "id": str(ObjectId()),
        "phrase": phrase,
        "contexts": chosen,
        "action": action,
        "expires": None if expires_in is None else clock.to_millis(moment + expires_in),
    }
    if not _push(user.handle, entry):
        # At the cap: expired filters no longer count, so they make way.
        # `$type`: only a date expires (MongoDB's `$lte` never matches a
        # null, but an engine that compares null below dates would pull
        # every filter that never expires).
        User._get_collection().update_one(
            {"_id": user.handle},
            {"$pull": {"filters": {"expires": {"$type": "date", "$lte": moment}}}},
        )
        if not _push(user.handle, entry):
            raise FilterError(
                f"You can keep at most {MAX_FILTERS} filters. Delete one to add another."
            )
        user.filters = [f for f in user.filters if not _expired(f, moment)]
    user.filters.append(StoredFilter(**entry))
    events.filters_changed.send(sender=User, owner=user.handle)
    made = keyword_filter(entry)
    assert made is not None  # checked above
    return made


def _expired(stored: StoredFilter, moment: datetime) -> bool:
    return stored.expires is not None and clock.aware(stored.expires) <= moment


def keyword_filter_delete(*, user: User, filter_id: str) -> bool:
    """Delete one of `user`'s filters by its id. True when it was there."""
    changed = User._get_collection().update_one(
        {"_id": user.handle, "filters.id": filter_id},
        {"$pull": {"filters": {"id": filter_id}}},
    )
    if changed.modified_count == 0:
        return False
    user.filters = [f for f in user.filters if f.id != filter_id]
    events.filters_changed.send(sender=User, owner=user.handle)
    return True


def keyword_filter_update(
    *,
    user: User,
    filter_id: str,
    phrase: str | None = None,
    contexts: list[str] | None = None,
    action: str | None = None,
    expires_in: timedelta | bool | None = False,
) -> KeywordFilter:
    """Change one of `user`'s filters in place (what is None stays;
    `expires_in` False keeps the expiry, None clears it): the same checks
    as an add, and one positional `$set` by the filter's id. Raises
    FilterError for a filter that is not theirs or a change refused."""
    current = next((f for f in user.filters or () if f.id == filter_id), None)
    if current is None:
        raise FilterError("There is no such filter.")
    phrase = " ".join((current.phrase if phrase is None else phrase).split())
    if not phrase or len(phrase) > MAX_PHRASE or phrase_pattern(phrase) is None:
        raise FilterError(f"Give a word or phrase of 1 to {MAX_PHRASE} characters.")
    wanted = list(current.contexts) if contexts is None else contexts
    chosen = [c for c in CONTEXTS if c in wanted]
    if not chosen or len(chosen) != len(set(wanted)):
        raise FilterError("Choose where the filter applies.")
    action = current.action if action is None else action
    if action not in ACTIONS:
        raise FilterError("Choose to hide or to warn.")
    moment = clock.now()
    folded = phrase.casefold()
    if any(
        f.id != filter_id
        and f.phrase.casefold() == folded
        and set(f.contexts) & set(chosen)
        and not _expired(f, moment)
        for f in user.filters or ()
    ):
        raise FilterError(f"You filter “{phrase}” there already: delete that filter to change it.")
    if expires_in is False:
        expires = current.expires
    elif expires_in is None or expires_in is True:
        expires = None
    else:
        expires = clock.to_millis(moment + expires_in)
    entry = {
        "id": filter_id,
        "phrase": phrase,
        "contexts": chosen,
        "action": action,
        "expires": expires,
    }
    changed = User._get_collection().update_one(
        {"_id": user.handle, "filters.id": filter_id}, {"$set": {"filters.$": entry}}
    )
    if changed.matched_count == 0:
        raise FilterError("There is no such filter.")
    user.filters = [StoredFilter(**entry) if f.id == filter_id else f for f in user.filters]
    events.filters_changed.send(sender=User, owner=user.handle)
    made = keyword_filter(entry)
    assert made is not None  # checked above
    return made
