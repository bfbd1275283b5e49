"""The Status entity (docs.joinmastodon.org/entities/Status): a post or a
repost as one reader sees it (docs/api.md#statuses). What it holds has a
module each (media, poll, card, filter); a comment shown as a status is
api/entities/reply.py's.

`statuses(posts, viewer, base)` serializes a page of posts as the pages
read them (raw documents with CARD_FIELDS; a timeline's repost is the
original with `reposted_by` and `_at`, timelines/selectors/entries.py)
in a fixed number of round trips whatever the page's length: the
accounts in one `$in`, and the reader's likes, reposts, bookmarks and
votes one query each, only for what the page's own read did not look up
(`FOUND`, feeds/selectors/lookups.py) and only when some post could have
one (a post nobody liked costs no likes query), as the cards do
(feeds/selectors/cards.py).

Ids: a post's status id is its ObjectId in hex; a repost's is the repost's
own id (its timeline entry's); a comment's is the post's hex, then its
slug with "-" for "/" (`comment_status_id`).
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from bson import ObjectId
from django.urls import reverse

from api.entities.account import account
from api.entities.card import preview_card
from api.entities.dates import iso
from api.entities.filter import filter_results
from api.entities.media import media_attachment
from api.entities.poll import poll_entity
from feeds import mentions
from feeds.documents import PUBLIC
from feeds.page_keys import FOUND
from feeds.selectors import marks, polls
from feeds.templatetags.posts import linkify
from profiles import selectors as people
from profiles.documents import User
from profiles.filters import filters_for
from socialsite import extensions
from socialsite.cursors import EPOCH

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor

# --- ids ---------------------------------------------------------------


def comment_status_id(post_id: ObjectId, slug: str) -> str:
    """A comment's status id: `<post hex>-<slug parts>` ("65f...-34db-8bda").
    It starts with its post's id, so it sorts after it, and it is a path
    segment (a slug's "/" would not be)."""
    return f"{post_id}-{slug.replace('/', '-')}"


def parse_status_id(value: object) -> tuple[ObjectId, str | None] | None:
    """(post id, comment slug or None) of a status id; None for anything
    else (a hostile id is simply not found)."""
    if not isinstance(value, str) or len(value) > 200:
        return None
    head, _, rest = value.partition("-")
    if len(head) != 24 or not ObjectId.is_valid(head) or head != head.lower():
        return None
    if not rest:
        return ObjectId(head), None
    parts = rest.split("-")
    if not all(len(p) == 4 and p.isascii() and p.isalnum() and p == p.lower() for p in parts):
        return None
    return ObjectId(head), "/".join(parts)


# --- the reader's marks, in batch ---------------------------------------


@dataclass
class Marks:
    """What the reader did to a page's posts (post ids)."""

    liked: set[ObjectId] = field(default_factory=set)
    reposted: set[ObjectId] = field(default_factory=set)
    bookmarked: set[ObjectId] = field(default_factory=set)
    votes: dict[ObjectId, int] = field(default_factory=dict)
    pinned: set[ObjectId] = field(default_factory=set)
    signed_in: bool = False


def marks_of(viewer: "User | AnonymousVisitor", posts: list[dict]) -> Marks:
    """The reader's likes, reposts, bookmarks, votes and pins on `posts`:
    at most four indexed queries whatever their number (none for a
    signed-out reader, none for what the page's read found already)."""
    if not viewer.is_authenticated:
        return Marks()
    found = Marks(signed_in=True, pinned=set(getattr(viewer, "pinned", None) or ()))
    known = {p["_id"]: p[FOUND] for p in posts if "liked" in (p.get(FOUND) or {})}
    unknown = [p for p in posts if p["_id"] not in known]
    for post_id, facts in known.items():
        if facts.get("liked"):
            found.liked.add(post_id)
        if facts.get("bookmarked"):
            found.bookmarked.add(post_id)
        if facts.get("vote") is not None:
            found.votes[post_id] = facts["vote"]
    liked = marks.liked_by(viewer, [p["_id"] for p in unknown if p.get("likes_count")])
    found.liked |= {p["_id"] for p in unknown if str(p["_id"]) in liked}
    reposted = marks.reposted_by(viewer, [p["_id"] for p in posts if p.get("reposts_count")])
    found.reposted = {p["_id"] for p in posts if str(p["_id"]) in reposted}
    has_bookmarks: int = getattr(viewer, "bookmarks_count", 0) or 0
    if unknown and has_bookmarks:
        found.bookmarked |= marks.bookmarked_among(viewer.handle, [p["_id"] for p in unknown])
    found.votes.update(polls.viewer_votes(viewer, unknown))
    return found


# --- the pieces ----------------------------------------------------------


def _absolute(html: str, base: str) -> str:
    """Our links in rendered text point at the site (a client is elsewhere)."""
    return html.replace('href="/', f'href="{base}/')


def text_html(text: object, base: str) -> str:
    """User text as the post page renders it (escaped, links, mentions and
    tags linked: feeds/templatetags/posts.py `linkify`), in a paragraph."""
    if not text or not str(text).strip():
        return ""
    return "<p>" + _absolute(str(linkify(str(text))), base) + "</p>"


def content_html(post: dict, base: str) -> str:
    """A post's `content`: its text, and what its type adds to it (a link's
    address, a check-in's place)."""
    detail = post.get("detail") or {}
    kind = post.get("type")
    if kind == "poll":
        return text_html(detail.get("question"), base)
    html = text_html(detail.get("text"), base)
    if kind == "link" and detail.get("url"):
        url = escape(detail["url"])
        title = escape(detail.get("title") or detail["url"])
        html += f'<p><a href="{url}" rel="nofollow noopener ugc" target="_blank">{title}</a></p>'
    elif kind == "checkin" and detail.get("place"):
        html += f"<p>At {escape(detail['place'])}</p>"
    return html


def mention(handle: str, base: str) -> dict:
    return {
        "id": handle,
        "username": handle,
        "url": base + reverse("profiles:profile", args=[handle]),
        "acct": handle,
    }


def _tag(name: str, base: str) -> dict:
    href = extensions.link("tag", name)
    return {"name": name, "url": base + href if href else ""}


def visibility_of(circles: Iterable[str]) -> str:
    """Public is `public`; all one's circles and chosen circles are
    `private` (docs/api.md#how-our-concepts-map)."""
    return "public" if PUBLIC in circles else "private"


# --- the entity ------------------------------------------------------------


class Authors:
    """The Account of each author of a page, read in one `$in`."""

    def __init__(self, handles: Iterable[str], base: str, known: Iterable[User] = ()) -> None:
        """`known`: people read already (the reader): not asked again."""
        self.users = {user.handle: user for user in known}
        wanted = sorted(set(handles) - self.users.keys())
        self.base = base
        if wanted:
            self.users.update((user.handle, user) for user in people.accounts(wanted))
        self.cache: dict[str, dict] = {}

    def get(self, handle: str, name: str = "") -> dict:
        if handle not in self.cache:
            # Someone no longer active (a post a moderator still sees) is
            # shown by what the post remembers of them.
            user = self.users.get(handle) or User(
                handle=handle, name=name or handle, created=EPOCH
            )
            self.cache[handle] = account(user, self.base)
        return self.cache[handle]


def _post_status(post: dict, found: Marks, authors: Authors, viewer_handle: str | None) -> dict:
    base = authors.base
    post_id = post["_id"]
    post_hex = str(post_id)
    detail = post.get("detail") or {}
    # A post of another server's is at its page there (docs/federation.md).
    url = post.get("url") or base + reverse("feeds:post", args=[post_hex])
    cw = detail.get("cw") or ""
    author = post["by"]["id"]
    return {
        "id": post_hex,
        "uri": url,
        "url": url,
        "created_at": iso(post["ts"]),
        "account": authors.get(author, post["by"].get("name", "")),
        "content": content_html(post, base),
        "visibility": visibility_of(post.get("circles") or ()),
        "sensitive": bool(cw),
        "spoiler_text": cw,
        "media_attachments": [media_attachment(post, base)] if post.get("type") == "photo" else [],
        "application": None,
        "mentions": [mention(handle, base) for handle in post.get("mentions") or ()],
        "tags": [_tag(name, base) for name in post.get("tags") or ()],
        "emojis": [],
        "reblogs_count": max(post.get("reposts_count") or 0, 0),
        "favourites_count": max(post.get("likes_count") or 0, 0),
        "replies_count": max(post.get("comments_count") or 0, 0),
        "in_reply_to_id": None,
        "in_reply_to_account_id": None,
        "reblog": None,
        "poll": poll_entity(post, found.votes.get(post_id), viewer_handle)
        if post.get("type") == "poll"
        else None,
        "card": preview_card(post),
        "language": None,
        "text": None,
        "edited_at": iso(post.get("edited")),
        **_own_marks(found, post_id, own=author == viewer_handle),
    }


def _own_marks(found: Marks, post_id: ObjectId, *, own: bool) -> dict[str, Any]:
    """The reader's own fields: present only with a reader, as Mastodon
    sends them (`pinned` only on the reader's own posts)."""
    if not found.signed_in:
        return {}
    marked: dict[str, Any] = {
        "favourited": post_id in found.liked,
        "reblogged": post_id in found.reposted,
        "muted": False,
        "bookmarked": post_id in found.bookmarked,
        "filtered": [],
    }
    if own:
        marked["pinned"] = post_id in found.pinned
    return marked


def _repost_status(post: dict, original: dict, authors: Authors) -> dict:
    """A repost: its own id, time and reposter, the original in `reblog`."""
    at_ts, at_id = post.get("_at") or (post["ts"], post["_id"])
    reposter = post["reposted_by"]
    url = authors.base + reverse("feeds:post", args=[str(post["_id"])])
    return {
        **original,
        "id": str(at_id),
        "uri": url,
        "url": url,
        "created_at": iso(at_ts),
        "account": authors.get(reposter),
        "content": "",
        "spoiler_text": "",
        "sensitive": False,
        "media_attachments": [],
        "mentions": [],
        "tags": [],
        "poll": None,
        "card": None,
        "edited_at": None,
        "reblog": original,
    }


def statuses(
    posts: list[dict],
    viewer: "User | AnonymousVisitor",
    base: str,
    *,
    context: str | None = None,
    known: Iterable[User] = (),
) -> list[dict]:
    """The Status of each post, in order, as `viewer` sees it. `base`: the
    site's origin ("https://example.org") for absolute URLs. The caller
    decided which posts the viewer may see. `context`: the reader's keyword
    filter context of the list ("home", "public", "thread": profiles/filters.py);
    each status a filter of it matches says so in `filtered`, as Mastodon's
    FilterResult (a client folds or hides it, as the pages do). `known`:
    people read already (the reader, a wall's owner), whose accounts are
    not asked for again."""
    if not posts:
        return []
    found = marks_of(viewer, posts)
    handles = {p["by"]["id"] for p in posts} | {
        p["reposted_by"] for p in posts if p.get("reposted_by")
    }
    authors = Authors(handles, base, known)
    _announce_mentions(posts)
    viewer_handle = viewer.handle if viewer.is_authenticated else None
    filters = filters_for(viewer, context) if context is not None else None
    out = []
    for post in posts:
        shown = _post_status(post, found, authors, viewer_handle)
        if filters and "filtered" in shown:
            shown["filtered"] = filter_results(filters, post)
        out.append(_repost_status(post, shown, authors) if post.get("reposted_by") else shown)
    return out


def status(
    post: dict,
    viewer: "User | AnonymousVisitor",
    base: str,
    *,
    context: str | None = None,
    known: Iterable[User] = (),
) -> dict:
    """`statuses` of one post."""
    return statuses([post], viewer, base, context=context, known=known)[0]


def _announce_mentions(posts: list[dict]) -> None:
    """The mentions stored with each text link it with no query; texts older
    than that field are looked up together, in one (feeds/mentions.py)."""
    unknown = []
    for post in posts:
        detail = post.get("detail") or {}
        for text in (detail.get("text"), detail.get("question")):
            if text and "@" in str(text) and not mentions.learn(text, post.get("mentions")):
                unknown.append(text)
    mentions.prefetch(unknown)
