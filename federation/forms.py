"""The forms of the domain pages: a moderator's rule for a whole server
(/mod/domains/) and a person's own domain block (/settings/domains/block/).

The domain goes through `moderation.clean_domain`, the one rule the
services apply, so the form refuses exactly what they would, with their
words; it adds what only a page can judge: a rule on this server's own
domain means nothing (our people are not "of" a domain), and a name with
an empty label (`a..b`, `.example`) names no host (RFC 1035 §2.3.1).
"""

from django import forms

from federation import moderation, uris
from federation.documents import DOMAIN_LEVELS
from socialsite.text import PlainCharField

LEVEL_LABELS = {
    "block": "Block: refuse everything from it, send it nothing, suspend its people",
    "silence": "Silence: its people reach only those here who follow them",
}


class DomainForm(forms.Form):
    domain = PlainCharField(
        label="Domain", max_length=300, help_text="Such as social.example (no https://)."
    )

    def clean_domain(self) -> str:
        try:
            domain = moderation.clean_domain(self.cleaned_data["domain"])
        except moderation.DomainError as exc:
            raise forms.ValidationError(str(exc)) from None
        host = domain.rsplit(":", 1)[0] if domain.count(":") == 1 else domain
        if ":" in host or any(not label for label in host.split(".")):
            raise forms.ValidationError("Write a domain, such as social.example.")
        if domain == uris.domain():
            raise forms.ValidationError("That is this server's own domain.")
        return domain


class DomainRuleForm(DomainForm):
    level = forms.ChoiceField(
        label="Level",
        choices=[(level, LEVEL_LABELS[level]) for level in reversed(DOMAIN_LEVELS)],
        initial="silence",
        widget=forms.RadioSelect,
    )
    reason = PlainCharField(
        label="Reason",
        max_length=500,
        required=False,
        help_text="Kept in the audit log; a block gives it to each person it suspends.",
    )
