"""OAuth scopes as Mastodon 4.3 names them (docs/api.md#scopes).

A token carries the scopes its person granted. The four broad ones cover
granular ones: `read` every `read:*`, `write` every `write:*`, and the
older `follow` the reads and writes of follows, blocks and mutes. An
endpoint names the one granular scope it needs; `covers` says whether a
token's scopes include it.
"""

READ = (
    "read:accounts",
    "read:blocks",
    "read:bookmarks",
    "read:favourites",
    "read:filters",
    "read:follows",
    "read:lists",
    "read:mutes",
    "read:notifications",
    "read:search",
    "read:statuses",
)
WRITE = (
    "write:accounts",
    "write:blocks",
    "write:bookmarks",
    "write:conversations",
    "write:favourites",
    "write:filters",
    "write:follows",
    "write:lists",
    "write:media",
    "write:mutes",
    "write:notifications",
    "write:reports",
    "write:statuses",
)
FOLLOW = (
    "read:blocks",
    "write:blocks",
    "read:follows",
    "write:follows",
    "read:mutes",
    "write:mutes",
)
BROAD = {"read": READ, "write": WRITE, "follow": FOLLOW, "push": ()}
# `profile`: who the person is and nothing else (verify_credentials), as 4.3 has it.
SUPPORTED: tuple[str, ...] = (*BROAD, "profile", *READ, *WRITE)

#: What the consent page says each scope lets the app do, in plain words.
PLAIN = {
    "read": "see everything your account can see",
    "write": "post, follow, like and change things as you",
    "follow": "follow, unfollow, block and mute people as you",
    "push": "send you push notifications",
    "profile": "see your profile (handle and name)",
}


def plain(scope: str) -> str:
    """The consent page's words for one scope ("read:statuses": see posts)."""
    if scope in PLAIN:
        return PLAIN[scope]
    action, _, what = scope.partition(":")
    verb = "see" if action == "read" else "change"
    return f"{verb} your {what.replace('_', ' ')}"


def parse(value: object) -> list[str] | None:
    """The scopes of a space-separated string (order kept, duplicates
    dropped), or None when one is unknown. Empty means none asked."""
    if not isinstance(value, str):
        return None
    found: list[str] = []
    for scope in value.split():
        if scope not in SUPPORTED:
            return None
        if scope not in found:
            found.append(scope)
    return found


def covers(granted: list[str] | tuple[str, ...], needed: str) -> bool:
    """Whether scopes `granted` include `needed` (a granular or broad scope)."""
    if needed in granted:
        return True
    if needed == "profile":  # 4.3: read and read:accounts reveal who you are too
        return "read" in granted or "read:accounts" in granted
    return any(needed in BROAD.get(scope, ()) for scope in granted)


def all_covered(granted: list[str] | tuple[str, ...], asked: list[str]) -> bool:
    return all(covers(granted, scope) for scope in asked)
