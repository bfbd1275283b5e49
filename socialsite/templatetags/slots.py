"""`{% slot "<name>" key=value ... %}`: where a lower app's template shows
what a higher app registered (socialsite/extensions.py), rendered with the
page's context and the given values. Nothing registered: nothing shown."""

from django import template
from django.utils.safestring import SafeString, mark_safe

from socialsite import extensions

register = template.Library()


@register.simple_tag(takes_context=True)
def slot(context: template.Context, name: str, **values: object) -> SafeString:
    parts = []
    with context.push(**values):
        for path in extensions.slot_templates(name):
            parts.append(context.template.engine.get_template(path).render(context))
    # Rendered templates: their values were escaped as they were rendered.
    return mark_safe("".join(parts))  # noqa: S308
