"""What a report or a moderator action points at: a post, a comment, a user
or a direct message.

A target key is "<type>:<id>": "post:<post id>", "comment:<post id>/<slug
path>", "user:<handle>", "message:<conversation id>/<message id>". Keys come
from forms, so they are parsed strictly.
"""

from dataclasses import dataclass

from bson import ObjectId

from feeds.selectors import posts as feed_posts
from messaging import selectors as messaging
from profiles.documents import User
from socialsite.ids import parse_handle, parse_object_id

SLUG_PART_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789")


@dataclass
class Target:
    type: str
    id: str
    author: str | None = None
    excerpt: str = ""
    link: str = ""
    gone: bool = False  # removed or deleted already: nothing left to report

    @property
    def key(self) -> str:
        return f"{self.type}:{self.id}"

    @property
    def comment_address(self) -> tuple[ObjectId, str]:
        post_id, slug = self.id.split("/", 1)
        return ObjectId(post_id), slug

    @property
    def message_address(self) -> tuple[ObjectId, ObjectId]:
        """(conversation id, message id) of a "message" target."""
        conversation_id, message_id = self.id.split("/", 1)
        return ObjectId(conversation_id), ObjectId(message_id)


def parse_slug(value: object) -> str | None:
    if not isinstance(value, str) or not 0 < len(value) <= 200:
        return None
    parts = value.strip("/").split("/")
    if all(part and set(part) <= SLUG_PART_CHARS for part in parts):
        return "/".join(parts)
    return None


def _excerpt(text: str) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= 140 else text[:139] + "…"


def post_excerpt(post: dict) -> str:
    detail = post.get("detail") or {}
    return _excerpt(
        detail.get("text")
        or detail.get("question")
        or detail.get("place")
        or detail.get("url")
        or ""
    )


def resolve_target(key_or_type: str | None, target_id: str | None = None) -> Target | None:
    """The target, loaded to check it exists; None for anything malformed or unknown."""
    kind: str | None  # a missing type matches none below: unknown, so None
    if target_id is None:
        if not isinstance(key_or_type, str) or ":" not in key_or_type:
            return None
        kind, target_id = key_or_type.split(":", 1)
    else:
        kind = key_or_type
    if kind == "post":
        post_id = parse_object_id(target_id)
        post = (
            feed_posts.post_read(post_id, {"by": 1, "detail": 1, "removed": 1})
            if post_id
            else None
        )
        if post is None:
            return None
        return Target(
            "post",
            str(post_id),
            post["by"]["id"],
            post_excerpt(post),
            f"/posts/{post_id}/",
            bool(post.get("removed")),
        )
    if kind == "comment":
        if not isinstance(target_id, str) or "/" not in target_id:
            return None
        raw_post, raw_slug = target_id.split("/", 1)
        post_id, slug = parse_object_id(raw_post), parse_slug(raw_slug)
        if post_id is None or slug is None:
            return None
        from comments.stores import get_store

        comment = get_store().get(post_id, slug)
        if comment is None:
            return None
        return Target(
            "comment",
            f"{post_id}/{slug}",
            comment.author["id"],
            _excerpt(comment.text),
            f"/posts/{post_id}/c/{slug}/",
            comment.deleted,
        )
    if kind == "user":
        handle = parse_handle(target_id)
        if handle is None:
            return None
        user = User.objects(handle=handle).only("handle", "name").first()
        if user is None:
            return None
        return Target("user", handle, handle, _excerpt(user.name), f"/u/{handle}/")
    if kind == "message":
        return _message_target(target_id)
    return None


def parse_message_address(value: object) -> tuple[ObjectId, ObjectId] | None:
    """The (conversation id, message id) a "message" target id names, both
    ObjectIds ("<24 hex>/<24 hex>"); None for anything else."""
    if not isinstance(value, str) or value.count("/") != 1:
        return None
    raw_conversation, raw_message = value.split("/")
    conversation_id, message_id = parse_object_id(raw_conversation), parse_object_id(raw_message)
    if conversation_id is None or message_id is None:
        return None
    return conversation_id, message_id


def _message_target(target_id: object) -> Target | None:
    """A direct message: only the message itself, never the rest of its
    conversation (docs/moderation.md#direct-messages). No link: a moderator
    who is not in the conversation gets a 404 there, as everyone else does."""
    address = parse_message_address(target_id)
    message = messaging.message_of(*address) if address else None
    # A "left the conversation" line has no words of anyone's to report.
    if address is None or message is None or message.get("kind") == "left":
        return None
    by = message.get("by") or ""
    return Target(
        "message",
        f"{address[0]}/{address[1]}",
        by or None,
        _excerpt(message.get("text") or ""),
        "",
        # Removed by a moderator, or its author's account was erased.
        bool(message.get("removed_by")) or not by,
    )
