"""Activities from other servers, applied through the same services as our
own pages (docs/federation.md#what-federates): a remote like is
`like_create` by the remote person, a reply is `comment_create`, so every
rule (blocks, removed posts, circles, limits) is the one the pages keep.

Each handler is idempotent: a server resends what it did not see answered.
A handler raises `Refused` for an activity that is not allowed (a reply to
a circles-only post, a Note attributed to someone else); the inbox answers
it with 4xx, having stored nothing.
"""

import contextlib
import logging
from collections.abc import Callable

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from comments import services as comments
from comments.stores import UnknownParent
from federation import notes, outbox, render, resolve, uris
from federation.documents import ApObject, RemoteFollow
from feeds.documents import PUBLIC
from feeds.selectors import posts as post_reads
from feeds.services import likes, polls, posts, reposts
from profiles.documents import User
from profiles.services import erasure, graph
from profiles.services.users import GraphError, UnknownUser

log = logging.getLogger(__name__)

POST_FIELDS = {"by": 1, "circles": 1, "removed": 1, "to": 1, "type": 1}


class Refused(Exception):
    """An activity we do not take, with the reason (the inbox's 4xx body)."""


def _id_of(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, str) and len(value) < 2000 else None


def _local_person(value: object) -> User:
    local = uris.parse_local(_id_of(value))
    if local is None or local.kind != "actor":
        raise Refused("That is not a person here.")
    person = User.objects(handle=local.handle, status="active").first()
    if person is None:
        raise Refused("No such person here.")
    return person


def _target_post(value: object) -> dict:
    """The post an activity points at: ours by its URL, or a remote one we hold."""
    uri = _id_of(value)
    local = uris.parse_local(uri)
    post_id: ObjectId | None = None
    if local is not None and local.kind == "post":
        post_id = local.post
    elif uri:
        mapped = ApObject.objects(uri=uri, kind="post").only("post").first()
        post_id = mapped.post if mapped else None
    post = post_reads.post_read(post_id, POST_FIELDS) if post_id else None
    if post is None or not render.is_public(post):
        raise Refused("No such public post here.")
    return post


def _send_reply(kind: str, follow: dict, person: User, actor: User) -> None:
    answer = {
        "id": uris.activity(kind.lower(), uris.actor(person.handle), str(ObjectId())),
        "type": kind,
        "actor": uris.actor(person.handle),
        "object": follow,
    }
    inbox = (actor.actor or {}).get("inbox")
    if inbox:
        outbox.send(answer, person.handle, [inbox])


def follow(activity: dict, actor: User) -> None:
    person = _local_person(activity.get("object"))
    try:
        graph.follow_create(follower=actor, followee=person.handle, target=person)
    except (GraphError, UnknownUser):
        _send_reply("Reject", activity, person, actor)
        return
    _send_reply("Accept", activity, person, actor)


def _our_follow(activity: dict, actor: User) -> RemoteFollow | None:
    obj = activity.get("object")
    follow_id = _id_of(obj)
    found = (
        RemoteFollow.objects(activity=follow_id, followee=actor.handle).first()
        if follow_id
        else None
    )
    if found is None and isinstance(obj, dict):  # some servers make up their own id
        local = uris.parse_local(_id_of(obj.get("actor")))
        if local is not None and local.kind == "actor":
            found = RemoteFollow.objects(id=f"{local.handle} {actor.handle}").first()
    return found


def accept(activity: dict, actor: User) -> None:
    found = _our_follow(activity, actor)
    if found is not None:
        RemoteFollow._get_collection().update_one(
            {"_id": found.id}, {"$set": {"state": "accepted"}}
        )


def reject(activity: dict, actor: User) -> None:
    found = _our_follow(activity, actor)
    if found is not None:
        RemoteFollow._get_collection().delete_one({"_id": found.id})
        graph.follow_delete(follower=found.follower, followee=found.followee)


def create(activity: dict, actor: User) -> None:
    obj = activity.get("object")
    if not isinstance(obj, dict) or not _id_of(obj):
        raise Refused("Create needs an object with an id.")
    if _id_of(obj.get("attributedTo")) not in (None, (actor.actor or {}).get("id")):
        raise Refused("The Note is someone else's.")
    seen = ApObject.objects(uri=obj["id"]).first()
    if seen is not None:
        # Seen already; but a process that died between the map and the post
        # left the map alone: this resend makes the post, with the same id.
        if seen.kind == "post" and post_reads.post_read(seen.post, {"_id": 1}) is None:
            _post(obj, actor, post_id=seen.post)
        return
    if obj.get("inReplyTo"):
        _reply(obj, actor)
        return
    if not notes.is_public(obj):
        return  # only public posts federate in this version: not an error
    _post(obj, actor)


def _post(obj: dict, actor: User, *, post_id: ObjectId | None = None) -> None:
    try:
        fields = notes.post_fields(obj)
    except notes.NoteError as exc:
        raise Refused(str(exc)) from exc
    if post_id is None:
        # The map first: of two deliveries of one Create racing, one inserts
        # it (E11000 for the other), so one post is made.
        post_id = ObjectId()
        try:
            ApObject._get_collection().insert_one(
                {"_id": obj["id"], "kind": "post", "post": post_id, "by": actor.handle}
            )
        except DuplicateKeyError:
            return
    try:
        posts.post_create(
            author=actor,
            type=fields["type"],
            detail=fields["detail"],
            circles=[PUBLIC],
            ts=notes.when(obj.get("published")),
            post_id=post_id,
            url=notes.link_of(obj.get("url")) or obj["id"],
            mentioned=notes.mentioned_locals(obj),
        )
    except posts.AlreadyPosted:
        pass  # a racing resend made it with the same id: one post
    except posts.PostError as exc:
        ApObject._get_collection().delete_one({"_id": obj["id"]})
        raise Refused(str(exc)) from exc


def _reply(obj: dict, actor: User) -> None:
    parent = _id_of(obj.get("inReplyTo"))
    local = uris.parse_local(parent)
    post_id, parent_slug = None, None
    if local is not None and local.kind in ("post", "comment"):
        post_id, parent_slug = local.post, local.slug or None
    elif parent:
        mapped = ApObject.objects(uri=parent).first()
        if mapped is not None and mapped.kind in ("post", "comment"):
            post_id, parent_slug = mapped.post, mapped.slug
    if post_id is None:
        return  # a reply in a conversation nobody here follows
    post = post_reads.post_read(post_id, POST_FIELDS)
    if post is None or not render.is_public(post):
        raise Refused("No such public post here.")
    if post["type"] == "poll" and isinstance(obj.get("name"), str) and not obj.get("content"):
        _vote(obj, actor, post_id)
        return
    text = (
        notes.post_fields({**obj, "type": "Note"})["detail"]["text"] if obj.get("content") else ""
    )
    if not text:
        raise Refused("The reply is empty.")
    try:
        comment = comments.comment_create(
            post=post, author=actor, text=text, parent_slug=parent_slug
        )
    except (comments.CommentRefused, UnknownParent) as exc:
        raise Refused(str(exc)) from exc
    ApObject._get_collection().update_one(
        {"_id": obj["id"]},
        {
            "$setOnInsert": {
                "kind": "comment",
                "post": post_id,
                "slug": comment.slug,
                "by": actor.handle,
            }
        },
        upsert=True,
    )


def _vote(obj: dict, actor: User, post_id: ObjectId) -> None:
    """A vote on one of our polls: a Note naming the option (Mastodon's way)."""
    detail = (post_reads.post_read(post_id, {"detail.options": 1}) or {}).get("detail") or {}
    options = detail.get("options") or []
    if obj["name"] not in options:
        raise Refused("That is not one of the poll's options.")
    try:
        polls.poll_vote(post_id=post_id, voter=actor.handle, option=options.index(obj["name"]))
    except polls.PollError as exc:
        raise Refused(str(exc)) from exc


def update(activity: dict, actor: User) -> None:
    obj = activity.get("object")
    if not isinstance(obj, dict):
        raise Refused("Update needs an object.")
    if obj.get("type") in resolve.ACTOR_TYPES:
        if _id_of(obj) != (actor.actor or {}).get("id"):
            raise Refused("Only a person updates themselves.")
        resolve.store_actor(obj, fetched_from=obj["id"])
        return
    mapped = ApObject.objects(uri=_id_of(obj), kind="post", by=actor.handle).first()
    if mapped is None:
        return  # a post nobody here has
    if obj.get("type") == "Question":
        votes = notes.poll_votes(obj)
        if votes is not None:
            polls.poll_counts_set(post_id=mapped.post, author=actor.handle, votes=votes)
        return
    try:
        fields = notes.post_fields(obj)
        posts.post_edit(post_id=mapped.post, actor=actor, changes=fields["detail"])
    except (notes.NoteError, posts.PostError) as exc:
        raise Refused(str(exc)) from exc
    except posts.NotFound:
        return


def delete(activity: dict, actor: User) -> None:
    target = _id_of(activity.get("object"))
    if target is None:
        raise Refused("Delete needs an object.")
    if target == (actor.actor or {}).get("id"):
        erasure.erasure_begin(user=actor)
        return
    mapped = ApObject.objects(uri=target, by=actor.handle).first()
    if mapped is None:
        return
    if mapped.kind == "post":
        with contextlib.suppress(posts.NotFound):
            posts.post_delete(post_id=mapped.post, actor=actor)
    elif mapped.kind == "comment":
        with contextlib.suppress(comments.CommentRefused):
            comments.comment_delete(post_id=mapped.post, slug=mapped.slug, actor=actor)
    ApObject._get_collection().delete_one({"_id": target})


def like(activity: dict, actor: User) -> None:
    post = _target_post(activity.get("object"))
    likes.like_create(post_id=post["_id"], user=actor)


def announce(activity: dict, actor: User) -> None:
    try:
        post = _target_post(activity.get("object"))
    except Refused:
        return  # a repost of something nobody here holds
    reposts.repost_create(post_id=post["_id"], user=actor)


def block(activity: dict, actor: User) -> None:
    person = _local_person(activity.get("object"))
    graph.block_create(blocker=actor, blocked=person.handle)


def undo(activity: dict, actor: User) -> None:
    obj = activity.get("object")
    if not isinstance(obj, dict):
        raise Refused("Undo needs the activity it undoes.")
    kind = obj.get("type")
    if kind == "Follow":
        person = _local_person(obj.get("object"))
        graph.follow_delete(follower=actor.handle, followee=person.handle)
    elif kind == "Like":
        post = _target_post(obj.get("object"))
        likes.like_delete(post_id=post["_id"], user=actor)
    elif kind == "Announce":
        post = _target_post(obj.get("object"))
        reposts.repost_delete(post_id=post["_id"], user=actor)
    elif kind == "Block":
        person = _local_person(obj.get("object"))
        graph.block_delete(blocker=actor, blocked=person.handle)


HANDLERS: dict[str, Callable[[dict, User], None]] = {
    "Follow": follow,
    "Accept": accept,
    "Reject": reject,
    "Create": create,
    "Update": update,
    "Delete": delete,
    "Like": like,
    "Announce": announce,
    "Block": block,
    "Undo": undo,
}
