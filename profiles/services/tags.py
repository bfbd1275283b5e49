"""Followed hashtags: the public posts carrying them join the follower's news
feed when it is read (docs/discovery.md#following-a-tag).

The list lives on the follower's document (`User.followed_tags`), which
every page loads already, so a news page knows its tags with no query. The
feeds decide what a tag is (feeds/words.py); this module keeps the
list, bounded by the update itself (MAX_FOLLOWED_TAGS), as mutes are.
"""

from profiles.documents import User
from profiles.services.users import GraphError

MAX_FOLLOWED_TAGS = 100


def tag_follow_create(*, user: User, tag: str) -> bool:
    """`user` follows `tag` (already folded). Idempotent; True when added."""
    if tag in user.followed_tags:
        return False
    changed = User._get_collection().update_one(
        {"_id": user.handle, f"followed_tags.{MAX_FOLLOWED_TAGS - 1}": {"$exists": False}},
        {"$addToSet": {"followed_tags": tag}},
    )
    if changed.matched_count == 0:
        raise GraphError(f"You can follow at most {MAX_FOLLOWED_TAGS} tags. Unfollow one first.")
    user.followed_tags.append(tag)
    return True


def tag_follow_delete(*, user: User, tag: str) -> bool:
    """Unfollow `tag`. Idempotent; True when it was followed."""
    User._get_collection().update_one({"_id": user.handle}, {"$pull": {"followed_tags": tag}})
    removed = tag in user.followed_tags
    if removed:
        user.followed_tags.remove(tag)
    return removed
