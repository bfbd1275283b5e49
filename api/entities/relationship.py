"""The Relationship entity (docs.joinmastodon.org/entities/Relationship):
what the reader's graph says of another account. Our accounts are never
locked; a follow of someone on another server is `requested` until their
server accepts it (docs/federation.md). No notes, no endorsements."""


def relationship(
    handle: str,
    *,
    following: bool,
    followed_by: bool,
    blocking: bool,
    blocked_by: bool,
    muting: bool,
    requested: bool = False,
) -> dict:
    following = following and not requested
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
        "requested": requested,
        "requested_by": False,
        "domain_blocking": False,
        "endorsed": False,
        "note": "",
    }
