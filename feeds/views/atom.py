"""`/u/<handle>/feed.atom`: an Atom feed of the posts a person wrote, public
ones only (docs/features.md#interactions), through Django's syndication framework.

No reposts, nothing others wrote on the wall, nothing removed or deleted,
nothing by a suspended author: one query on the `by_ts` index, the same
posts a signed-out visitor can open. Feed readers poll, so the response
carries an ETag (from the listed posts and their edit times) and a
Last-Modified, and a conditional GET that matches answers 304 before the
feed is built.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.feedgenerator import Atom1Feed, SyndicationFeed
from django.utils.html import escape, linebreaks
from django.utils.http import http_date, quote_etag
from django.utils.text import Truncator
from django.views.decorators.http import require_safe

from feeds.documents import LIVE, PUBLIC, Post
from profiles.documents import User
from profiles.selectors import user_active
from socialsite.clock import aware
from socialsite.ids import handle_or_404
from socialsite.text import xml_safe

NEWEST_FIRST = [("ts", -1), ("_id", -1)]
FIELDS = {"by": 1, "type": 1, "ts": 1, "edited": 1, "detail": 1}
# The words a post's title is cut to.
TITLE_WORDS = 12


@dataclass
class Source:
    person: User
    posts: list[dict]


def public_posts(handle: str, limit: int) -> list[dict]:
    """The newest public posts `handle` wrote that anyone may open."""
    query = {"by.id": handle, "circles": PUBLIC, **LIVE}
    cursor = Post._get_collection().find(query, FIELDS).sort(NEWEST_FIRST).limit(limit)
    return list(cursor)


def _text(post: dict) -> str:
    detail = post.get("detail") or {}
    return str(detail.get("text") or detail.get("question") or "")


def _changed(post: dict) -> datetime:
    return aware(post.get("edited") or post["ts"])


class WarnedAtomFeed(Atom1Feed):
    """Atom with an entry's body in `<content>` when the entry carries a
    content warning: its title and summary are the warning, so a reader
    shows the body only when opened (docs/discovery.md)."""

    def add_item_elements(self, handler: Any, item: dict[str, Any]) -> None:
        super().add_item_elements(handler, item)
        if item.get("warned_body"):
            handler.addQuickElement("content", item["warned_body"], {"type": "html"})


class WallFeed(Feed):
    feed_type = WarnedAtomFeed

    def get_object(self, request: HttpRequest, source: Source) -> Source:
        return source

    def get_feed(self, obj: Source, request: HttpRequest) -> SyndicationFeed:
        """The feed with every string made XML-safe: text stored before the
        forms dropped control characters (socialsite/text.py) would otherwise
        stop the feed for every reader."""
        feed = super().get_feed(obj, request)
        feed.feed = {key: _xml_safe(value) for key, value in feed.feed.items()}
        feed.items = [{key: _xml_safe(v) for key, v in item.items()} for item in feed.items]
        return feed

    def title(self, source: Source) -> str:
        return f"{source.person.name} (@{source.person.handle})"

    def subtitle(self, source: Source) -> str:
        return f"Public posts by @{source.person.handle} on Socialsite"

    def link(self, source: Source) -> str:
        return reverse("profiles:profile", args=[source.person.handle])

    def feed_url(self, source: Source) -> str:
        return reverse("feeds:atom", args=[source.person.handle])

    def author_name(self, source: Source) -> str:
        return source.person.name

    def items(self, source: Source) -> list[dict]:
        return source.posts

    def item_title(self, post: dict) -> str:
        # Atom titles are plain text: the generator escapes them once.
        detail = post.get("detail") or {}
        if detail.get("cw"):
            return f"Content warning: {detail['cw']}"
        words = _text(post) or detail.get("title") or detail.get("place") or ""
        title = Truncator(" ".join(words.split())).words(TITLE_WORDS)
        return title or {"photo": "A photo", "link": "A link"}.get(post["type"], "A post")

    def item_description(self, post: dict) -> str:
        detail = post.get("detail") or {}
        if detail.get("cw"):
            return f"<p>Content warning: {escape(detail['cw'])}</p>"
        return self._body(post)

    def item_extra_kwargs(self, post: dict) -> dict:
        """A warned post's body, for `<content>` (WarnedAtomFeed)."""
        if (post.get("detail") or {}).get("cw"):
            return {"warned_body": self._body(post)}
        return {}

    def _body(self, post: dict) -> str:
        # The summary is declared HTML: the user's text is escaped here as
        # HTML, and the generator escapes that again as XML. A reader shows
        # "<b>" as typed, never as markup.
        detail = post.get("detail") or {}
        parts = [linebreaks(escape(_text(post)))] if _text(post) else []
        if post["type"] == "link" and detail.get("url"):
            parts.append(f"<p>{escape(detail.get('title') or detail['url'])}</p>")
        if post["type"] == "checkin" and detail.get("place"):
            parts.append(f"<p>At {escape(detail['place'])}</p>")
        if post["type"] == "poll":
            options = "".join(f"<li>{escape(o)}</li>" for o in detail.get("options") or [])
            parts.append(f"<ul>{options}</ul>")
        return "".join(parts)

    def item_link(self, post: dict) -> str:
        return reverse("feeds:post", args=[str(post["_id"])])

    def item_pubdate(self, post: dict) -> datetime:
        return aware(post["ts"])

    def item_updateddate(self, post: dict) -> datetime:
        return _changed(post)

    def item_author_name(self, post: dict) -> str:
        return post["by"]["name"]


def _xml_safe(value: Any) -> Any:
    if isinstance(value, str):
        return xml_safe(value)
    if isinstance(value, list | tuple):
        return type(value)(_xml_safe(v) for v in value)
    return value


def _validators(source: Source) -> tuple[str, int]:
    """The ETag and Last-Modified (seconds) of the feed as it would be built."""
    digest = hashlib.sha256(source.person.name.encode())
    for post in source.posts:
        digest.update(f"|{post['_id']}:{_changed(post).isoformat()}".encode())
    newest = max((_changed(p) for p in source.posts), default=aware(source.person.created))
    return quote_etag(digest.hexdigest()[:32]), int(newest.timestamp())


@require_safe
def wall_feed(request: HttpRequest, handle: str) -> HttpResponse:
    person = user_active(handle_or_404(handle))
    if person is None:
        raise Http404("No such user.")
    viewer = request.user
    if viewer.is_authenticated and person.handle in viewer.blocked:
        # Blocks win: the wall of someone the viewer blocked shows nothing.
        raise Http404("No such user.")
    source = Source(person, public_posts(person.handle, settings.FEED_PAGE_SIZE))
    etag, last_modified = _validators(source)
    not_modified = get_conditional_response(request, etag=etag, last_modified=last_modified)
    if not_modified is not None:
        not_modified["ETag"] = etag
        return not_modified
    response = WallFeed()(request, source=source)
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    return response
