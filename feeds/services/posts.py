"""Every write to posts: create, edit, delete, vote, and the delivery sweeper."""

from collections import Counter
from datetime import datetime

from bson import ObjectId
from mongoengine.errors import NotUniqueError

from feeds import mentions, words
from feeds.documents import (
    ALL_CIRCLES,
    CARD_FIELDS,
    PUBLIC,
    Author,
    Delivery,
    PollVote,
    Post,
    PostRevision,
)
from feeds.services import bookmarks, likes, photos, pins, polls, reposts
from profiles.documents import User
from profiles.services import standing
from socialsite import events
from socialsite.clock import aware, now, to_millis


class PostError(Exception):
    """A post that is refused, with a message for the user."""


class AlreadyPosted(PostError):
    """The same one-time key was posted with before (socialsite/once.py):
    nothing new is written; `post_id` is the post it made."""

    def __init__(self, post_id: ObjectId):
        super().__init__("That was posted already.")
        self.post_id = post_id


class NotFound(Exception):
    """No such post, or not the actor's to change (a 404 for the views)."""


EDITABLE = {
    "status": ("text",),
    "link": ("title", "text"),
    "photo": ("text",),
    "checkin": ("text",),
    "poll": (),
}


def post_create(
    *,
    author: User,
    type: str,
    detail: dict,
    circles: list[str],
    to: str | None = None,
    photo: "photos.ProcessedPhoto | None" = None,
    ts: datetime | None = None,
    post_id: ObjectId | None = None,
    url: str | None = None,
    mentioned: list[str] | None = None,
) -> Post:
    """Write the post (the system of record), then enqueue its delivery.

    `ts` backdates a post (demo data, tests); it defaults to now. Either way
    it is kept to the millisecond, as MongoDB stores it (docs/performance.md).
    `post_id` is the id a one-time key claimed (socialsite/once.py): when a
    post has it already, AlreadyPosted and nothing else is written.
    A remote author's post (docs/federation.md) has the `url` of its page
    there and the people its server said it `mentioned`.
    """
    circles = list(circles) or [PUBLIC]
    named = [c for c in circles if c not in (PUBLIC, ALL_CIRCLES)]
    if len(circles) > 1 and len(named) != len(circles):
        raise PostError("Share with everyone, with all your circles, or with chosen circles.")
    unknown = [c for c in named if c not in author.circles]
    if unknown:
        raise PostError(f"Unknown circle: {unknown[0]}")
    if to == author.handle:
        to = None
    if to is not None and "@" in to:
        raise PostError(f"@{to} is on another server: their wall is there.")
    if to is not None:
        target = User.objects(handle=to, status="active").only("handle", "blocked").first()
        if target is None:
            raise PostError(f"There is no @{to} to post to.")
        if author.handle in target.blocked:
            raise PostError(f"You can't post on @{to}'s wall.")
        if to in author.blocked:
            raise PostError(f"You blocked @{to}. Unblock them to post on their wall.")
    if post_id is not None and Post.objects(id=post_id).only("id").first() is not None:
        raise AlreadyPosted(post_id)
    detail = dict(detail)
    if photo is not None:
        detail.update(photos.store(photo, author.handle))
    post = Post(
        id=post_id,
        by=Author(id=author.handle, name=author.name),
        to=to,
        circles=circles,
        type=type,
        detail=detail,
        mentions=mentioned
        if mentioned is not None
        else mentions.people_named(detail.get("text"), detail.get("question")),
        **words.searchable(detail),
        ts=to_millis(aware(ts)) if ts else now(),
        url=url,
        delivery=Delivery(state="pending", queued=now()),
    )
    try:
        post.save(force_insert=True)
    except NotUniqueError:
        # The same key posted twice at once: the other request inserted it.
        if photo is not None:
            photos.delete(detail)
        raise AlreadyPosted(post.id) from None
    standing.posts_count_add(handle=author.handle, delta=1)
    events.post_delivery_due.send(sender=Post, post_id=post.id)
    events.post_created.send(sender=Post, post=post, author=author)
    return post


def _own_post(post_id: ObjectId, actor: User) -> dict:
    post = Post._get_collection().find_one({"_id": post_id}, CARD_FIELDS)
    if post is None or post["by"]["id"] != actor.handle:
        raise NotFound(post_id)
    return post


def post_edit(*, post_id: ObjectId, actor: User, changes: dict) -> None:
    """The author changes the text fields of a post; every reader sees the new
    text, whether their entries link or embed (copies refreshed by a task).

    A post a moderator removed is frozen (docs/privacy.md): NotFound, and the
    write itself carries the condition, so a removal racing the edit wins.
    """
    post = _own_post(post_id, actor)
    if post.get("removed") is not None:
        raise NotFound(post_id)
    allowed = EDITABLE[post["type"]]
    updates = {f"detail.{k}": v for k, v in changes.items() if k in allowed}
    if not updates:
        raise PostError("This post has nothing that can be edited.")
    before = post.get("detail") or {}
    detail = {**before, **{k: v for k, v in changes.items() if k in allowed}}
    if all(before.get(k) == detail.get(k) for k in allowed):
        return  # nothing changed: no new version, no "edited" mark
    # The version being replaced, first: a crash after it leaves one
    # revision too many (the same text twice), never an edit without history.
    PostRevision(
        post=post_id,
        by=actor.handle,
        detail={k: before.get(k, "") for k in allowed},
        mentions=post.get("mentions") or [],
        since=post.get("edited") or post["ts"],
    ).save(force_insert=True)
    named = mentions.people_named(detail.get("text"), detail.get("question"))
    edited = Post._get_collection().update_one(
        {"_id": post_id, "by.id": actor.handle, "removed": None},
        with_words({"$set": {**updates, "mentions": named, "edited": now()}}, detail),
    )
    if edited.matched_count == 0:
        raise NotFound(post_id)
    # The trends follow the tags (docs/discovery.md#trends).
    before_tags, after_tags = post.get("tags") or [], words.searchable(detail)["tags"] or []
    events.post_tags_changed.send(
        sender=Post,
        post=post,
        dropped=[tag for tag in before_tags if tag not in after_tags],
        added=[tag for tag in after_tags if tag not in before_tags],
    )
    events.post_changed.send(
        sender=Post, post_id=post_id, fields=["detail", "mentions", "edited"], at_once=False
    )


def with_words(update: dict, detail: dict) -> dict:
    """The update that also sets the post's `tags` and `terms` from its new
    text, or unsets them when there are none (the sparse indexes skip it)."""
    found = words.searchable(detail)
    kept = {name: value for name, value in found.items() if value is not None}
    gone = {name: "" for name, value in found.items() if value is None}
    return {**update, "$set": {**update["$set"], **kept}, **({"$unset": gone} if gone else {})}


def post_delete(*, post_id: ObjectId, actor: User) -> None:
    """Delete a post and take it out of every timeline."""
    post = _own_post(post_id, actor)
    events.entries_withdrawn.send(sender=Post, ids=[post_id])
    Post._get_collection().delete_one({"_id": post_id})
    # A delivery racing with this delete may have added an entry meanwhile.
    events.entries_withdrawn.send(sender=Post, ids=[post_id])
    # Every repost of it goes too (after the post: a repost delivery racing
    # with this finds the original gone and takes its own entries out).
    reposts.reposts_withdraw(post_id=post_id, delete=True)
    events.post_deleted.send(sender=Post, post_id=post_id, post=post)
    standing.posts_count_add(handle=post["by"]["id"], delta=-1)
    if post["type"] == "photo":
        photos.delete(post["detail"])
    if post["type"] == "poll":
        PollVote._get_collection().delete_many({"post": post_id})
    if post.get("likes_count"):
        likes.likes_delete_for(post_id)
    bookmarks.bookmarks_delete_for([post_id])
    # Out of the author's pins (the wall would no longer show it anyway),
    # so it holds no place there: docs/discovery.md#pins.
    if post_id in (actor.pinned or []):
        pins.post_unpin(user=actor, post_id=post_id)
    PostRevision._get_collection().delete_many({"post": post_id})


def posts_erase(posts: list[dict]) -> None:
    """`post_delete` for many posts read whole (`by`, `type`, `detail`,
    `likes_count`) at once, with no author check: an account's erasure
    (its posts and those on its wall). The same writes, each one for them
    all, so a batch costs a few round trips rather than a few per post."""
    if not posts:
        return
    ids = [post["_id"] for post in posts]
    events.entries_withdrawn.send(sender=Post, ids=ids)
    Post._get_collection().delete_many({"_id": {"$in": ids}})
    events.entries_withdrawn.send(sender=Post, ids=ids)  # a delivery racing with the delete
    reposts.reposts_withdraw_many(post_ids=ids)
    events.posts_deleted.send(sender=Post, post_ids=ids, posts=posts)
    authors = Counter(post["by"]["id"] for post in posts)
    standing.posts_counts_add({handle: -count for handle, count in authors.items()})
    for post in posts:
        if post["type"] == "photo":
            photos.delete(post["detail"])
    polls_gone = [post["_id"] for post in posts if post["type"] == "poll"]
    if polls_gone:
        PollVote._get_collection().delete_many({"post": {"$in": polls_gone}})
    likes.likes_delete_for_many([post["_id"] for post in posts if post.get("likes_count")])
    bookmarks.bookmarks_delete_for(ids)
    PostRevision._get_collection().delete_many({"post": {"$in": ids}})


def poll_vote(*, post_id: ObjectId, voter: User, option: int) -> None:
    """Refused (PollError) on a removed post, after the poll's end, and
    across a block, either way."""
    polls.poll_vote(post_id=post_id, voter=voter.handle, option=option)
    events.post_changed.send(sender=Post, post_id=post_id, fields=["detail"], at_once=False)


def post_comments_summary_set(*, post_id: ObjectId, count: int, shown: list[dict]) -> None:
    """The comments app's summary of a post's thread (`comments_count` and the
    last FEED_COMMENTS_SHOWN comments, *Storing Updates and Profiles*'s `comment()`), on the post
    at once and on its embedded copies by the refresh that every comment of
    a few seconds joins (docs/performance.md#copies-follow-in-one-refresh)."""
    Post._get_collection().update_one(
        {"_id": post_id}, {"$set": {"comments_count": count, "comments_shown": shown}}
    )
    events.post_changed.send(
        sender=Post, post_id=post_id, fields=["comments_count", "comments_shown"], at_once=False
    )


def comments_shown_hide_author(*, handle: str, text: str) -> None:
    """Show `text` instead of what `handle` said in every post's
    `comments_shown` (a suspension), on the posts and their embedded copies.
    A scan of `post`, as rare as suspensions are."""
    posts = Post._get_collection()
    for post in list(posts.find({"comments_shown.by.id": handle}, {"comments_shown": 1})):
        shown = [
            {**c, "text": text} if c["by"]["id"] == handle else c for c in post["comments_shown"]
        ]
        posts.update_one({"_id": post["_id"]}, {"$set": {"comments_shown": shown}})
        events.post_changed.send(
            sender=Post, post_id=post["_id"], fields=["comments_shown"], at_once=True
        )


def comments_shown_truncate(*, limit: int) -> dict:
    """Cut every `comments_shown`, on posts and on the embedded copies of every
    stored timeline model, back to the newest `limit` (*Storing Updates and Profiles*'s
    `truncate_extra_comments`). Returns {"posts": n, "<collection>": entries}.

    A post is trimmed by `$push` + `$each: []` + `$slice`; the timelines trim
    their copies when told (`comments_shown_truncated`)."""
    if limit < 0:
        raise ValueError("limit must not be negative")
    result = Post._get_collection().update_many(
        {f"comments_shown.{limit}": {"$exists": True}},
        {"$push": {"comments_shown": {"$each": [], "$slice": -limit}}},
    )
    counts = {"posts": result.modified_count}
    for _, trimmed in events.comments_shown_truncated.send(sender=Post, limit=limit):
        counts.update(trimmed)
    return counts
