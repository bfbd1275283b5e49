"""Forms of the campaign management pages (docs/ads-api.md).

Numbers are ASCII digits only: Python's `int()` and `Decimal()` read "١٢" as
12, and an advertiser should see exactly the price they typed. Every field
has an upper bound, so a huge number is a form error, never an overflow in a
BSON integer or a Decimal128. Whether an id is taken or a campaign may be
activated is the service's business (`ads.services.AdsError`).
"""

import re
import unicodedata
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from ads.documents import SLUG_REGEX, Campaign
from ads.services.campaigns import (
    MAX_CAP_COUNT,
    MAX_CAP_HOURS,
    MAX_ECPM,
    MAX_KEYWORDS,
    clean_keywords,
)
from ads.services.errors import AdsError
from ads.services.validation import http_url
from socialsite.clock import now

SLUG = re.compile(SLUG_REGEX)
MONEY = re.compile(r"^[0-9]{1,9}(?:\.[0-9]{1,2})?$")
WHOLE = re.compile(r"^[0-9]{1,9}$")
WHEN = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[T ]([0-9]{2}:[0-9]{2}))?$")

MAX_BUDGET = Decimal("100000000")
URL_MAX = 2000


def _visible(value: str) -> str:
    """Text with its runs of whitespace collapsed; control and format characters
    (bidi overrides, zero-width joiners) refused: an ad is shown to strangers."""
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in value if ch not in "\t\n\r"):
        raise ValidationError("Remove the invisible or control characters.")
    return " ".join(value.split())


class VisibleText(forms.CharField):
    def clean(self, value: str | None) -> str:
        text = _visible(super().clean(value))
        if self.required and not text:
            raise ValidationError(self.error_messages["required"], code="required")
        return text


class SlugField(forms.CharField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 40)
        kwargs.setdefault(
            "help_text", "Lowercase letters, digits, - and _; starting with a letter or digit."
        )
        super().__init__(**kwargs)

    def clean(self, value: str | None) -> str:
        slug: str = super().clean(value).lower()
        if slug and not SLUG.fullmatch(slug):
            raise ValidationError("Use lowercase letters, digits, - and _ (up to 40).")
        return slug


class MoneyField(forms.CharField):
    """A non-negative amount with at most 2 decimals, as a Decimal."""

    def __init__(self, *, maximum: Decimal, **kwargs: Any) -> None:
        self.maximum = maximum
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal"}))
        super().__init__(**kwargs)

    def clean(self, value: str | None) -> Decimal | None:
        text: str = super().clean(value)
        if not text:
            return None
        if text.startswith("-"):
            raise ValidationError("Give an amount of zero or more.")
        if not MONEY.fullmatch(text):
            raise ValidationError("Give an amount like 2.50 (digits, at most 2 decimals).")
        amount = Decimal(text)
        if amount > self.maximum:
            raise ValidationError(f"Give at most {self.maximum}.")
        return amount


class WholeField(forms.CharField):
    """A whole number from 0 to `maximum`; empty is 0."""

    def __init__(self, *, maximum: int, **kwargs: Any) -> None:
        self.maximum = maximum
        kwargs.setdefault("max_length", 12)
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "numeric"}))
        super().__init__(**kwargs)

    def clean(self, value: str | None) -> int:
        text: str = super().clean(value)
        if not text:
            return 0
        if not WHOLE.fullmatch(text):
            raise ValidationError("Give a whole number (digits 0-9).")
        number = int(text)
        if number > self.maximum:
            raise ValidationError(f"Give at most {self.maximum}.")
        return number


class EndsField(forms.CharField):
    """A UTC date ("2026-12-31", midnight) or date and time ("2026-12-31T18:00")."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.DateTimeInput(attrs={"type": "datetime-local"}))
        super().__init__(**kwargs)

    def clean(self, value: str | None) -> datetime | None:
        text: str = super().clean(value)
        if not text:
            return None
        match = WHEN.fullmatch(text)
        try:
            if match is None:
                raise ValueError(text)
            when = datetime.strptime(
                f"{match[1]} {match[2] or '00:00'}", "%Y-%m-%d %H:%M"
            ).replace(tzinfo=UTC)
        except ValueError as exc:
            raise ValidationError(
                "Give a date as YYYY-MM-DD, with a time HH:MM if you like."
            ) from exc
        if when.year < 2000:
            raise ValidationError("Give a date from this century.")
        return when


def clean_http_url(value: str) -> str:
    """An absolute http(s) URL: what a click redirects to must be nothing else.

    The service's own rules (no `user:pass@`, an ASCII host) first, so the
    form says the same as the service (docs/ads-api.md#campaign-management)."""
    value = value.strip()
    try:
        scheme = urlsplit(value).scheme.lower()
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket: "http://[::1"
        raise ValidationError("That is not a valid address.") from exc
    if scheme not in ("http", "https"):
        raise ValidationError("Give a full address starting with http:// or https://.")
    try:
        http_url(value, "address", required=True)
    except AdsError as exc:
        raise ValidationError(str(exc)) from exc
    URLValidator(schemes=["http", "https"], message="That is not a valid address.")(value)
    return value


class CampaignForm(forms.Form):
    """Create (with `advertiser`) or edit (without: the id is built from it)."""

    advertiser = SlugField(help_text="The advertiser's short name: the first half of the id.")
    name = VisibleText(max_length=80)
    ecpm = MoneyField(
        maximum=MAX_ECPM, label="eCPM", help_text="Price per 1,000 impressions, e.g. 2.50."
    )
    keywords = forms.CharField(
        required=False,
        max_length=1000,
        help_text=f"Comma or space separated, up to {MAX_KEYWORDS}. Empty: shown everywhere.",
    )
    cap_count = WholeField(
        maximum=MAX_CAP_COUNT,
        label="Frequency cap: impressions",
        help_text="Per viewer in the window below. 0: no cap.",
    )
    cap_hours = WholeField(maximum=MAX_CAP_HOURS, label="Frequency cap: hours")
    budget = MoneyField(
        maximum=MAX_BUDGET,
        required=False,
        help_text="Optional. Serving stops once spend reaches it.",
    )
    ends = EndsField(help_text="Optional, UTC. Serving stops at this time.")

    def __init__(
        self,
        *args: Any,
        editing: Campaign | None = None,
        own_advertiser: str | None = None,
        **kwargs: Any,
    ) -> None:
        """`editing`: the campaign being edited (no advertiser field then).
        `own_advertiser`: the only advertiser name this user may use (a
        non-admin's own handle); None lets an admin choose any."""
        super().__init__(*args, **kwargs)
        self.editing = editing
        self.own_advertiser = own_advertiser
        if editing is not None:
            del self.fields["advertiser"]
        elif own_advertiser is not None:
            # Shown, so the id it makes is no surprise, but not for editing.
            field = self.fields["advertiser"]
            field.widget.attrs["readonly"] = True
            field.help_text = "Your advertiser name: the first half of the campaign's id."

    def clean_advertiser(self) -> str:
        # A campaign is served and reported under its advertiser's name: an
        # advertiser who could pick another's would spend in their name.
        advertiser = self.cleaned_data["advertiser"]
        if self.own_advertiser is not None and advertiser != self.own_advertiser:
            raise ValidationError(
                f"You can create campaigns only under your own name, “{self.own_advertiser}”."
            )
        return advertiser

    def clean_keywords(self) -> list[str]:
        # The service's own rules, so the error shows under the field.
        try:
            return clean_keywords(_visible(self.cleaned_data["keywords"]))
        except AdsError as exc:
            raise ValidationError(str(exc)) from exc

    def clean_ends(self) -> datetime | None:
        ends = self.cleaned_data["ends"]
        unchanged = self.editing is not None and ends == _minute(self.editing.ends)
        if ends is not None and ends <= now() and not unchanged:
            raise ValidationError("Give a time in the future.")
        return ends

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        count, hours = data.get("cap_count"), data.get("cap_hours")
        if count is not None and hours is not None and bool(count) != bool(hours):
            raise ValidationError("A frequency cap needs both a number of impressions and hours.")
        return data


def _minute(value: datetime | None) -> datetime | None:
    """A stored end as the form shows it: to the minute, in UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=value.tzinfo or UTC, second=0, microsecond=0)


def campaign_initial(campaign: Campaign) -> dict:
    ends = _minute(campaign.ends)
    return {
        "name": campaign.name,
        "ecpm": f"{campaign.ecpm:.2f}",
        "keywords": ", ".join(campaign.keywords),
        "cap_count": campaign.cap_count,
        "cap_hours": campaign.cap_hours,
        "budget": "" if campaign.budget is None else f"{campaign.budget:.2f}",
        "ends": ends.strftime("%Y-%m-%dT%H:%M") if ends else "",
    }


class UnitForm(forms.Form):
    ad_unit_id = SlugField(label="Ad unit id")
    site = SlugField(initial="socialsite", help_text="Socialsite's own site id is socialsite.")
    zone = SlugField(initial="feed", help_text="On socialsite: feed, search or profile.")
    title = VisibleText(max_length=80)
    text = VisibleText(max_length=200, required=False, widget=forms.Textarea(attrs={"rows": 2}))
    url = forms.CharField(
        max_length=URL_MAX, label="Link", widget=forms.URLInput, help_text="http:// or https://"
    )
    image = forms.CharField(
        max_length=URL_MAX,
        required=False,
        label="Image address",
        widget=forms.URLInput,
        help_text="Optional, http:// or https://",
    )

    def clean_url(self) -> str:
        return clean_http_url(self.cleaned_data["url"])

    def clean_image(self) -> str:
        image = self.cleaned_data["image"]
        return clean_http_url(image) if image else ""
