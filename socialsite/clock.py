"""Timezone-aware UTC time, everywhere (DESIGN.md §7)."""

from datetime import UTC, datetime


def now() -> datetime:
    # MongoDB stores milliseconds; truncating here keeps in-memory values
    # equal to what a round trip through the database gives back.
    t = datetime.now(UTC)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def aware(value: datetime | None) -> datetime | None:
    """Values read back from the demo database or older documents may be naive UTC."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value
