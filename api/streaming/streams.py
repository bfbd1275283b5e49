"""Mastodon's streams, each defined once (docs/api.md#streaming): which
live topics it listens to (live/topics.py) and what each event becomes for
its reader. The SSE views (views.py) and the WebSocket (websocket.py)
serve the same `Stream`.

An event is rendered on the page pool when it arrives, never before: the
reader's token is read again with their person (one round trip), so a
revoked token sends nothing more and ends its stream, and the person's
blocks, mutes, filters and circles are today's (rules.py).
"""

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from api import circles as list_ids
from api import scopes
from api import selectors as api_selectors
from api.http import NOT_FOUND, OUT_OF_SCOPE
from api.params import TRUE
from api.streaming import rules
from feeds import words
from live import topics
from live.broker import Event
from live.streams import Frames, data
from profiles import selectors as people
from profiles.documents import User
from timelines.selectors import pulled

#: Mastodon's stream names (docs.joinmastodon.org/methods/streaming#streams).
PUBLIC = ("public", "public:media", "public:local", "public:local:media")
REMOTE = ("public:remote", "public:remote:media")
HASHTAG = ("hashtag", "hashtag:local")
NAMES = frozenset({"user", "user:notification", *PUBLIC, *REMOTE, *HASHTAG, "list", "direct"})

UNKNOWN_STREAM = "Unknown stream type"
MISSING_TAG = "Missing tag name parameter"
MISSING_LIST = "Missing list name parameter"
#: The longest tag or list id a stream takes (a tag is a word, a list id 24 hex).
PARAM_MAX = 100


class StreamError(Exception):
    """A stream that cannot be opened: its status and Mastodon's message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Reader:
    """Who reads the streams of one connection: their token (read again
    with every event), its scopes, and the site's origin for URLs."""

    token: str
    handle: str
    scopes: tuple[str, ...]
    base: str
    #: Called (from the pool) when the token no longer holds: the server
    #: ends the connection.
    on_revoked: Callable[[], object] | None = None
    revoked: bool = field(default=False)

    def covers(self, scope: str) -> bool:
        return scopes.covers(self.scopes, scope)

    def now(self) -> User | None:
        """The token's person as they are now, or None once it is revoked
        (or they are gone): one round trip."""
        if self.revoked:
            return None
        grant = api_selectors.grant(self.token)
        if grant is None or grant.person_gone or grant.user is None:
            self.revoked = True
            if self.on_revoked is not None:
                self.on_revoked()
            return None
        return grant.user


Render = Callable[[Event, User], Frames]


@dataclass(frozen=True)
class Stream:
    #: What Mastodon's WebSocket messages name it by: ["hashtag", "cats"].
    name: tuple[str, ...]
    topics: frozenset[str]
    render: Render
    reader: Reader

    def frames_of(self, event: Event) -> Frames:
        """On the page pool, per event: the reader now, then the frames."""
        viewer = self.reader.now()
        if viewer is None:
            return ()
        return self.render(event, viewer)


def _param(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name)
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip()[:PARAM_MAX]


def key(name: str, params: Mapping[str, str]) -> tuple[str, ...]:
    """The stream a name and its parameters ask for, as Mastodon names it,
    checked without any read (a WebSocket's unsubscribe): StreamError for
    an unknown name or a missing tag or list."""
    if name not in NAMES:
        raise StreamError(400, UNKNOWN_STREAM)
    if name in HASHTAG:
        tag = _param(params, "tag")
        if tag is None:
            raise StreamError(400, MISSING_TAG)
        return (name, tag)
    if name == "list":
        list_id = _param(params, "list")
        if list_id is None:
            raise StreamError(400, MISSING_LIST)
        return (name, list_id)
    if name.startswith("public") and params.get("only_media", "").strip().lower() in TRUE:
        # `public` with `only_media` is `public:media`, as Mastodon names it.
        name = name if name.endswith(":media") else f"{name}:media"
    return (name,)


def open_stream(name: str, params: Mapping[str, str], reader: Reader, viewer: User) -> Stream:
    """The stream `name` (with its `tag` or `list`) for `viewer`, the
    reader's person now; StreamError when there is no such stream for them.
    On the page pool: a list's id and the pulled authors followed are read."""
    named = key(name, params)
    name = named[0]
    needed = "read:notifications" if name == "user:notification" else "read:statuses"
    if not reader.covers(needed):
        raise StreamError(403, OUT_OF_SCOPE)
    base, own = reader.base, frozenset({topics.person(viewer.handle)})
    shared = frozenset({topics.POSTS, topics.CHANGES})
    if name == "user":
        return Stream(named, _user_topics(viewer), _user(base, reader), reader)
    if name == "user:notification":
        return Stream(named, own, _notifications(base), reader)
    if name == "direct":
        return Stream(named, own, _direct(base), reader)
    if name in REMOTE:
        # Everyone here is local: nothing ever comes (a stream that stays open).
        return Stream(named, frozenset(), _nothing, reader)
    if name in PUBLIC:
        media = name.endswith(":media")
        return Stream(named, shared, _public(base, media), reader)
    if name in HASHTAG:
        tag = words.clean_tag(named[1])
        if tag is None:
            # Not a tag anyone can write: no post ever carries it.
            return Stream(named, frozenset(), _nothing, reader)
        watched = frozenset({topics.tag(tag), topics.CHANGES})
        return Stream(named, watched, _hashtag(base, tag), reader)
    # A list: one of the reader's circles, by its id (api/circles.py).
    if list_ids.circle_of(viewer, named[1]) is None:
        raise StreamError(404, NOT_FOUND)
    return Stream(named, shared, _list(base, named[1]), reader)


def _user_topics(viewer: User) -> frozenset[str]:
    """The person's own topic, the changes, and the pulled authors they
    follow (no entry is written for their followers: timelines/delivery/pulled.py)."""
    found = {topics.person(viewer.handle), topics.CHANGES}
    candidates = sorted(set(pulled.authors()) - {viewer.handle})
    if candidates:
        found |= {topics.author(h) for h in people.followed_among(viewer.handle, candidates)}
    return frozenset(found)


def _nothing(event: Event, viewer: User) -> Frames:
    return ()


def _update(status: dict | None, name: str = "update") -> Frames:
    return [(name, data(status))] if status is not None else ()


def _deleted(
    event: Event, viewer: User, *, public: bool = False, tag: str | None = None
) -> Frames:
    """A removed or deleted post's id, to a reader who could have seen it (a
    public one on the public streams). Mastodon writes the id bare, and its
    ids are numbers, so the line is JSON too: Mastodon.py parses every
    event's data as JSON. Ours are hex, so the SSE line carries the id as a
    JSON string; the WebSocket sends it bare (websocket.py), where Mastodon's
    web app and masto.js read it as it is (docs/api.md#streaming)."""
    post_id = event.data.get("post")
    if not post_id or not rules.could_have_seen(viewer, event.data, public=public, tag=tag):
        return ()
    return [("delete", json.dumps(str(post_id)))]


def _user(base: str, reader: Reader) -> Render:
    notifications = reader.covers("read:notifications")

    def render(event: Event, viewer: User) -> Frames:
        if event.kind == "feed":
            author = str(event.data.get("author"))
            if event.topic.startswith("author:") and not people.follows(viewer.handle, author):
                return ()  # unfollowed since the stream opened
            post_id = str(event.data.get("post"))
            return _update(rules.home_status(viewer, base, post_id, event.data.get("repost_by")))
        if event.kind == "notification" and notifications:
            item = event.data.get("item")
            return _update(rules.notification(viewer, base, item), "notification")
        if event.kind == "filters_changed":
            return [("filters_changed", "undefined")]
        if event.kind == "edit":
            edited = rules.home_edit(viewer, base, str(event.data.get("post")))
            return _update(edited, "status.update")
        if event.kind == "delete":
            return _deleted(event, viewer)
        return ()

    return render


def _notifications(base: str) -> Render:
    def render(event: Event, viewer: User) -> Frames:
        if event.kind != "notification":
            return ()
        return _update(rules.notification(viewer, base, event.data.get("item")), "notification")

    return render


def _direct(base: str) -> Render:
    def render(event: Event, viewer: User) -> Frames:
        if event.kind != "message":
            return ()
        found = rules.conversation(viewer, base, event.data.get("conversation"))
        return [("conversation", data(found))] if found is not None else ()

    return render


def _public(base: str, media: bool) -> Render:
    def render(event: Event, viewer: User) -> Frames:
        if event.kind == "delete":
            return _deleted(event, viewer, public=True)
        name = {"post": "update", "edit": "status.update"}.get(event.kind)
        if name is None:
            return ()
        post_id = str(event.data.get("post"))
        return _update(rules.public_status(viewer, base, post_id, only_media=media), name)

    return render


def _hashtag(base: str, tag: str) -> Render:
    def render(event: Event, viewer: User) -> Frames:
        if event.kind == "delete":
            return _deleted(event, viewer, tag=tag)
        name = {"post": "update", "edit": "status.update"}.get(event.kind)
        if name is None:
            return ()
        post_id = str(event.data.get("post"))
        return _update(rules.public_status(viewer, base, post_id, tag=tag), name)

    return render


def _list(base: str, list_id: str) -> Render:
    def render(event: Event, viewer: User) -> Frames:
        if event.kind == "delete":
            return _deleted(event, viewer)
        name = {"post": "update", "edit": "status.update"}.get(event.kind)
        if name is None:
            return ()
        post_id, author = str(event.data.get("post")), event.data.get("author")
        return _update(rules.list_status(viewer, base, list_id, post_id, author), name)

    return render
