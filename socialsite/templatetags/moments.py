"""`{% moment when "classes" age %}`: the `<time>` a page shows beside a
message or a notification, "5 minutes ago" with the exact time in its
`datetime` and `title`, written in one step (docs/performance.md#the-fragment-cache).

The same element from filters, `{{ when|date:'c' }}`, `{{ when|date:'j M Y,
H:i' }}` and `{{ when|timesince }}`, converts the time to the current zone
three times and walks Django's format machinery and lazy translations each
time: a conversation page of thirty messages paid that ninety times. The
site shows UTC (the title says so) in English (USE_I18N is off), so one
formatting does: ISO 8601 as `date:'c'` writes it, the title as `j M Y,
H:i` does, and the age by socialsite/fragments.py's `age`, which the tests
hold to Django's `timesince`. Inside a cached fragment `age` is that
fragment's slot, filled on every page.
"""

from datetime import UTC, datetime
from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe

from socialsite import fragments

register = template.Library()

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def exact(when: datetime) -> tuple[str, str]:
    """`when` (UTC) as `date:'c'` and as `date:'j M Y, H:i'` write it."""
    return when.isoformat(), f"{when.day} {MONTHS[when.month - 1]} {when.year}, {when:%H:%M}"


@register.simple_tag
def moment(when: object, classes: str = "", age: str | None = None) -> SafeString:
    """`<time class=.. datetime=.. title="..  UTC" data-relative>.. ago</time>`;
    nothing for a missing time. `age` is a fragment's age slot, else the age now."""
    if not isinstance(when, datetime):
        return mark_safe("")
    utc = when.astimezone(UTC) if when.tzinfo is not None else when.replace(tzinfo=UTC)
    iso, title = exact(utc)
    shown = fragments.age(utc) if age is None else age
    attribute = f' class="{escape(classes)}"' if classes else ""
    # Digits, month names, unit names and the slot: nothing else to escape.
    return mark_safe(  # noqa: S308
        f'<time{attribute} datetime="{iso}" title="{title} UTC" data-relative>{shown} ago</time>'
    )
