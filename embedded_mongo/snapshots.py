"""What mongomock's update needs to keep of a document before changing it.

Before updating a document in place mongomock deep-copies it whole, to roll
it back after a failed unique check and to tell whether anything changed.
A like refreshes one count in the copy of one post among a timeline's
hundreds of entries (`entries.$.post.likes_count`): copying the document is
then most of the update. The snapshot here copies only the containers an
update can write into, down the path it writes (the list, the one entry,
its `post`), and shares everything else with the document: what the update
leaves alone stays the same objects, so the rollback and the comparison see
exactly what a full copy would have shown them. Update shapes whose writes
cannot be located beforehand keep mongomock's copy of the field, or of the
whole document (docs/embedded-database.md#what-it-adds-to-mongomock).
"""

from collections import OrderedDict

import mongomock.helpers
from mongomock.filtering import filter_applies

# Update operators that, on a top-level field, either replace the field's value
# or change the list it holds without changing the list's items.
REPLACING = frozenset({"$set", "$inc", "$unset", "$min", "$max", "$mul", "$currentDate"})
LIST_CHANGING = frozenset({"$push", "$addToSet", "$pull", "$pullAll", "$pop"})
# The operators mongomock applies through `_update_document_fields_with_positional_awareness`,
# each of which writes one key of the container its path leads to (sets,
# replaces or pops it) and changes nothing inside the old value.
_KEY_WRITING = frozenset({"$set", "$inc", "$unset", "$min", "$max", "$currentDate"})


class _Unlocated(Exception):
    """The update's writes cannot be located beforehand: copy the field whole."""


def before_update(document, update, spec, deep) -> "OrderedDict | dict | None":
    """A copy of `document` holding what `update` may change, copied as deep
    as it may change it, sharing the rest; `deep` copies a field whole. None
    when the update's shape is not one of these (then the caller copies the
    whole document)."""
    if not isinstance(update, dict):
        return None
    paths: dict[str, list[tuple[str, str]]] = {}  # top-level field: (operator, path)
    for operator, fields in update.items():
        if operator == "$setOnInsert":
            continue
        if operator not in REPLACING | LIST_CHANGING or not isinstance(fields, dict):
            return None
        for path in fields:
            paths.setdefault(path.split(".", 1)[0], []).append((operator, path))
    snapshot = type(document)(document)
    positional = _positional_prefix(update)
    for top, writes in paths.items():
        if top not in document:
            continue
        if all("." not in path for _, path in writes):
            if any(op in LIST_CHANGING for op, _ in writes) and type(document[top]) is list:
                snapshot[top] = list(document[top])
            continue
        try:
            _copy_paths(snapshot, document, writes, update, spec, positional)
        except _Unlocated:
            snapshot[top] = deep(document[top])
    return snapshot


def _positional_prefix(update: dict) -> "tuple[str, ...] | None":
    """The one container every positional (`$`) write of the update goes to.

    mongomock resolves `$` for the first positional field only and writes
    every later one into the container it found then, whatever its path
    (`_update_document_fields_positional`'s `subdocument`): a snapshot can
    follow that only when they all name the same container. None otherwise."""
    prefixes = {
        tuple(path.split(".")[:-1])
        for operator, fields in update.items()
        if operator != "$setOnInsert" and isinstance(fields, dict)
        for path in fields
        if "$" in path
    }
    if len(prefixes) != 1:
        return None
    (prefix,) = prefixes
    unsets = sum(1 for path in update.get("$unset") or () if "$" in path)
    if prefix.count("$") != 1 or any("$" in part and part != "$" for part in prefix):
        return None
    if unsets and sum(len(f) for f in update.values() if isinstance(f, dict)) > 1:
        # An `$unset` may empty the container, and mongomock resolves `$` again
        # for a field after an empty one: then it may write elsewhere.
        return None
    return prefix


def _copy_paths(snapshot, document, writes, update, spec, positional) -> None:
    """Copy, in `snapshot`, each container the `writes` of one top-level field
    write into, and every container above it; raise `_Unlocated` when a write
    cannot be followed as mongomock will follow it."""
    if any(op not in _KEY_WRITING for op, _ in writes) or set(update) - _KEY_WRITING - {
        "$setOnInsert"
    }:
        # Other operators write inside lists in place, or leave mongomock's
        # positional `subdocument` behind for a later `$` field.
        raise _Unlocated
    dollar = [path for _, path in writes if "$" in path]
    if dollar and (positional is None or len(dollar) != len(writes)):
        # A plain write before it could move the `$` entry under our feet.
        raise _Unlocated
    copied: set[int] = set()
    for _, path in writes:
        parts = path.split(".")[:-1]
        keys = _positional_keys(document, spec, parts) if dollar else _plain_keys(document, parts)
        _copy_down(snapshot, keys, copied)


def _positional_keys(document, spec, parts: list[str]) -> list:
    """The keys down to the container mongomock's positional `$set` writes
    into, found as `_update_document_fields_positional` finds them."""
    spec = mongomock.helpers.patch_datetime_awareness_in_document(spec)
    current, subspec, keys = document, spec, []
    for part in parts:
        if part == "$":
            if not isinstance(current, list) or not isinstance(subspec, dict):
                raise _Unlocated
            wanted = subspec.get("$elemMatch", subspec)
            for at, item in enumerate(current):
                if filter_applies(wanted, item):
                    current = item
                    keys.append(at)
                    break
            else:
                raise _Unlocated
            continue
        if not isinstance(subspec, dict) or not isinstance(current, dict) or part not in current:
            raise _Unlocated
        narrowed: object = {}
        for name in subspec:
            if name.startswith(part):
                if len(name.split(".")) > 1:
                    if not isinstance(narrowed, dict):
                        raise _Unlocated
                    narrowed[".".join(name.split(".")[1:])] = subspec[name]
                else:
                    narrowed = subspec[name]
        subspec, current = narrowed, current[part]
        keys.append(part)
    if not isinstance(current, dict) or not current:
        # mongomock resolves `$` again after an empty container, and writes
        # into a list otherwise: neither is followed here.
        raise _Unlocated
    return keys


def _plain_keys(document, parts: list[str]) -> list:
    """The keys down to the container `_update_document_single_field` writes
    into, as far as they exist (below that it creates new containers)."""
    current, keys = document, []
    for part in parts:
        if isinstance(current, list):
            if not part.isdigit() or int(part) >= len(current):
                raise _Unlocated
            current = current[int(part)]
            keys.append(int(part))
        elif isinstance(current, dict):
            if part not in current:
                return keys
            current = current[part]
            keys.append(part)
        else:
            return keys
    return keys


def _copy_down(snapshot, keys: list, copied: set[int]) -> None:
    """Replace, in `snapshot`, each container along `keys` by a shallow copy
    (once: `copied` holds the ids of the copies already made)."""
    current = snapshot
    for key in keys:
        value = current[key]
        if id(value) not in copied:
            if type(value) is list:
                value = list(value)
            elif type(value) in (dict, OrderedDict):
                value = type(value)(value)
            else:
                raise _Unlocated
            current[key] = value
            copied.add(id(value))
        current = value
