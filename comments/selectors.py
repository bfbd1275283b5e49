"""Reads for the thread, the permalink page and the moderation pages."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from bson import ObjectId
from django.conf import settings

from comments import votes
from comments.documents import CommentDocument
from comments.stores import Comment, CommentPage, ThreadingUnsupported, get_store, ledger
from comments.stores.arrays import ArrayCommentUpdates
from comments.stores.base import RANKED, CommentStore
from profiles import selectors as people
from profiles.documents import User
from profiles.filters import KeywordFilter, filters_for
from socialsite import active

if TYPE_CHECKING:
    from profiles.auth import AnonymousVisitor


@dataclass
class Thread:
    page: CommentPage
    order: str
    notice: str = ""
    hidden_authors: set = field(default_factory=set)  # suspended: hidden but to moderators
    blocked_authors: set = field(default_factory=set)  # the viewer blocked them: hidden
    continue_at: set = field(default_factory=set)  # slugs with deeper replies not shown
    # Of those, the ones whose comment is on an earlier page: the page starts
    # with their hidden replies, so it starts with their links.
    continue_before: list = field(default_factory=list)
    votes: dict = field(default_factory=dict)  # the viewer's: {slug: 1 or -1}
    ranked: bool = False  # `best` or `top`: top-level comments, each with its replies a link away
    filtered: dict = field(default_factory=dict)  # {slug: phrase} the viewer's filters fold


def _matches(
    comments: list[Comment], viewer: "User | AnonymousVisitor | None"
) -> dict[str, KeywordFilter]:
    """{slug: the filter} of the comments the viewer's keyword filters of the
    "thread" context match (docs/privacy.md#keyword-filters), read from
    their document (no query). Their own comments pass, as deleted ones do."""
    filters = filters_for(viewer, "thread") if viewer is not None else None
    if not filters:
        return {}
    found = {}
    for c in comments:
        if c.deleted or filters.mine(c.author.get("id")):
            continue
        if (matched := filters.first_match(c.text)) is not None:
            found[c.slug] = matched
    return found


def _filtered(
    comments: list[Comment], viewer: "User | AnonymousVisitor | None", *, keep: str | None = None
) -> tuple[list[Comment], dict[str, str]]:
    """The comments without those a hide filter matches (their replies
    stay), and {slug: phrase} of those a warn filter folds. `keep` (a
    permalink's own comment) is folded rather than hidden."""
    found = _matches(comments, viewer)
    shown = [
        c
        for c in comments
        if c.slug not in found or found[c.slug].action != "hide" or c.slug == keep
    ]
    return shown, {c.slug: found[c.slug].phrase for c in shown if c.slug in found}


def _suspended(comments: list[Comment]) -> set[str]:
    """Authors on the page who are suspended: their comments are hidden."""
    return people.suspended_among({c.author["id"] for c in comments if c.author.get("id")})


def blocked_by(viewer: "User | AnonymousVisitor | None") -> frozenset[str]:
    """The handles `viewer` blocked. Their comments are shown to the viewer as
    a placeholder (docs/privacy.md); the list is on the viewer's own document,
    so this costs no round trip. Anonymous visitors block nobody."""
    return frozenset(getattr(viewer, "blocked", None) or ())


def _blocked_on_page(comments: list[Comment], blocked: frozenset[str]) -> set[str]:
    return {c.author["id"] for c in comments if c.author.get("id") in blocked}


def orders(store: CommentStore | None = None) -> list[str]:
    """The orders a store can give, its default first: the buckets store
    keeps comments chronologically only, so it offers no threaded order,
    and only the documents store has the indexes that rank by votes."""
    return list((store or get_store()).orders)


def _depth_limited(comments: list[Comment], base_depth: int = 0) -> tuple[list, set]:
    """Drop replies below COMMENTS_MAX_DEPTH (relative to `base_depth`); mark
    where a "continue this thread" link goes instead."""
    limit = settings.COMMENTS_MAX_DEPTH
    shown, continue_at = [], set()
    for c in comments:
        if c.depth - base_depth > limit:
            ancestor = "/".join(c.slug.split("/")[: base_depth + limit + 1])
            continue_at.add(ancestor)
            continue
        shown.append(c)
    return shown, continue_at


def _elsewhere(continue_at: set, shown: list[Comment]) -> list[str]:
    on_page = {c.slug for c in shown}
    return sorted(continue_at - on_page)


def thread(
    post_id: ObjectId,
    *,
    order: str | None,
    after: str | None = None,
    before: str | None = None,
    viewer: "User | AnonymousVisitor | None" = None,
) -> Thread:
    """A page of the thread in `order` (None: the store's default), as
    `viewer` may see it."""
    store = get_store()
    notice = ""
    order = order or orders(store)[0]
    if order == "threaded" and not store.threaded:
        notice = (
            "Threaded view is not available with this comment store; "
            "showing the discussion oldest first."
        )
        order = "oldest"
    elif order in RANKED and order not in store.orders:
        notice = (
            "Best and Top need an index this comment store does not keep; "
            f"showing the discussion {'threaded' if store.threaded else 'oldest first'}."
        )
        order = orders(store)[0]
    try:
        page = store.page(post_id, order=order, after=after, before=before)
    except ThreadingUnsupported:  # pragma: no cover - guarded by `store.threaded`
        page = store.page(post_id, order="oldest", after=after, before=before)
    result = Thread(page=page, order=order, notice=notice, ranked=order in RANKED)
    if order == "threaded":
        page.comments, result.continue_at = _depth_limited(page.comments)
        result.continue_before = _elsewhere(result.continue_at, page.comments)
    result.hidden_authors = _suspended(page.comments)
    result.blocked_authors = _blocked_on_page(page.comments, blocked_by(viewer))
    page.comments, result.filtered = _filtered(page.comments, viewer)
    result.votes = votes.votes_of(viewer, post_id, (c.slug for c in page.comments))
    return result


@dataclass
class Permalink:
    comment: Comment
    ancestors: list[Comment]
    page: CommentPage
    hidden_authors: set
    continue_at: set
    continue_before: list = field(default_factory=list)
    blocked_authors: set = field(default_factory=set)
    votes: dict = field(default_factory=dict)  # the viewer's: {slug: 1 or -1}
    filtered: dict = field(default_factory=dict)  # {slug: phrase} the viewer's filters fold


def permalink(
    post_id: ObjectId,
    slug: str,
    *,
    after: str | None = None,
    before: str | None = None,
    viewer: "User | AnonymousVisitor | None" = None,
) -> Permalink | None:
    store = get_store()
    page = store.subtree(post_id, slug, after=after, before=before)
    if page is None:
        return None
    comment = store.get(post_id, slug)
    if comment is None:  # removed between the two reads
        return None
    parts = slug.split("/")
    ancestors = [
        ancestor
        for i in range(1, len(parts))
        if (ancestor := store.get(post_id, "/".join(parts[:i]))) is not None
    ]
    comments, continue_at = _depth_limited(page.comments, base_depth=comment.depth)
    comments, filtered = _filtered(comments, viewer, keep=slug)
    # An ancestor a filter matches is named by its phrase, not quoted.
    filtered |= {a: f.phrase for a, f in _matches(ancestors, viewer).items()}
    page.comments = comments
    everyone = [*ancestors, comment, *comments]
    return Permalink(
        comment,
        ancestors,
        page,
        _suspended(everyone),
        continue_at,
        _elsewhere(continue_at, comments),
        _blocked_on_page(everyone, blocked_by(viewer)),
        votes.votes_of(viewer, post_id, (c.slug for c in everyone)),
        filtered,
    )


def comments_since(ts: datetime) -> int:
    """Comments posted since `ts` (the moderation dashboard): a count on a
    `posted` index, of `comments` or of the array stores' `comment_log`."""
    if active.comment_store() == "documents":
        return CommentDocument._get_collection().count_documents({"posted": {"$gte": ts}})
    return ledger.since(ts)


def recent_by_author(handle: str, n: int) -> list[Comment]:
    """A user's latest comments, newest first (moderation). Under `documents`
    one query on the (author.id, -posted) index; under the array stores the
    `comment_log` names them (same index shape) and one aggregation reads
    just those comments from their arrays."""
    store = get_store()
    if store.name == "documents":
        rows = (
            CommentDocument._get_collection()
            .find({"author.id": handle})
            .sort("posted", -1)
            .limit(n)
        )
        return [Comment.from_dict(r, r["discussion_id"]) for r in rows]
    # Not documents: one of the array stores, which read comments by key.
    assert isinstance(store, ArrayCommentUpdates)
    keys = ledger.recent(handle, n)
    found = store.many(keys)
    return [found[key] for key in keys if key in found]


def comments_export(handle: str) -> Iterator[dict]:
    """Every comment the person wrote, newest first, for their export
    (docs/accounts.md#export): the post's id, never its author's words."""
    store = get_store(settings.COMMENTS_STORE)  # the store of record
    if store.name == "documents":
        rows = CommentDocument._get_collection().find({"author.id": handle}).sort("posted", -1)
        comments: Iterable[Comment] = (Comment.from_dict(r, r["discussion_id"]) for r in rows)
    else:
        assert isinstance(store, ArrayCommentUpdates)
        comments = _logged(store, ledger.recent(handle, None))
    for comment in comments:
        yield {
            "post": comment.discussion_id,
            "slug": comment.slug,
            "posted": comment.posted,
            "text": comment.text,
            "edited": comment.edited,
            "deleted_by": comment.deleted_by,
        }


def _logged(store: ArrayCommentUpdates, keys: list[tuple[ObjectId, str]]) -> Iterator[Comment]:
    for start in range(0, len(keys), 500):
        page = keys[start : start + 500]
        found = store.many(page)
        yield from (found[key] for key in page if key in found)
