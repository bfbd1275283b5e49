import re
from typing import Any

from django import forms

from messaging.services import MAX_RECIPIENTS, MAX_TEXT
from socialsite.ids import parse_handle

_SEPARATORS = re.compile(r"[\s,;]+")


def handles_in(values: list[str]) -> list[str]:
    """The handles of the `to` field: repeated, or one field with several
    ("ann, @bob cyd"), the leading @ optional."""
    found: list[str] = []
    for value in values:
        for part in _SEPARATORS.split(str(value)):
            part = part.strip().lstrip("@")
            if part and part not in found:
                found.append(part)
    return found


class MessageForm(forms.Form):
    text = forms.CharField(
        max_length=MAX_TEXT,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": MAX_TEXT}),
        error_messages={"required": "Write a message."},
    )


class StartForm(MessageForm):
    """`to` is read from the request's list (DESIGN: repeated), see `clean_to`."""

    to = forms.CharField(required=False, max_length=2000)

    def __init__(self, *args: Any, recipients: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recipients = recipients or []

    def clean_to(self) -> list[str]:
        handles = self.recipients
        if not handles:
            raise forms.ValidationError("Choose who to write to.")
        if len(handles) > MAX_RECIPIENTS:
            raise forms.ValidationError(f"Write to at most {MAX_RECIPIENTS} people at once.")
        bad = [h for h in handles if parse_handle(h) is None]
        if bad:
            raise forms.ValidationError(f"“{bad[0][:40]}” is not a handle.")
        return list(dict.fromkeys(h for h in map(parse_handle, handles) if h))
