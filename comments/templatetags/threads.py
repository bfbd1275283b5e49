from django import template
from django.conf import settings

from comments.stores import get_store
from comments.stores.base import BLOCKED_TEXT

register = template.Library()

#: Indentation levels the stylesheet draws (`.comment[data-indent="8"]`);
#: with a larger COMMENTS_MAX_DEPTH the deeper levels line up with the 8th.
INDENT_LEVELS = 8


@register.filter
def indent(comment, base=0) -> int:
    """How far a comment is indented: its depth below `base` (the permalink's
    root), never deeper than COMMENTS_MAX_DEPTH."""
    limit = min(settings.COMMENTS_MAX_DEPTH, INDENT_LEVELS)
    return max(0, min(comment.depth - int(base or 0), limit))


@register.simple_tag
def blocked_text() -> str:
    """The placeholder for a comment by someone the viewer blocked."""
    return BLOCKED_TEXT


@register.filter
def can_reply(comment) -> bool:
    """Whether the store keeps a reply to `comment`: no Reply form is offered
    at the deepest level stored (the store would refuse the reply)."""
    return comment.depth < get_store().max_stored_depth
