from django import template
from django.conf import settings

register = template.Library()


@register.filter
def indent(comment, base=0) -> int:
    """How far a comment is indented: its depth below `base` (the permalink's
    root), never deeper than COMMENTS_MAX_DEPTH."""
    return max(0, min(comment.depth - int(base or 0), settings.COMMENTS_MAX_DEPTH))
