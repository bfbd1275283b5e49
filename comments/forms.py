from django import forms

from comments.stores.slugs import is_slug
from socialsite.text import PlainCharField

TEXT_MAX = 2000


class CommentForm(forms.Form):
    # Control characters dropped (socialsite/text.py): nothing stored that a
    # page or a feed cannot carry.
    text = PlainCharField(
        label="Comment",
        max_length=TEXT_MAX,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": TEXT_MAX}),
        error_messages={"required": "Write something first."},
    )
    parent = forms.CharField(
        required=False,
        max_length=300,
        widget=forms.HiddenInput,
        error_messages={"max_length": "That comment does not exist."},
    )

    def clean_text(self) -> str:
        text = self.cleaned_data["text"].strip()
        if not text:
            raise forms.ValidationError("Write something first.")
        return text

    def clean_parent(self) -> str | None:
        parent = self.cleaned_data.get("parent") or None
        if parent is not None and not is_slug(parent):
            raise forms.ValidationError("That comment does not exist.")
        return parent
