"""The Relationship entity (docs.joinmastodon.org/entities/Relationship):
what the reader's graph says of another account. No follow requests (our
accounts are never locked), no notes, no endorsements, no domains."""


def relationship(
    handle: str,
    *,
    following: bool,
    followed_by: bool,
    blocking: bool,
    blocked_by: bool,
    muting: bool,
) -> dict:
    return {
        "id": handle,
        "following": following,
        "showing_reblogs": following,
        "notifying": False,
        "languages": None,
        "followed_by": followed_by,
        "blocking": blocking,
        "blocked_by": blocked_by,
        "muting": muting,
        "muting_notifications": muting,
        "requested": False,
        "requested_by": False,
        "domain_blocking": False,
        "endorsed": False,
        "note": "",
    }
