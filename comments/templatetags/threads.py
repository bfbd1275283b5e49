from typing import Any

from django import template
from django.conf import settings
from django.template import Context

from comments.stores import get_store
from comments.stores.base import BLOCKED_TEXT, Comment
from feeds import mentions
from socialsite import fragments
from socialsite.fragments import Page

register = template.Library()

#: Indentation levels the stylesheet draws (`.comment[data-indent="8"]`);
#: with a larger COMMENTS_MAX_DEPTH the deeper levels line up with the 8th.
INDENT_LEVELS = 8


@register.filter
def indent(comment: Comment, base: int = 0) -> int:
    """How far a comment is indented: its depth below `base` (the permalink's
    root), never deeper than COMMENTS_MAX_DEPTH."""
    limit = min(settings.COMMENTS_MAX_DEPTH, INDENT_LEVELS)
    return max(0, min(comment.depth - int(base or 0), limit))


@register.filter
def phrase_of(filtered: dict, slug: str) -> str:
    """The phrase of the viewer's keyword filter that matched comment `slug`."""
    return filtered.get(slug, "")


@register.simple_tag
def blocked_text() -> str:
    """The placeholder for a comment by someone the viewer blocked."""
    return BLOCKED_TEXT


@register.filter
def can_reply(comment: Comment) -> bool:
    """Whether the store keeps a reply to `comment`: no Reply form is offered
    at the deepest level stored (the store would refuse the reply)."""
    return comment.depth < get_store().max_stored_depth


def _fields(comment: Comment) -> dict[str, Any]:
    """The comment's stored fields (a slotted dataclass), for its digest."""
    return {name: getattr(comment, name) for name in type(comment).__slots__}


def _max_stored_depth(context: Context) -> int:
    """The store's deepest level, asked once per page (it may differ per
    session: the developer's lens switches stores)."""
    render_context = context.render_context
    if _max_stored_depth not in render_context:
        render_context[_max_stored_depth] = get_store().max_stored_depth
    return render_context[_max_stored_depth]


def _comment_fragment(
    context: Context,
    page: Page,
    c: Comment,
    hidden: set[str],
    blocked: set[str],
    continue_at: set[str],
    base: int,
    votes: dict[str, int],
    ranked: bool,
    filtered: dict[str, str],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A comment's cache key (every input the template reads) and the
    context its template renders with (only what the key holds)."""
    card = context["card"]
    author = (c.author or {}).get("id")
    viewer = page.viewer(author)
    # Only what the template reads of the post: no viewer state beyond is_own.
    post = {"id": card.id, "removed": card.removed, "is_own": card.is_own}
    linked = context.get("linked")
    key = {
        "comment": _fields(c),
        "post": post,
        "viewer": viewer.key(),
        "state": [
            author in blocked,
            author in hidden,
            c.slug == linked,
            c.slug in continue_at,
            indent(c, base),
            c.depth < _max_stored_depth(context),
            votes.get(c.slug, 0),
            ranked,
            filtered.get(c.slug),
        ],
        "linked": mentions.linked_mentions(c.text),
    }
    template_context = {
        "c": c,
        "card": post,
        "user": viewer,
        # Sets of the one author that matters: nobody else's handle is seen.
        "blocked": {author} if author in blocked else set(),
        "hidden": {author} if author in hidden else set(),
        "continue_at": {c.slug} if c.slug in continue_at else set(),
        "linked": c.slug if c.slug == linked else None,
        "base": base,
        "moment": c.posted,
        "my_vote": votes.get(c.slug, 0),  # the viewer's: 1, -1 or 0
        "ranked": ranked,
        "filtered": filtered.get(c.slug),  # the phrase of the viewer's warn filter
    }
    return key, template_context


@register.simple_tag(takes_context=True)
def comment_list(
    context: Context,
    comments: list[Comment],
    *,
    hidden: set[str],
    blocked: set[str],
    continue_at: set[str],
    base: int = 0,
    votes: dict[str, int] | None = None,
    ranked: bool = False,
    filtered: dict[str, str] | None = None,
) -> str:
    """A page of comments (templates/comments/_comment.html each), cached as
    one fragment under all their keys (socialsite/fragments.py): the next view of
    an unchanged page is one lookup, whatever its length."""
    page = fragments.page_of(context)
    votes, filtered = votes or {}, filtered or {}
    parts = [
        _comment_fragment(
            context, page, c, hidden, blocked, continue_at, base, votes, ranked, filtered
        )
        for c in comments
    ]
    if not parts:
        return ""
    card = context["card"]
    return fragments.render_list(
        "comments",
        card.id,
        {"comments": [key for key, _ in parts]},
        "comments/_comment.html",
        [template_context for _, template_context in parts],
        page,
    )
