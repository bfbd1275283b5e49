"""What a browser tab's stream listens to, and what it is sent of each event
(docs/live.md#in-the-browser); live/views.py asks, with the request's viewer.

Every page listens to the viewer's own topic (a news entry, a notification,
a message). A news feed also listens for what no entry is written for: the
pulled authors the viewer follows (timelines/selectors/pulled.py) and the
tags they follow, whose posts the news page reads beside its entries. A
post's page listens to the post, only when the post's own page would show
it to the viewer and no block stands between them.

An event is a nudge: the page then reads what changed through its own URLs
and selectors. Still, what a viewer would never be shown is not even
announced: a comment by someone they blocked or muted, or by someone who
blocked them; a followed tag's post by such a person.
"""

from collections.abc import Callable

from bson import ObjectId

from feeds.selectors import pages as posts
from feeds.selectors.visibility import news_hidden
from live import topics
from live.broker import Event
from live.streams import Frames, data
from profiles import selectors as people
from profiles.documents import User
from timelines.selectors import pulled


def topics_for(viewer: User, *, post: ObjectId | None = None, feed: bool = False) -> set[str]:
    """The topics of one tab's stream: `post` on that post's page, `feed` on
    the news feed."""
    subscribed = {topics.person(viewer.handle)}
    if post is not None and post_open_to(viewer, post):
        subscribed.add(topics.post(str(post)))
    if feed:
        hidden = frozenset(news_hidden(viewer))
        subscribed |= {topics.author(h) for h in pulled.followed(viewer.handle, hidden)}
        subscribed |= {topics.tag(t) for t in viewer.followed_tags or ()}
    return subscribed


def post_open_to(viewer: User, post_id: ObjectId) -> bool:
    """Whether the viewer hears of the post's new comments: the post page's
    own check (circles, the viewer's blocks, removed, deleted, a suspended
    author: feeds/selectors/pages.py `shown_to`), and no block by its
    author either, whose post they may see but not comment on. A removed
    post, which a moderator still sees, has no new comments to hear of."""
    post = posts.post_for_viewer(post_id, viewer)
    if post is None or post.get("removed") is not None:
        return False
    author = post["by"]["id"]
    return author == viewer.handle or not people.blocks(author, viewer.handle)


def frames_for(viewer: User) -> Callable[[Event], Frames]:
    """How an event becomes what this viewer's tab is sent (run when it
    arrives: on the page pool, or on the stream's event loop for the events
    `reads_nothing` names, so a read added here needs its kind left out
    there)."""
    handle = viewer.handle
    hidden = frozenset(news_hidden(viewer))

    def frames_of(event: Event) -> Frames:
        if event.topic.startswith("tag:"):
            # A followed tag's new post: maybe one for the news feed's bar,
            # whose count then decides (timelines/selectors/newposts.py).
            if event.data.get("author") in hidden | {handle}:
                return ()
            return [("feed", data(event.data))]
        if event.kind == "comment":
            by = event.data.get("by")
            # The block lists as they are now, both ways, in one read.
            if by in hidden or (by and by != handle and people.block_between(handle, by)):
                return ()
        return [(event.kind, data(event.data))]

    return frames_of


def reads_nothing(event: Event) -> bool:
    """The events whose frames `frames_for` makes from what the stream read
    when it opened, with no read of their own: all but a comment, which
    reads the block lists as they are now (live/streams.py makes those on
    the page pool, the others on the event loop)."""
    return event.kind != "comment"
