"""The post form: one form for every post type (the `POST /posts/` contract).

A page may render every type's inputs at once (tabs), so values of the types
not chosen are ignored, errors included. `clean()` turns the chosen type's
inputs into `cleaned_data["detail"]`, the dict stored as `Post.detail`. Only
the shape of the input is checked here; whether `to` exists or has blocked
the poster is the service's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from feeds.documents import ALL_CIRCLES, POST_TYPES, PUBLIC
from feeds.services import photos, polls
from socialsite.ids import parse_handle
from socialsite.text import PlainCharField

TEXT_MAX = 2000
URL_MAX = 2000
TITLE_MAX = 200
PLACE_MAX = 120
QUESTION_MAX = 300
OPTION_MAX = 100
CW_MAX = 100
ALT_MAX = 1500

TYPE_LABELS = {
    "status": "Status",
    "link": "Link",
    "photo": "Photo",
    "checkin": "Check-in",
    "poll": "Poll",
}
# The inputs each type reads, besides type, circles and to.
TYPE_FIELDS = {
    "status": {"text"},
    "link": {"url", "title", "text"},
    "photo": {"photo", "text", "alt"},
    "checkin": {"place", "lat", "lng", "text"},
    "poll": {"text", "options", "expires_in"},
}
COMMON_FIELDS = {"type", "circles", "to", "cw"}


class TextField(PlainCharField):
    """A CharField that counts a line break as one character, and drops
    control characters (socialsite/text.py) like every text field here.

    Browsers submit textarea line breaks as CRLF while their `maxlength`
    counts them once; normalising first keeps the two limits the same.
    """

    def to_python(self, value: object) -> str | None:
        if isinstance(value, str):
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        return super().to_python(value)


class OptionsWidget(forms.Textarea):
    """One option per line, or the field repeated (`options=a&options=b`)."""

    def value_from_datadict(
        self, data: Mapping[str, Any], files: Mapping[str, Any], name: str
    ) -> str:
        values = data.getlist(name) if hasattr(data, "getlist") else [data.get(name)]
        return "\n".join(v for v in values if isinstance(v, str))


class PostForm(forms.Form):
    type = forms.ChoiceField(
        choices=[(t, TYPE_LABELS[t]) for t in POST_TYPES], required=False, initial="status"
    )
    text = TextField(required=False, max_length=TEXT_MAX, widget=forms.Textarea)
    url = PlainCharField(required=False, max_length=URL_MAX, label="Link")
    title = PlainCharField(required=False, max_length=TITLE_MAX)
    circles = forms.MultipleChoiceField(
        required=False,
        label="Who can see this",
        help_text="Public, all your circles, or one or more circles.",
    )
    to = forms.CharField(required=False, label="On the wall of")
    # A content warning: readers see it first and open the post to read on.
    cw = PlainCharField(required=False, max_length=CW_MAX, label="Content warning")
    # The photo described for those who cannot see it: its `<img alt>`.
    alt = TextField(required=False, max_length=ALT_MAX, label="Describe the photo")
    photo = forms.FileField(
        required=False,
        widget=forms.FileInput(attrs={"accept": ",".join(photos.FORMATS.values())}),
    )
    place = PlainCharField(required=False, max_length=PLACE_MAX)
    lat = forms.FloatField(required=False, min_value=-90, max_value=90, label="Latitude")
    lng = forms.FloatField(required=False, min_value=-180, max_value=180, label="Longitude")
    options = TextField(
        required=False,
        widget=OptionsWidget(attrs={"rows": polls.MAX_OPTIONS}),
        help_text=f"{polls.MIN_OPTIONS} to {polls.MAX_OPTIONS} options, one per line.",
    )
    # Seconds, one of Mastodon's choices; left out, a day (docs/features.md#polls).
    expires_in = forms.TypedChoiceField(
        required=False,
        label="Poll ends in",
        choices=list(polls.DURATIONS.items()),
        coerce=int,
        empty_value=None,
        initial=polls.DEFAULT_DURATION,
        error_messages={
            "invalid_choice": "Choose when the poll ends: "
            + ", ".join(polls.DURATIONS.values())
            + "."
        },
    )

    def __init__(self, *args: Any, owner_circles: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._upload = None
        specials = [(PUBLIC, "Public"), (ALL_CIRCLES, "All my circles")]
        names = [(name, name) for name in owner_circles if name not in (PUBLIC, ALL_CIRCLES)]
        self.fields["circles"].choices = specials + names

    def clean_type(self) -> str:
        return self.cleaned_data["type"] or "status"

    def clean_circles(self) -> list[str]:
        chosen = list(dict.fromkeys(self.cleaned_data["circles"]))
        if not chosen and self.data.get("audience") == "chosen":
            # The composer's boxes were all unticked: say so rather than
            # publish to everyone (a form without them, a script's, is public).
            raise ValidationError("Choose who can see this post: Public, or your circles.")
        if not chosen:
            return [PUBLIC]
        if len(chosen) > 1 and (PUBLIC in chosen or ALL_CIRCLES in chosen):
            raise ValidationError(
                "Choose Public, All my circles, or named circles; not a mix of them."
            )
        return chosen

    def clean_to(self) -> str | None:
        value = self.cleaned_data["to"]
        if not value:
            return None
        handle = parse_handle(value)
        if handle is None:
            raise ValidationError("That is not a valid handle.")
        return handle

    def clean(self) -> dict:
        data = super().clean()
        kind = data.get("type")
        if kind not in TYPE_FIELDS:
            return data  # the type field carries the error
        wanted = TYPE_FIELDS[kind] | COMMON_FIELDS
        for name in list(self._errors):
            if name in self.fields and name not in wanted:
                del self._errors[name]
        # The upload is replaced by its processed bytes, or None for other types.
        self._upload = data.get("photo") or None
        data["photo"] = None
        detail = getattr(self, f"_detail_{kind}")(data)
        if data.get("cw"):
            detail["cw"] = data["cw"]
        if kind == "photo" and data.get("alt"):
            detail["alt"] = data["alt"]
        if not self.errors:
            data["detail"] = detail
        return data

    # --- per type: each returns the detail dict, adding field errors as it goes

    def _missing(self, name: str, message: str) -> bool:
        """True (and an error) when a field is empty and has no error yet."""
        if name in self.errors:
            return False
        if self.cleaned_data.get(name) in (None, ""):
            self.add_error(name, message)
            return True
        return False

    def _detail_status(self, data: dict) -> dict:
        self._missing("text", "Write something to post.")
        return {"text": data.get("text", "")}

    def _detail_link(self, data: dict) -> dict:
        url = ""
        if not self._missing("url", "Give the address of the link.") and "url" not in self.errors:
            try:
                url = _clean_url(data["url"])
            except ValidationError as exc:
                self.add_error("url", exc)
        return {"url": url, "title": data.get("title", ""), "text": data.get("text", "")}

    def _detail_photo(self, data: dict) -> dict:
        if "photo" in self.errors:  # e.g. an empty file: already said
            return {"text": data.get("text", "")}
        if self._upload is None:
            self.add_error("photo", "Choose a photo to upload.")
        else:
            try:
                data["photo"] = photos.process_upload(self._upload)
            except photos.PhotoError as exc:
                self.add_error("photo", exc.message)
        return {"text": data.get("text", "")}

    def _detail_checkin(self, data: dict) -> dict:
        """A place name, with its coordinates optional: both or neither (the
        composer can fill them from the browser's location)."""
        self._missing("place", "Name the place.")
        # A value with an error (out of range, not a number) counts as given.
        given = {
            name for name in ("lat", "lng") if name in self.errors or data.get(name) is not None
        }
        if given == {"lng"}:
            self._missing("lat", "Give the latitude too, or neither.")
        elif given == {"lat"}:
            self._missing("lng", "Give the longitude too, or neither.")
        place = " ".join((data.get("place") or "").split())
        lat, lng = data.get("lat"), data.get("lng")
        return {
            "place": place,
            "lat": None if lat is None else round(lat, 6),
            "lng": None if lng is None else round(lng, 6),
            "text": data.get("text", ""),
        }

    def _detail_poll(self, data: dict) -> dict:
        question = data.get("text", "")
        if not self._missing("text", "Ask a question.") and len(question) > QUESTION_MAX:
            self.add_error("text", f"Keep the question to {QUESTION_MAX} characters.")
        options: list[str] = []
        if "options" not in self.errors:
            try:
                options = _clean_options(data.get("options", ""))
            except ValidationError as exc:
                self.add_error("options", exc)
        expires_in = data.get("expires_in") or polls.DEFAULT_DURATION
        # Ends that long from now: the post is written within the request.
        return polls.poll_detail(question=question, options=options, expires_in=expires_in)


_http_url = URLValidator(schemes=["http", "https"])


def _clean_url(value: str) -> str:
    """An http(s) URL; a bare `example.com/page` gets https:// in front."""
    value = value.strip()
    try:
        if not urlsplit(value).scheme:
            value = "https://" + value
        scheme = urlsplit(value).scheme.lower()
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket: "http://[::1"
        raise ValidationError("That is not a valid link.") from exc
    if scheme not in ("http", "https"):
        raise ValidationError("Only http:// and https:// links can be posted.")
    _http_url(value)
    if len(value) > URL_MAX:
        raise ValidationError(f"Links can be at most {URL_MAX} characters.")
    return value


def _clean_options(raw: str) -> list[str]:
    options = [" ".join(line.split()) for line in raw.split("\n")]
    options = [option for option in options if option]
    if len(options) < polls.MIN_OPTIONS:
        raise ValidationError(f"Give at least {polls.MIN_OPTIONS} options, one per line.")
    if len(options) > polls.MAX_OPTIONS:
        raise ValidationError(f"Give at most {polls.MAX_OPTIONS} options.")
    if any(len(option) > OPTION_MAX for option in options):
        raise ValidationError(f"Keep each option to {OPTION_MAX} characters.")
    if len({option.casefold() for option in options}) != len(options):
        raise ValidationError("Each option must be different.")
    return options
