"""Checking what a campaign or a unit is made of, before anything is written.

Every check raises AdsError with a message the forms show as it is.
"""

import re
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Literal, TypedDict, overload
from urllib.parse import urlsplit

from ads.documents import SLUG_REGEX
from ads.services.errors import AdsError
from socialsite.clock import aware

MAX_KEYWORDS = 20
MAX_KEYWORD_LENGTH = 40
MAX_ECPM = Decimal("10000")
# A viewer keeps up to this many impression times per capped campaign.
MAX_CAP_COUNT = 100
# The longest cap window: a viewer's counters never need to live longer.
MAX_CAP_HOURS = 24 * 30
MAX_NAME_LENGTH = 80
KEYWORD_SPLIT = re.compile(r"[\s,]+")
KEYWORD_RE = re.compile(r"^[^\W_][\w'+#.-]*$")
SLUG_RE = re.compile(SLUG_REGEX)
CENTS = Decimal("0.01")


class CampaignFields(TypedDict):
    """A campaign's own fields, checked: what clean_campaign returns."""

    name: str
    ecpm: Decimal
    keywords: list[str]
    cap_count: int
    cap_hours: int
    budget: Decimal | None
    ends: datetime | None


class UnitFields(TypedDict):
    """An ad unit's fields, checked: what clean_unit returns."""

    ad_unit_id: str
    site: str
    zone: str
    title: str
    text: str
    url: str
    image: str


def clean_keywords(keywords: str | Iterable[object] | None) -> list[str]:
    """Lowercase, split on commas and spaces, deduplicated in order, bounded."""
    if isinstance(keywords, str):
        keywords = [keywords]
    cleaned: list[str] = []
    for raw in keywords or ():
        for word in KEYWORD_SPLIT.split(str(raw).casefold()):
            word = word.strip()
            if not word or word in cleaned:
                continue
            if len(word) > MAX_KEYWORD_LENGTH:
                raise AdsError(f"A keyword has at most {MAX_KEYWORD_LENGTH} characters.")
            if not KEYWORD_RE.match(word):
                raise AdsError(
                    f"“{word[:MAX_KEYWORD_LENGTH]}” is not a keyword: use letters and digits."
                )
            cleaned.append(word)
    if len(cleaned) > MAX_KEYWORDS:
        raise AdsError(f"A campaign has at most {MAX_KEYWORDS} keywords.")
    return cleaned


Money = Decimal | int | str | None


@overload
def _money(value: Money, what: str, *, required: Literal[True]) -> Decimal: ...
@overload
def _money(value: Money, what: str, *, required: bool) -> Decimal | None: ...
def _money(value: Money, what: str, *, required: bool) -> Decimal | None:
    if value is None:
        if required:
            raise AdsError(f"Give the {what}.")
        return None
    try:
        amount = Decimal(value)
    except (InvalidOperation, TypeError, ValueError) as exc:
        raise AdsError(f"The {what} must be a number.") from exc
    if not amount.is_finite():
        raise AdsError(f"The {what} must be a number.")
    if amount < 0:
        raise AdsError(f"The {what} cannot be negative.")
    if amount > MAX_ECPM * 1_000_000:
        raise AdsError(f"The {what} is too large.")
    return amount.quantize(CENTS)


def clean_campaign(
    *,
    name: str,
    ecpm: Decimal,
    keywords: str | Iterable[object] | None,
    cap_count: int,
    cap_hours: int,
    budget: Decimal | None,
    ends: datetime | None,
) -> CampaignFields:
    name = " ".join(str(name or "").split())
    if not name:
        raise AdsError("Give the campaign a name.")
    if len(name) > MAX_NAME_LENGTH:
        raise AdsError(f"A campaign name has at most {MAX_NAME_LENGTH} characters.")
    ecpm = _money(ecpm, "eCPM", required=True)
    if ecpm > MAX_ECPM:
        raise AdsError(f"The eCPM is at most {MAX_ECPM}.")
    try:
        cap_count, cap_hours = int(cap_count or 0), int(cap_hours or 0)
    except (TypeError, ValueError) as exc:
        raise AdsError("The frequency cap must be whole numbers.") from exc
    if cap_count < 0 or cap_hours < 0:
        raise AdsError("The frequency cap cannot be negative.")
    if (cap_count == 0) != (cap_hours == 0):
        raise AdsError("Give both the cap's count and its hours, or neither.")
    if cap_count > MAX_CAP_COUNT:
        raise AdsError(f"The cap is at most {MAX_CAP_COUNT} impressions.")
    if cap_hours > MAX_CAP_HOURS:
        raise AdsError(f"The cap's window is at most {MAX_CAP_HOURS} hours.")
    if ends is not None and not isinstance(ends, datetime):
        raise AdsError("The end must be a date and time.")
    return {
        "name": name,
        "ecpm": ecpm,
        "keywords": clean_keywords(keywords),
        "cap_count": cap_count,
        "cap_hours": cap_hours,
        "budget": _money(budget, "budget", required=False),
        "ends": aware(ends),
    }


def http_url(value: str, what: str, *, required: bool) -> str:
    """An absolute http(s) url with a host, or AdsError
    (docs/architecture.md#reliability-and-security-habits)."""
    value = str(value or "").strip()
    if not value:
        if required:
            raise AdsError(f"Give the {what}.")
        return ""
    if len(value) > 2000:
        raise AdsError(f"The {what} is too long.")
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme.lower() not in ("http", "https")
        or not parts.hostname
        or any(ch.isspace() or ord(ch) < 32 or ch == "\\" for ch in value)
    ):
        raise AdsError(f"The {what} must be an http:// or https:// address with a host.")
    # "https://bank.example@evil.example/" reads as the bank and goes to evil.
    if "@" in parts.netloc:
        raise AdsError(f"The {what} cannot hold a user name or password (“…@”).")
    # A look-alike host ("apple.com" spelt with a Cyrillic a) is refused; an
    # internationalised domain is given in its ASCII (punycode, xn--) form,
    # which is what the ad then shows as its destination.
    if not parts.hostname.isascii():
        raise AdsError(
            f"The {what}'s host must be ASCII: give an international domain "
            "in its punycode form (xn--...)."
        )
    return value


def clean_slug(value: object, what: str) -> str:
    value = str(value or "").strip().lower()
    if not SLUG_RE.match(value):
        raise AdsError(f"The {what} is 1 to 40 lowercase letters, digits, - or _.")
    return value


def clean_unit(
    *, ad_unit_id: str, site: str, zone: str, title: str, text: str, url: str, image: str
) -> UnitFields:
    """The fields of an AdUnit, checked: slugs, bounded text, http(s) urls."""
    title, text = " ".join(str(title or "").split()), " ".join(str(text or "").split())
    if not title or len(title) > 80:
        raise AdsError("The title is 1 to 80 characters.")
    if len(text) > 200:
        raise AdsError("The text has at most 200 characters.")
    return {
        "ad_unit_id": clean_slug(ad_unit_id, "unit id"),
        "site": clean_slug(site, "site"),
        "zone": clean_slug(zone, "zone"),
        "title": title,
        "text": text,
        "url": http_url(url, "link", required=True),
        "image": http_url(image, "image address", required=False),
    }
