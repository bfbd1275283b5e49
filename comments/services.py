"""Every write to comments. Stores only store; who may do what is decided here.

After each change the post's `comments_count` and last FEED_COMMENTS_SHOWN
comments are refreshed out of band (seed 000's `comment()`), on the post and
on embedded feed entries alike.
"""

from bson import ObjectId

from comments import tasks
from comments.stores import Comment, get_store
from feeds import fanout
from feeds.documents import Post
from profiles.documents import User


class CommentRefused(Exception):
    """A comment action that is not allowed, with a message for the user."""


def comment_create(
    *, post: dict, author: User, text: str, parent_slug: str | None = None
) -> Comment:
    """`post` is a post the author may see (the caller checked)."""
    owner = post["by"]["id"]
    if owner != author.handle:
        blocked = User.objects(handle=owner).only("blocked").first()
        if blocked is not None and author.handle in blocked.blocked:
            raise CommentRefused(f"You can't comment on @{owner}'s posts.")
    if post.get("removed"):
        raise CommentRefused("This post was removed by a moderator.")
    comment = get_store().post(
        post["_id"],
        author={"id": author.handle, "name": author.name},
        text=text,
        parent_slug=parent_slug,
    )
    tasks.refresh_summary.enqueue(str(post["_id"]))
    return comment


def _own(post_id: ObjectId, slug: str, actor: User) -> Comment:
    comment = get_store().get(post_id, slug)
    if comment is None or comment.deleted:
        raise CommentRefused("That comment is gone.")
    if comment.author["id"] != actor.handle:
        raise CommentRefused("Only its author can change a comment.")
    return comment


def comment_edit(*, post_id: ObjectId, slug: str, actor: User, text: str) -> None:
    _own(post_id, slug, actor)
    get_store().edit(post_id, slug, text=text)
    tasks.refresh_summary.enqueue(str(post_id))


def comment_delete(*, post_id: ObjectId, slug: str, actor: User) -> None:
    """The author deletes their comment: "[deleted]", the replies stay."""
    _own(post_id, slug, actor)
    comment_soft_delete(post_id=post_id, slug=slug, by="author")


def comment_soft_delete(*, post_id: ObjectId, slug: str, by: str) -> bool:
    done = get_store().soft_delete(post_id, slug, by=by)
    tasks.refresh_summary.enqueue(str(post_id))
    return done


def comment_restore(*, post_id: ObjectId, slug: str, text: str) -> bool:
    done = get_store().restore(post_id, slug, text=text)
    tasks.refresh_summary.enqueue(str(post_id))
    return done


def summary_refresh(post_id: ObjectId) -> None:
    """Recount and re-copy the last comments onto the post and its feed entries."""
    from django.conf import settings

    store = get_store()
    shown = [
        {
            "by": c.author,
            "ts": c.posted,
            "text": c.display_text,
            "slug": c.slug,
        }
        for c in store.last(post_id, settings.FEED_COMMENTS_SHOWN)
    ]
    Post._get_collection().update_one(
        {"_id": post_id},
        {"$set": {"comments_count": store.count(post_id), "comments_shown": shown}},
    )
    fanout.refresh_copies(post_id, ["comments_count", "comments_shown"])
