"""What our people do, sent to the servers of those it concerns
(docs/federation.md#what-federates).

The apps announce their writes (socialsite/events.py); each receiver here
turns one into an activity and queues its deliveries (federation/delivery.py).
Only our own people's acts go out: the acts of remote people that the inbox
replays through the same services announce the same events, and are
skipped here by their handle. Circles-only posts, posts on someone else's
wall and everything on them stay on the instance.
"""

from typing import Any
from urllib.parse import quote

from bson import ObjectId

from federation import delivery, render, uris
from federation.documents import RemoteFollow
from feeds.documents import PUBLIC
from feeds.selectors import posts as post_reads
from profiles.documents import User
from profiles.selectors import remote as remote_people
from socialsite import events
from socialsite.ids import is_remote

AS = "https://www.w3.org/ns/activitystreams"


def _inboxes(handles: list[str] | set[str]) -> list[str]:
    """The inboxes to reach these remote people: a server's shared inbox
    once for all its people there, else each person's own."""
    remote = sorted(h for h in handles if is_remote(h))
    if not remote:
        return []
    found = []
    for person in User.objects(handle__in=remote, status="active").only("actor"):
        actor = person.actor or {}
        inbox = actor.get("shared_inbox") or actor.get("inbox")
        if inbox:
            found.append(inbox)
    return sorted(set(found))


def _audience(author: str, also: list[str] | set[str] | tuple[()] = ()) -> list[str]:
    return _inboxes({*remote_people.remote_followers(author), *also})


def send(activity: dict, signer: str, inboxes: list[str]) -> None:
    if inboxes:
        delivery.deliver(activity={"@context": AS, **activity}, signer=signer, inboxes=inboxes)


def _public_post(post_id: ObjectId) -> dict | None:
    post = post_reads.post_read(post_id, {"delivery": 0, "comments": 0, "comment_tree": 0})
    if post is None or is_remote(post["by"]["id"]) or not render.is_public(post):
        return None
    return post


def _create_or_update(post: dict, kind: str, followers: list[str]) -> None:
    author = post["by"]["id"]
    note = render.note(post)
    mentioned = [h for h in post.get("mentions") or [] if is_remote(h)]
    inboxes = _inboxes({*followers, *mentioned})
    if not inboxes:
        return
    send(render.wrapped(note, kind), author, inboxes)


def _post_created(sender: Any, post: Any, **kwargs: Any) -> None:
    """A public post of ours, to the author's remote followers and the
    remote people it mentions. An author counted with no remote followers
    costs nothing; one not counted, a covered read of the edges."""
    if is_remote(post.by.id) or PUBLIC not in post.circles or post.to:
        return
    mentioned = any(is_remote(h) for h in post.mentions or [])
    author = kwargs.get("author")
    counted = getattr(author, "remote_followers_count", None)
    if counted == 0 and not mentioned:
        return  # nobody elsewhere to tell: not even a read
    followers = remote_people.remote_followers(post.by.id)
    if followers or mentioned:
        _create_or_update(post.to_mongo().to_dict(), "Create", followers)


def _post_changed(sender: Any, post_id: ObjectId, fields: list[str], **kwargs: Any) -> None:
    if "detail" not in fields:
        return
    found = _public_post(post_id)
    if found is not None:
        _create_or_update(found, "Update", remote_people.remote_followers(found["by"]["id"]))


def _post_deleted(sender: Any, post_id: ObjectId, post: dict, **kwargs: Any) -> None:
    author = post["by"]["id"]
    if is_remote(author) or not render.is_public(post):
        return
    mentioned = [h for h in post.get("mentions") or [] if is_remote(h)]
    inboxes = _audience(author, mentioned)
    if not inboxes:
        return
    send(render.deleted(author, uris.post(post_id)), author, inboxes)


def _mark(
    kind: str, post_id: ObjectId, author: str, actor: str, *, undo: bool, user: Any = None
) -> None:
    """A like or a repost of ours, or its undoing: a like goes to a remote
    author only (nothing read otherwise); a repost to the reposter's remote
    followers and a remote author (one covered read, then the post's)."""
    if is_remote(actor):
        return
    if kind == "Like":
        if not is_remote(author):
            return
        inboxes = _inboxes([author])
    else:
        if getattr(user, "remote_followers_count", None) == 0 and not is_remote(author):
            return  # counted with nobody elsewhere: not even a read
        followers = remote_people.remote_followers(actor)
        if not followers and not is_remote(author):
            return
        inboxes = _inboxes({*followers, author})
    post = post_reads.post_read(post_id, {"by": 1, "circles": 1, "removed": 1, "to": 1})
    if post is None or not render.is_public(post) or not inboxes:
        return
    target = render.post_uri(post_id)
    mark: dict[str, object] = {
        "id": uris.activity(kind, uris.actor(actor), str(post_id)),
        "type": kind,
        "actor": uris.actor(actor),
        "object": target,
    }
    if kind == "Announce":
        mark.update(to=[uris.PUBLIC], cc=[uris.followers(actor), render.actor_uri(author)])
    if undo:
        mark = {"id": f"{mark['id']}/undo", "type": "Undo", "actor": mark["actor"], "object": mark}
    send(mark, actor, inboxes)


def _liked(sender: Any, post_id: ObjectId, author: str, actor: str, **kwargs: Any) -> None:
    _mark("Like", post_id, author, actor, undo=False)


def _unliked(sender: Any, post_id: ObjectId, author: str, actor: str, **kwargs: Any) -> None:
    _mark("Like", post_id, author, actor, undo=True)


def _reposted(sender: Any, post_id: ObjectId, author: str, actor: str, **kwargs: Any) -> None:
    _mark("Announce", post_id, author, actor, undo=False, user=kwargs.get("user"))


def _unreposted(sender: Any, post_id: ObjectId, actor: str, **kwargs: Any) -> None:
    if is_remote(actor):
        return
    post = post_reads.post_read(post_id, {"by": 1})
    if post is not None:
        _mark("Announce", post_id, post["by"]["id"], actor, undo=True, user=kwargs.get("user"))


def _commented(
    sender: Any, post: dict, comment: Any, replying_to: str | None, **kwargs: Any
) -> None:
    """Our person's comment on a public post: to the post's and the parent's
    authors when remote, and to the commenter's remote followers."""
    handle = comment.author.get("id") or ""
    if not handle or is_remote(handle):
        return
    concerned = {h for h in (post["by"]["id"], replying_to) if h and is_remote(h)}
    followers = remote_people.remote_followers(handle)
    if not concerned and not followers:
        return
    full = post_reads.post_read(post["_id"], {"by": 1, "circles": 1, "removed": 1, "to": 1})
    if full is None or not render.is_public(full):
        return
    note = render.reply_note(
        full, slug=comment.slug, text=comment.text, handle=handle, ts=comment.posted
    )
    send(render.wrapped(note), handle, _inboxes({*concerned, *followers}))


def _comment_deleted(sender: Any, post_id: ObjectId, slug: str, by: str, **kwargs: Any) -> None:
    """Our person deleted their own comment on a public post: its Delete
    goes where the comment went (a moderator's removal stays here)."""
    author = kwargs.get("author")
    if by != "author" or not author or is_remote(author):
        return
    post = post_reads.post_read(post_id, {"by": 1, "circles": 1, "removed": 1, "to": 1})
    if post is None or not render.is_public(post):
        return
    inboxes = _audience(author, [post["by"]["id"]])
    if not inboxes:
        return
    send(render.deleted(author, uris.comment(post_id, slug)), author, inboxes)


def _profile_changed(sender: Any, user: Any, **kwargs: Any) -> None:
    """Our person's new name or bio, to the servers of their followers there."""
    if is_remote(user.handle) or getattr(user, "remote_followers_count", None) == 0:
        return
    inboxes = _audience(user.handle)
    if inboxes:
        person = render.person(user)
        activity = {
            "id": uris.activity("update", person["id"], str(ObjectId())),
            "type": "Update",
            "actor": person["id"],
            "to": [uris.PUBLIC],
            "object": {key: value for key, value in person.items() if key != "@context"},
        }
        send(activity, user.handle, inboxes)


def _voted(
    sender: Any, post_id: ObjectId, author: str, voter: str, choice: str, **kw: Any
) -> None:
    """Our person's vote on a remote poll: a Note naming the option, replying
    to the Question, to its author alone (as Mastodon votes)."""
    if is_remote(voter) or not is_remote(author):
        return
    author_uri = render.actor_uri(author)
    vote_id = uris.activity("vote", uris.actor(voter), str(post_id), quote(choice, safe=""))
    vote = {
        "id": vote_id,
        "type": "Note",
        "name": choice,
        "attributedTo": uris.actor(voter),
        "inReplyTo": render.post_uri(post_id),
        "to": [author_uri],
    }
    activity = {
        "id": vote_id + "/activity",
        "type": "Create",
        "actor": uris.actor(voter),
        "to": [author_uri],
        "object": vote,
    }
    send(activity, voter, _inboxes([author]))


def follow_activity(follower: str, followee: str, activity_id: str | None = None) -> dict:
    """Our Follow: a fresh id each time (a server keeps the id of the follow
    it accepted; a follow after an unfollow is a new one), or the stored one
    for its Undo."""
    person = User.objects(handle=followee).only("actor").first()
    return {
        "id": activity_id or uris.activity("follow", uris.actor(follower), str(ObjectId())),
        "type": "Follow",
        "actor": uris.actor(follower),
        "object": (person.actor or {}).get("id") if person else "",
    }


def _followed(sender: Any, follower: str, followee: str, **kwargs: Any) -> None:
    if is_remote(follower) or not is_remote(followee):
        return
    activity = follow_activity(follower, followee)
    RemoteFollow._get_collection().update_one(
        {"_id": f"{follower} {followee}"},
        {
            "$set": {
                "follower": follower,
                "followee": followee,
                "activity": activity["id"],
                "state": "requested",
            }
        },
        upsert=True,
    )
    send(activity, follower, _inboxes([followee]))


def _unfollowed(sender: Any, follower: str, followee: str, **kwargs: Any) -> None:
    if is_remote(follower) or not is_remote(followee):
        return
    asked = RemoteFollow._get_collection().find_one_and_delete(
        {"_id": f"{follower} {followee}"}, projection={"activity": 1}
    )
    follow = follow_activity(follower, followee, (asked or {}).get("activity"))
    undo = {
        "id": follow["id"] + "/undo",
        "type": "Undo",
        "actor": follow["actor"],
        "object": follow,
    }
    send(undo, follower, _inboxes([followee]))


def _blocked(sender: Any, blocker: str, blocked: str, **kwargs: Any) -> None:
    if is_remote(blocker) or not is_remote(blocked):
        return
    target = render.actor_uri(blocked)
    activity = {
        "id": uris.activity("block", uris.actor(blocker), blocked),
        "type": "Block",
        "actor": uris.actor(blocker),
        "object": target,
    }
    send(activity, blocker, _inboxes([blocked]))


def connect() -> None:
    pairs = [
        (events.post_created, _post_created),
        (events.post_changed, _post_changed),
        (events.post_deleted, _post_deleted),
        (events.post_liked, _liked),
        (events.post_unliked, _unliked),
        (events.post_reposted, _reposted),
        (events.post_unreposted, _unreposted),
        (events.comment_created, _commented),
        (events.comment_deleted, _comment_deleted),
        (events.followed, _followed),
        (events.unfollowed, _unfollowed),
        (events.blocked, _blocked),
        (events.profile_changed, _profile_changed),
        (events.poll_voted, _voted),
    ]
    for signal, receiver in pairs:
        signal.connect(receiver, dispatch_uid=f"federation.{receiver.__name__}")
