"""Our people and posts as ActivityStreams documents (docs/federation.md#what-federates).

Only what anyone may read leaves the instance: public posts of active,
unsuspended people, and comments on them. Circles-only posts are never
rendered (the callers check `is_public` first).
"""

from datetime import datetime

from django.urls import reverse

from federation import keys, uris
from federation.documents import ApObject
from federation.sanitize import text_to_html
from feeds.documents import PUBLIC
from profiles.documents import User
from socialsite.clock import aware


def iso(ts: datetime) -> str:
    return aware(ts).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_public(post: dict) -> bool:
    return PUBLIC in (post.get("circles") or []) and not post.get("removed") and not post.get("to")


def acct(handle: str) -> str:
    """`@name@domain` for anyone, ours included."""
    return "@" + (handle if "@" in handle else f"{handle}@{uris.domain()}")


def actor_uri(handle: str, people: dict[str, User] | None = None) -> str:
    """Anyone's actor id: ours from SITE_URL, a remote person's from their document."""
    if "@" not in handle:
        return uris.actor(handle)
    person = (people or {}).get(handle) or User.objects(handle=handle).only("actor").first()
    return ((person.actor or {}).get("id") if person else None) or ""


def person(user: User) -> dict:
    handle = user.handle
    bio = (user.profile.bio if user.profile else "") or ""
    return {
        "@context": uris.AP_CONTEXT,
        "id": uris.actor(handle),
        "type": "Person",
        "preferredUsername": handle,
        "name": user.name,
        "summary": text_to_html(bio),
        "url": uris.actor(handle),
        "published": iso(user.created),
        "manuallyApprovesFollowers": False,
        "discoverable": True,
        "inbox": uris.inbox(handle),
        "outbox": uris.outbox(handle),
        "followers": uris.followers(handle),
        "following": uris.following(handle),
        "endpoints": {"sharedInbox": uris.shared_inbox()},
        "publicKey": {
            "id": uris.key_id(handle),
            "owner": uris.actor(handle),
            "publicKeyPem": keys.public_pem(handle),
        },
    }


def _tags(post: dict, people: dict[str, User]) -> list[dict]:
    found = [
        {
            "type": "Hashtag",
            "href": uris.absolute(reverse("explore:tag", args=[tag])),
            "name": f"#{tag}",
        }
        for tag in post.get("tags") or []
    ]
    for handle in post.get("mentions") or []:
        href = actor_uri(handle, people)
        if href:
            found.append({"type": "Mention", "href": href, "name": acct(handle)})
    return found


def _body(post: dict) -> str:
    detail = post.get("detail") or {}
    text = detail.get("text") or ""
    if post.get("type") == "link":
        text = "\n\n".join(p for p in (detail.get("title"), detail.get("url"), text) if p)
    if post.get("type") == "checkin" and detail.get("place"):
        text = f"📍 {detail['place']}\n\n{text}" if text else f"📍 {detail['place']}"
    return text_to_html(text)


def note(post: dict, people: dict[str, User] | None = None) -> dict:
    """A public post of ours as a Note (a poll as a Question)."""
    people = people or {}
    detail = post.get("detail") or {}
    handle = post["by"]["id"]
    mentioned = [actor_uri(h, people) for h in post.get("mentions") or []]
    doc: dict = {
        "id": uris.post(post["_id"]),
        "type": "Note",
        "attributedTo": uris.actor(handle),
        "content": _body(post),
        "published": iso(post["ts"]),
        "url": uris.post(post["_id"]),
        "to": [uris.PUBLIC],
        "cc": [uris.followers(handle), *[m for m in mentioned if m]],
        "sensitive": bool(detail.get("cw")),
        "summary": detail.get("cw") or None,
        "tag": _tags(post, people),
        "attachment": [],
    }
    if post.get("edited"):
        doc["updated"] = iso(post["edited"])
    if post.get("type") == "photo" and detail.get("photo"):
        doc["attachment"].append(
            {
                "type": "Image",
                "mediaType": detail.get("content_type") or "image/jpeg",
                "url": uris.absolute(reverse("feeds:photo", args=[str(post["_id"])])),
                "name": detail.get("alt") or "",
                "width": detail.get("width"),
                "height": detail.get("height"),
            }
        )
    if post.get("type") == "poll":
        doc["type"] = "Question"
        doc["content"] = text_to_html(detail.get("question") or "")
        votes = detail.get("votes") or []
        doc["oneOf"] = [
            {
                "type": "Note",
                "name": option,
                "replies": {"type": "Collection", "totalItems": votes[i] if i < len(votes) else 0},
            }
            for i, option in enumerate(detail.get("options") or [])
        ]
        if detail.get("expires"):
            doc["endTime"] = iso(detail["expires"])
        doc["votersCount"] = sum(votes)
    return doc


def post_uri(post_id: object) -> str:
    """A post's id: ours, or the remote one it came from."""
    found = ApObject.objects(post=post_id, slug=None, kind="post").only("uri").first()
    return found.uri if found else uris.post(str(post_id))


def comment_uri(post_id: object, slug: str) -> str:
    found = ApObject.objects(post=post_id, slug=slug, kind="comment").only("uri").first()
    return found.uri if found else uris.comment(str(post_id), slug)


def reply_note(post: dict, *, slug: str, text: str, handle: str, ts: datetime) -> dict:
    """Our person's comment on a post as a Note replying to the post or to
    the comment it answers (docs/federation.md#what-federates)."""
    parent = slug.rsplit("/", 1)[0] if "/" in slug else None
    in_reply_to = comment_uri(post["_id"], parent) if parent else post_uri(post["_id"])
    author = post["by"]["id"]
    return {
        "id": uris.comment(post["_id"], slug),
        "type": "Note",
        "attributedTo": uris.actor(handle),
        "inReplyTo": in_reply_to,
        "content": text_to_html(text),
        "published": iso(ts),
        "url": uris.comment(post["_id"], slug),
        "to": [uris.PUBLIC],
        "cc": [uris.followers(handle), actor_uri(author)],
        "tag": [],
    }


def wrapped(note: dict, kind: str = "Create") -> dict:
    """A Note in its Create (or Update), addressed as the Note is; the id
    is the Note's with a fragment, so a resend is the same activity (an
    Update's names the edit it carries)."""
    activity_id = uris.activity("create", note["id"])
    if kind == "Update":
        activity_id = uris.activity("update", note["id"], note.get("updated") or "")
    return {
        "id": activity_id,
        "type": kind,
        "actor": note["attributedTo"],
        "published": note["published"],
        "to": note["to"],
        "cc": note["cc"],
        "object": note,
    }


def deleted(handle: str, object_id: str) -> dict:
    """Our person's Delete of a post or comment of theirs."""
    return {
        "id": uris.activity("delete", object_id),
        "type": "Delete",
        "actor": uris.actor(handle),
        "to": [uris.PUBLIC],
        "object": {"id": object_id, "type": "Tombstone"},
    }
