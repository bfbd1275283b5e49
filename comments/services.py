"""Every write to comments. Stores only store; who may do what is decided here.

After each change the post's `comments_count` and last FEED_COMMENTS_SHOWN
comments are refreshed out of band (*Storing Updates and Profiles*'s `comment()`), on the post and
on embedded feed entries alike: a task (comments/tasks.py) runs
comments/summaries.py.

Writes go to the store of record (COMMENTS_STORE), never to the store an
admin reads through at /dev/, and are copied into the shadow stores
(COMMENTS_SHADOW_STORES, comments/stores/shadows.py).
"""

from bson import ObjectId
from django.conf import settings

from comments import tasks
from comments.stores import (
    STORES,
    Comment,
    DiscussionFull,
    ReplyTooDeep,
    UnknownParent,
    get_store,
    ledger,
    shadows,
)
from comments.summaries import summary_refresh
from feeds import mentions
from feeds.selectors import posts as feed_posts
from feeds.services import posts as post_services
from profiles import selectors as people
from profiles.documents import User
from socialsite import events, owners


class CommentRefused(Exception):
    """A comment action that is not allowed, with a message for the user."""


class CommentLimitReached(CommentRefused):
    """The store's limits refuse it (a full discussion, a reply too deep)."""


FULL = "This discussion is full: it can't take any more comments."
FULL_EDIT = "This discussion is full: there is no room to make this comment longer."
TOO_DEEP = "This thread is as deep as it can go: reply to an earlier comment in it."


#: The audit log action when a post's author deletes someone's comment on it.
POST_AUTHOR_DELETE = "comment.delete_by_post_author"


def comment_create(
    *, post: dict, author: User, text: str, parent_slug: str | None = None
) -> Comment:
    """`post` is a post the author may see (the caller checked).

    Refused on a removed post, on the post of someone who blocked the author
    (or whom the author blocked), and as a reply to a comment by either.
    Raises UnknownParent for a parent the discussion does not hold, and
    CommentLimitReached when the store has no room for it."""
    refuse_if_frozen(post)
    replying_to = None
    if parent_slug is not None:
        parent = shadows.primary().get(post["_id"], parent_slug)
        if parent is None:
            raise UnknownParent(post["_id"], parent_slug)
        replying_to = parent.author["id"]
    refuse_across_blocks(author, owner=post["by"]["id"], replying_to=replying_to)
    try:
        comment = shadows.primary().post(
            post["_id"],
            author={"id": author.handle, "name": author.name},
            text=text,
            parent_slug=parent_slug,
        )
    except ReplyTooDeep as exc:
        raise CommentLimitReached(TOO_DEEP) from exc
    except DiscussionFull as exc:
        raise CommentLimitReached(FULL) from exc
    shadows.copy_comment(post["_id"], comment)
    tasks.refresh_summary.enqueue(str(post["_id"]))
    events.comment_created.send(
        sender=Comment, post=post, comment=comment, replying_to=replying_to
    )
    return comment


def refuse_if_frozen(post: dict) -> None:
    """Removed means frozen (docs/privacy.md): while a moderator has the post
    removed, nothing in its thread changes, so a restore shows it as it was."""
    if post.get("removed"):
        raise CommentRefused("This post was removed by a moderator: its comments can't change.")


#: What refusing across a block says of the comment acted on, by action.
ACROSS_BLOCK = {
    "reply": ("unblock them to reply", "You can't reply to @{}."),
    "vote": ("unblock them to vote on their comments", "You can't vote on @{}'s comments."),
}


def refuse_across_blocks(
    actor: User, *, owner: str, replying_to: str | None = None, action: str = "reply"
) -> None:
    """Blocks hide in both directions (docs/privacy.md): nobody comments on the
    posts of someone who blocked them or whom they blocked, nor replies to
    (or votes on: `action`) such a person's comment. One read (by `_id`),
    and only when others are involved; the actor's own list is on their
    document."""
    others = [h for h in dict.fromkeys((owner, replying_to)) if h and h != actor.handle]
    if not others:
        return
    unblock, refused = ACROSS_BLOCK[action]
    mine = set(actor.blocked or ())
    if owner in mine:
        raise CommentRefused(f"You blocked @{owner}: unblock them to comment on their posts.")
    if replying_to in mine:
        raise CommentRefused(f"You blocked @{replying_to}: {unblock}.")
    blockers = people.blockers_among(actor.handle, others)
    if owner in blockers:
        raise CommentRefused(f"You can't comment on @{owner}'s posts.")
    if replying_to in blockers:
        raise CommentRefused(refused.format(replying_to))


def _post_of(post_id: ObjectId) -> dict:
    post = feed_posts.post_read(post_id, {"by": 1, "removed": 1})
    if post is None:
        raise CommentRefused("That comment is gone.")
    return post


def alive(post_id: ObjectId, slug: str) -> Comment:
    comment = shadows.primary().get(post_id, slug)
    if comment is None or comment.deleted:
        raise CommentRefused("That comment is gone.")
    return comment


def comment_edit(*, post_id: ObjectId, slug: str, actor: User, text: str) -> None:
    """Only the comment's author, never on a removed post, nor on the post of
    someone who blocked them."""
    post = _post_of(post_id)
    refuse_if_frozen(post)
    comment = alive(post_id, slug)
    if comment.author["id"] != actor.handle:
        raise CommentRefused("Only its author can change a comment.")
    refuse_across_blocks(actor, owner=post["by"]["id"])
    try:
        edited = shadows.primary().edit(post_id, slug, text=text)
    except DiscussionFull as exc:
        raise CommentLimitReached(FULL_EDIT) from exc
    if not edited:
        raise CommentRefused("That comment is gone.")  # deleted meanwhile
    shadows.replay("edit", post_id, slug, text=text)
    tasks.refresh_summary.enqueue(str(post_id))


def comment_delete(*, post_id: ObjectId, slug: str, actor: User) -> str:
    """A soft delete; the replies stay. The comment's author deletes it
    ("[deleted]"); the post's author may delete any comment on their post
    ("[removed by the author]"), which is announced with the text
    (`comment_removed_by_post_author`: the moderation audit log records it).
    Returns who deleted it (a DELETED_BY value)."""
    post = _post_of(post_id)
    refuse_if_frozen(post)
    comment = alive(post_id, slug)
    if comment.author["id"] == actor.handle:
        by = "author"
    elif post["by"]["id"] == actor.handle:
        by = "post_author"
    else:
        raise CommentRefused("Only its author or the post's author can delete a comment.")
    if not comment_soft_delete(post_id=post_id, slug=slug, by=by, author=comment.author["id"]):
        raise CommentRefused("That comment is gone.")  # deleted meanwhile
    if by == "post_author":
        events.comment_removed_by_post_author.send(
            sender=Comment,
            post_id=post_id,
            slug=slug,
            actor=actor.handle,
            author=comment.author["id"],
            text=comment.text,
        )
    return by


def comment_soft_delete(
    *, post_id: ObjectId, slug: str, by: str, author: str | None = None
) -> bool:
    """`author`: the comment's, when the caller read it (its own delete
    federates: docs/federation.md)."""
    done = shadows.primary().soft_delete(post_id, slug, by=by)
    shadows.replay("soft_delete", post_id, slug, by=by)
    tasks.refresh_summary.enqueue(str(post_id))
    if done:
        events.comment_deleted.send(
            sender=Comment, post_id=post_id, slug=slug, by=by, author=author
        )
    return done


def comment_restore(*, post_id: ObjectId, slug: str, text: str) -> bool:
    done = shadows.primary().restore(post_id, slug, text=text)
    shadows.replay("restore", post_id, slug, text=text)
    tasks.refresh_summary.enqueue(str(post_id))
    return done


def comments_shown_truncate(*, limit: int | None = None) -> dict:
    """Seed 000's `truncate_extra_comments`: cut every `comments_shown` (on
    posts and on embedded feed entries) back to the newest `limit`
    (FEED_COMMENTS_SHOWN). Returns {"posts": n, "<collection>": entries, ...}.
    The feeds own those documents: they do the trimming."""
    limit = settings.FEED_COMMENTS_SHOWN if limit is None else limit
    return post_services.comments_shown_truncate(limit=limit)


def comments_erase_author(handle: str, limit: int) -> int:
    """Erasure (docs/accounts.md#erasure): up to `limit` of the person's
    comments become "[deleted account]" placeholders in every store (a past
    setting's too), so replies keep their place; their log lines stop
    naming them; the posts' previews are copied again at once. Returns how many."""
    stores = [get_store(name) for name in STORES]
    keys = sorted({key for store in stores for key in store.authored(handle, limit)})
    for discussion_id, slug in keys:
        for store in stores:
            store.erase_author(discussion_id, slug)
        owners.lease_keep()  # a write per store per comment: the walk is alive
    ledger.anonymize(handle, keys)
    if not keys:  # then others' comments that mention them
        keys = sorted({key for store in stores for key in store.mentioning(handle, limit)})
        for discussion_id, slug in keys:
            _unmention(stores, discussion_id, slug, handle)
            owners.lease_keep()
    # The posts' previews, rewritten here in the walk, not by a task: a task
    # lost after the walk ended would leave their name and words under others'
    # posts (the walk is itself the background, and its verification reads
    # `comments_shown.by` after).
    for discussion_id in sorted({discussion_id for discussion_id, _ in keys}):
        summary_refresh(discussion_id)
    return len(keys)


def _unmention(stores: list, discussion_id: ObjectId, slug: str, handle: str) -> None:
    """Rewrite the comment in every store that holds it, each from its own text."""
    for store in stores:
        comment = store.get(discussion_id, slug)
        if comment is not None:
            text = mentions.unmention(comment.text, handle)
            store.rewrite(discussion_id, slug, text=text)


def discussions_delete(*, post_ids: list[ObjectId]) -> None:
    """Deleted posts' discussions go from every store (the posts are gone,
    and with them every way to the threads)."""
    for name in STORES:
        get_store(name).delete_discussions(post_ids)
