"""Text people type, kept to what every page and feed can carry.

Control characters (backspace, vertical tab, form feed, escape, the C1 range)
show as nothing on a page but are not allowed in XML 1.0: one of them in a
post made the author's Atom feed (docs/features.md#interactions) fail for
every reader. Forms strip them before anything is stored; tab and the line
breaks stay, multi-line text needs them. NUL is left to Django's own
validator, which refuses it with a message.
"""

import re

from django import forms

CONTROLS = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# What XML 1.0 cannot carry at all, NUL included: for text already stored.
XML_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def strip_controls(value: str) -> str:
    return CONTROLS.sub("", value)


def xml_safe(value: str) -> str:
    return XML_UNSAFE.sub("", value)


class PlainCharField(forms.CharField):
    """A CharField that drops control characters before its other checks
    (length, required), so "\\x1b" alone is as empty as nothing."""

    def to_python(self, value: object) -> str | None:
        if isinstance(value, str):
            value = strip_controls(value)
        return super().to_python(value)
