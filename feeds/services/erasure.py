"""The feeds' part of an erasure (docs/accounts.md#erasure): each function is
one collection's eraser in the owner registry (feeds/owners.py), doing at
most about `limit` documents and returning how many it changed.

Marks go through the same services as a person's own undo, so the counts on
the posts and their embedded copies follow (a removed post's frozen marks
are deleted and recounted). Posts go through `posts_erase`, which takes a
batch of them out of every timeline (the timelines follow what the
services announce), with their reposts, likes, votes,
photos, discussions and notifications, in a few writes for them all.
"""

from contextlib import suppress

from bson import ObjectId

from feeds import mentions
from feeds.documents import CARD_FIELDS, PollVote, Post, PostLike, PostRepost, PostRevision
from feeds.services import likes, photos, polls, posts, reposts
from feeds.services.interactions import InteractionError
from profiles.documents import User
from socialsite import events


def _person(handle: str) -> User:
    """The person's document while the walk has it; a stand-in after a
    crash past its deletion (the undo services read only the handle)."""
    return User.objects(handle=handle).first() or User(handle=handle)


def likes_erase(handle: str, limit: int) -> int:
    rows = list(PostLike._get_collection().find({"by": handle}, {"post": 1}).limit(limit))
    user = _person(handle)
    for row in rows:
        try:
            likes.like_delete(post_id=row["post"], user=user)
        except InteractionError:  # the post is gone or removed: counts frozen
            PostLike._get_collection().delete_one({"post": row["post"], "by": handle})
            likes.likes_recount(row["post"])
    return len(rows)


def reposts_erase(handle: str, limit: int) -> int:
    rows = list(PostRepost._get_collection().find({"by": handle}, {"post": 1}).limit(limit))
    user = _person(handle)
    for row in rows:
        try:
            reposts.repost_delete(post_id=row["post"], user=user)
        except InteractionError:
            events.entries_withdrawn.send(sender=PostRepost, ids=[row["_id"]])
            PostRepost._get_collection().delete_one({"post": row["post"], "by": handle})
    return len(rows)


def votes_erase(handle: str, limit: int) -> int:
    votes = PollVote._get_collection()
    rows = list(votes.find({"voter": handle}, {"post": 1}).limit(limit))
    for row in rows:
        votes.delete_one({"post": row["post"], "voter": handle})
        with suppress(polls.PollError):  # the poll is gone
            polls.poll_recount(row["post"])
        events.post_changed.send(sender=Post, post_id=row["post"], fields=["detail"], at_once=True)
    return len(rows)


def posts_erase(handle: str, limit: int) -> int:
    """Their posts, and others' posts on their wall; then their name out of
    others' posts: mentions (the words stay, the handle becomes "[deleted
    account]") and the moderator's name on a removal."""
    collection = Post._get_collection()
    mine = list(collection.find({"by.id": handle}, CARD_FIELDS).limit(limit))
    on_wall = list(collection.find({"to": handle}, CARD_FIELDS).limit(limit))
    gone = {post["_id"]: post for post in mine + on_wall}
    posts.posts_erase(list(gone.values()))
    if gone:
        return len(gone)
    named = list(collection.find({"mentions": handle}, {"detail": 1}).limit(limit))
    for post in named:
        detail = {
            key: mentions.unmention(value, handle) if isinstance(value, str) else value
            for key, value in post.get("detail", {}).items()
        }
        # Its words and tags are the new text's (the handle was a word of it).
        update = posts.with_words({"$set": {"detail": detail}}, detail)
        collection.update_one({"_id": post["_id"]}, {**update, "$pull": {"mentions": handle}})
        _unmention_revisions(post["_id"], handle)
        events.post_changed.send(
            sender=Post, post_id=post["_id"], fields=["detail", "mentions"], at_once=True
        )
    removed = collection.update_many({"removed.by": handle}, {"$set": {"removed.by": ""}})
    return len(named) + removed.modified_count


def photos_erase(handle: str, limit: int) -> int:
    """Photos left without a post (an upload whose post failed)."""
    return photos.owner_erase(handle, limit)


def _unmention_revisions(post_id: ObjectId, handle: str) -> None:
    """The post's earlier versions lose the handle too (its history page)."""
    revisions = PostRevision._get_collection()
    for revision in list(revisions.find({"post": post_id}, {"detail": 1, "post": 1})):
        _unmention_revision(revision, handle)


def _unmention_revision(revision: dict, handle: str) -> None:
    detail = {
        key: mentions.unmention(value, handle) if isinstance(value, str) else value
        for key, value in (revision.get("detail") or {}).items()
    }
    # The whole shard key (`post`) with the `_id`: a single-document write.
    PostRevision._get_collection().update_one(
        {"_id": revision["_id"], "post": revision["post"]},
        {"$set": {"detail": detail}, "$pull": {"mentions": handle}},
    )


def revisions_erase(handle: str, limit: int) -> int:
    """Earlier versions that named the person, whether or not their post
    still does (an edit may have taken the handle out): found on their own
    `mentions` index, the handle taken out of their words."""
    rows = PostRevision._get_collection().find({"mentions": handle}, {"detail": 1, "post": 1})
    found = list(rows.limit(limit))
    for revision in found:
        _unmention_revision(revision, handle)
    return len(found)
