"""Display names that people can read and tell apart, and names as people
search compares them (`fold_name`, `name_terms`: pure text, for the writes
that store a user's `name_terms` and the search that reads them).

A name is shown beside every post and comment, so it must not hide text
(zero-width and other invisible characters), reorder the text around it (bidi
overrides and isolates, as in "evil" + U+202E + "gnp.exe") or be blank to
the eye.
"""

import unicodedata

from django import forms

# Explicit embeddings/overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
BIDI_CONTROLS = frozenset(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
# Control, format (zero-width space/joiners, soft hyphen, bidi marks), private
# use, unassigned and surrogate code points, and line/paragraph separators.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
# Blank to the eye although Unicode files them as letters or marks: the Hangul
# fillers, the Khmer inherent vowels and the combining grapheme joiner.
BLANK_LOOKALIKES = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")


def has_visible_letter(name: str) -> bool:
    return any(unicodedata.category(ch)[0] in "LN" and ch not in BLANK_LOOKALIKES for ch in name)


def clean_display_name(value: str) -> str:
    """The name with its runs of spaces collapsed, or a ValidationError.

    Checked before the spaces are collapsed: `str.split` would quietly turn
    line separators into spaces.
    """
    name = unicodedata.normalize("NFC", value)
    if any(ch in BIDI_CONTROLS for ch in name):
        raise forms.ValidationError(
            "Remove the text-direction control characters from your name.", code="bidi"
        )
    if any(
        unicodedata.category(ch) in INVISIBLE_CATEGORIES or ch in BLANK_LOOKALIKES
        for ch in name
        if ch not in " \t"
    ):
        raise forms.ValidationError(
            "Remove the invisible characters (such as zero-width spaces) from your name.",
            code="invisible",
        )
    name = " ".join(name.split())
    if not name:
        raise forms.ValidationError("Tell people what to call you.", code="required")
    if not has_visible_letter(name):
        raise forms.ValidationError(
            "Your name needs at least one letter or digit.", code="no_letter"
        )
    return name


def fold_name(text: str) -> str:
    """A name or a search query as search compares them: NFKC, case-folded,
    words separated by single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def name_terms(name: str) -> list[str]:
    """Every prefix of the folded name and of each of its words ("ada",
    "ada l", "lo", ...): edge n-grams, so that a prefix search is an equality
    on the multikey `(name_terms, _id)` index and comes back in handle order
    without an in-memory sort (docs/performance.md). Names are at most 80
    characters, so a user has at most a few hundred terms."""
    folded = fold_name(name)
    terms: set[str] = set()
    for text in {folded, *folded.split()}:
        terms.update(text[:end] for end in range(1, len(text) + 1))
    return sorted(terms)
