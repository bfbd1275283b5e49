"""Mastodon's datetime format: ISO 8601 in UTC, with milliseconds."""

from datetime import datetime

from socialsite.clock import aware


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    moment = aware(value)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
