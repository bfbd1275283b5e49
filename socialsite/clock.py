"""Timezone-aware UTC time, everywhere (docs/architecture.md#reliability-and-security-habits), to
the millisecond."""

from datetime import UTC, datetime
from typing import overload


def to_millis(value: datetime) -> datetime:
    """`value` as MongoDB stores it: milliseconds, so values kept in memory
    equal what a round trip through the database gives back, and cursors,
    which carry milliseconds, land exactly on them (docs/performance.md)."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def now() -> datetime:
    return to_millis(datetime.now(UTC))


@overload
def aware(value: datetime) -> datetime: ...
@overload
def aware(value: None) -> None: ...
@overload
def aware(value: datetime | None) -> datetime | None: ...
def aware(value: datetime | None) -> datetime | None:
    """Values read back from the demo database or older documents may be naive UTC."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value
