"""What one event becomes for one reader (docs/api.md#streaming): the Status,
Notification or Conversation the REST endpoint would answer for it now,
or None where that endpoint would not list it.

Each rule is the REST view's own, on one item: the post page's sight
(api/views/sight.py: removed posts, suspended authors, circles, blocks
both ways), then the timeline's keep (the news feed's mutes and home
filters, timelines/selectors/pages.py; the public timeline's read,
explore/selectors/discovery.py), the notifications page's selector and
the conversation's page. Nothing is decided from the event itself, which
carries ids only: a block, a mute or a filter made while a stream is open
counts for the next event (docs/privacy.md).
"""

from django.http import Http404, HttpRequest

from api import circles as list_ids
from api.entities.status import statuses
from api.views.conversations import conversation_now
from api.views.notifications import notification_item
from api.views.sight import visible_post
from explore.selectors import discovery
from feeds.documents import PUBLIC
from feeds.selectors import marks
from feeds.selectors.visibility import can_see, circles_placed_in, needs_graph, news_hidden
from profiles import selectors as people
from profiles.documents import User
from socialsite.ids import parse_object_id
from timelines.selectors.pages import circle_authors, news_keep


def _seen(viewer: User, status_id: str) -> dict | None:
    """The post (or repost) of a status id as the post page shows it to
    the viewer, or None for a 404 there."""
    request = HttpRequest()
    request.user = viewer
    try:
        return visible_post(request, status_id)
    except Http404:
        return None


def _status(post: dict, viewer: User, base: str, context: str) -> dict:
    return statuses([post], viewer, base, context=context, known=[viewer])[0]


def _home_post(viewer: User, post_id: str, repost_by: str | None) -> dict | None:
    """The post as the viewer's news feed would list it: seen, and kept by
    the feed (mutes of the author or reposter, the home filters)."""
    status_id = post_id
    if repost_by:
        # The feed lists a repost under the repost's own id.
        oid = parse_object_id(post_id)
        repost = marks.repost_by(oid, repost_by) if oid is not None else None
        if repost is None:
            return None
        status_id = str(repost["_id"])
    post = _seen(viewer, status_id)
    if post is None or (post.get("reposted_by") in news_hidden(viewer)):
        return None
    kept = news_keep(viewer)([post])
    return kept[0] if kept else None


def home_status(viewer: User, base: str, post_id: str, repost_by: str | None) -> dict | None:
    """A post (or a repost of it) delivered to the viewer's news feed."""
    post = _home_post(viewer, post_id, repost_by)
    return _status(post, viewer, base, "home") if post is not None else None


def home_edit(viewer: User, base: str, post_id: str) -> dict | None:
    """An edited post, for the viewer's home stream when the feed holds it:
    their own, or by someone they follow, or under a tag they follow."""
    post = _home_post(viewer, post_id, None)
    if post is None:
        return None
    author = post["by"]["id"]
    if (
        author != viewer.handle
        and not set(post.get("tags") or ()) & set(viewer.followed_tags or ())
        and not people.follows(viewer.handle, author)
    ):
        return None
    return _status(post, viewer, base, "home")


def public_status(
    viewer: User, base: str, post_id: str, *, tag: str | None = None, only_media: bool = False
) -> dict | None:
    """A post as the public timeline (or `tag`'s) would list it: public,
    live, by no one the viewer blocked or muted nor who blocked them, and
    no "public" hide filter of theirs matching it."""
    oid = parse_object_id(post_id)
    if oid is None:
        return None
    post = discovery.public_post(oid, viewer, tag=tag, only_media=only_media)
    return _status(post, viewer, base, "public") if post is not None else None


def list_status(
    viewer: User, base: str, list_id: str, post_id: str, author: str | None
) -> dict | None:
    """A post as the list timeline would list it: by a member of the
    viewer's circle, seen, and kept as the news feed keeps it. `author`,
    when the event names it, leaves out others' posts before any post read."""
    circle = list_ids.circle_of(viewer, list_id)
    if circle is None:
        return None
    members = circle_authors(viewer, circle)
    if author is not None and author not in members:
        return None
    post = _seen(viewer, post_id)
    if post is None or post["by"]["id"] not in members:
        return None
    kept = news_keep(viewer)([post])
    return _status(kept[0], viewer, base, "home") if kept else None


def notification(viewer: User, base: str, item_id: str | None) -> dict | None:
    """A notification as the notifications page lists it, or None (hidden
    there: a block, a mute, a filter, a post no longer seen)."""
    oid = parse_object_id(item_id)
    return notification_item(viewer, oid, base) if oid is not None else None


def conversation(viewer: User, base: str, conversation_id: str | None) -> dict | None:
    """The conversation a message went to, as its member sees it now."""
    oid = parse_object_id(conversation_id)
    return conversation_now(oid, viewer, base) if oid is not None else None


def could_have_seen(
    viewer: User, gone: dict, *, public: bool = False, tag: str | None = None
) -> bool:
    """Whether the reader could have been shown a post that is now gone,
    from the audience its delete event carries (live/receivers.py), under
    the visibility rule (feeds/selectors/visibility.py); on a public or
    tag stream, only a public post (with the tag). An event without its
    audience (its sender did not know it) goes to everyone: it holds an id
    and nothing else."""
    author, circles = gone.get("author"), gone.get("circles")
    if not author or not isinstance(circles, list):
        return True
    if (public or tag is not None) and PUBLIC not in circles:
        return False
    if tag is not None and tag not in (gone.get("tags") or ()):
        return False
    post = {"by": {"id": author}, "circles": circles, "to": gone.get("to")}
    placed = circles_placed_in(viewer.handle, [author]) if needs_graph(viewer, post) else {}
    return can_see(viewer, post, placed)
