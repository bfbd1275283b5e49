"""Slug paths and full slugs, as *Storing Comments* builds them.

A slug part is 4 random characters ("34db"); a reply's slug is its parent's
slug, "/", and its own part. The full slug prefixes each part with the time it
was posted, "%Y.%m.%d.%H.%M.%S.%f:34db", joined by "/" the same way. Every
part has the same width, so sorting full slugs as strings gives the threaded
order: a comment, then its replies depth first, siblings oldest first.
"""

import re
import secrets
import string
from datetime import UTC, datetime

from bson import ObjectId

from feeds.mentions import handles_in
from socialsite.clock import aware, now

ALPHABET = string.ascii_lowercase + string.digits
PART_LENGTH = 4
TIME_FORMAT = "%Y.%m.%d.%H.%M.%S.%f"
#: A slug path as it may come from a URL: parts of [a-z0-9]{4} joined by "/".
SLUG_RE = re.compile(r"^[a-z0-9]{4}(/[a-z0-9]{4})*$")


def new_part() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(PART_LENGTH))


def posted_time(posted: datetime | None) -> datetime:
    """Aware UTC, truncated to milliseconds (what MongoDB keeps)."""
    t = now() if posted is None else aware(posted).astimezone(UTC)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def full_part(posted: datetime, part: str) -> str:
    return f"{posted.strftime(TIME_FORMAT)}:{part}"


def paths(part: str, posted: datetime, parent: dict | None) -> tuple[str, str, int]:
    """(slug, full_slug, depth) of a comment under `parent` (a stored comment)."""
    if parent is None:
        return part, full_part(posted, part), 0
    return (
        f"{parent['slug']}/{part}",
        f"{parent['full_slug']}/{full_part(posted, part)}",
        parent["slug"].count("/") + 1,
    )


def is_slug(value: object) -> bool:
    """Whether `value` is a well-formed slug path (check request data with this)."""
    return isinstance(value, str) and len(value) < 1000 and bool(SLUG_RE.match(value))


#: The character right after "/": [path, path + AFTER_SLASH) holds the path
#: and every path under it.
AFTER_SLASH = chr(ord("/") + 1)  # "0"


def subtree_range(path: str) -> dict:
    """The sub-discussion of `path` (a slug or a full slug) as a string range.

    Seed 004 finds it with the regex `^path`; anchored `(/|$)` so a sibling
    that merely starts the same way stays out. But a regex sent from Python
    carries the `u` flag, and MongoDB bounds an index scan only for a plain
    case-sensitive prefix: the regex scanned the whole discussion. A range
    has bounds, and it is exact here: every part has a fixed width (4
    characters, after a fixed-width time in a full slug), so after a whole
    part comes either the end or "/". The strings in [path, path + "0") are
    then `path` and the paths under it: a sibling "…:abce" sorts after
    "…:abcd0", a sibling "…:abcc/…" before "…:abcd".
    """
    return {"$gte": path, "$lt": path + AFTER_SLASH}


def in_subtree(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def new_comment(
    *,
    posted: datetime,
    parent: dict | None,
    author: dict,
    text: str,
    part: str | None = None,
    oid: ObjectId | None = None,
) -> dict:
    """The stored form of a comment, shared by the three stores; a new random
    slug part and id unless given."""
    slug, full_slug, depth = paths(part or new_part(), posted, parent)
    return {
        "_id": oid or ObjectId(),
        "slug": slug,
        "full_slug": full_slug,
        "depth": depth,
        "posted": posted,
        "author": {"id": author["id"], "name": author["name"]},
        "text": text,
        "mentions": mentioned(text),
        "edited": None,
        "deleted_by": None,
    }


def mentioned(text: str) -> list[str]:
    """The handles a comment's text mentions, stored with it so that an
    erasure finds the comments naming someone on an index (docs/accounts.md#erasure)."""
    return sorted(handles_in(text))
