"""Comments shown as statuses (docs/api.md#statuses): a reply is a comment,
its status id its post's id and its slug (`comment_status_id`)."""

from typing import TYPE_CHECKING, Any

from django.urls import reverse

from api.entities.account import account
from api.entities.dates import iso
from api.entities.status import Authors, comment_status_id, mention, text_html, visibility_of
from comments.stores import Comment
from feeds import mentions
from profiles.documents import User
from socialsite.cursors import EPOCH

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor


def comment_statuses(
    comments: list[Comment], post: dict, viewer: "User | AnonymousVisitor", base: str
) -> list[dict]:
    """Comments on `post` as replies (a reply is a comment: docs/api.md#statuses),
    in order; one `$in` for their authors. A deleted comment shows its
    tombstone, as the thread does."""
    if not comments:
        return []
    authors = Authors({c.author["id"] for c in comments if c.author.get("id")}, base)
    mentions.prefetch([c.text for c in comments])
    post_hex = str(post["_id"])
    # Whom each replies to: the post's author, or its parent comment's
    # when the parent is among these (else null: not read for this).
    by_slug = {c.slug: c.author.get("id") or None for c in comments}
    return [
        _comment_status(
            comment,
            post,
            post_hex,
            authors,
            viewer.is_authenticated,
            replying_to=by_slug.get(comment.parent_slug)
            if comment.parent_slug
            else post["by"]["id"],
        )
        for comment in comments
    ]


def _comment_status(
    comment: Comment,
    post: dict,
    post_hex: str,
    authors: Authors,
    signed_in: bool,
    *,
    replying_to: str | None,
) -> dict:
    base = authors.base
    status_id = comment_status_id(post["_id"], comment.slug)
    url = base + reverse("comments:permalink", args=[post_hex, comment.slug])
    parent = comment.parent_slug
    handle = comment.author.get("id") or ""
    author = authors.get(handle, comment.author.get("name") or "") if handle else None
    data: dict[str, Any] = {
        "id": status_id,
        "uri": url,
        "url": url,
        "created_at": iso(comment.posted),
        "account": author
        or account(User(handle="deleted", name="[deleted account]", created=EPOCH), base),
        "content": text_html(comment.display_text, base),
        "visibility": visibility_of(post.get("circles") or ()),
        "sensitive": False,
        "spoiler_text": "",
        "media_attachments": [],
        "application": None,
        "mentions": [
            mention(h, base)
            for h in sorted(mentions.existing(mentions.handles_in(comment.display_text)))
        ],
        "tags": [],
        "emojis": [],
        "reblogs_count": 0,
        "favourites_count": 0,
        "replies_count": comment.replies,
        "in_reply_to_id": comment_status_id(post["_id"], parent) if parent else post_hex,
        "in_reply_to_account_id": replying_to,
        "reblog": None,
        "poll": None,
        "card": None,
        "language": None,
        "text": None,
        "edited_at": iso(comment.edited),
    }
    if signed_in:
        data.update(favourited=False, reblogged=False, muted=False, bookmarked=False, filtered=[])
    return data
