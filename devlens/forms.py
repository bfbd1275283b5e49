from django import forms

from devlens import selectors
from socialsite.active import COMMENT_STORES, TIMELINE_MODELS

TIMELINE_HELP = {
    "cache": "one capped array per reader",
    "month": "one document per reader per month",
    "size": "buckets of a fixed number of entries",
    "read": "nothing stored: assembled from posts (the system of record)",
}
STORE_HELP = {
    "documents": "one document per comment",
    "embedded": "the thread inside the post",
    "buckets": "about a hundred comments per document",
}


class ModelsForm(forms.Form):
    """The models this session reads through (docs/developer-lens.md)."""

    timeline_model = forms.ChoiceField(
        label="Timeline model",
        choices=[(name, f"{name}: {TIMELINE_HELP[name]}") for name in TIMELINE_MODELS],
    )
    embed = forms.BooleanField(
        label="Embed a copy of each post in its entries (off: entries link to posts)",
        required=False,
    )
    comment_store = forms.ChoiceField(
        label="Comment store",
        choices=[(name, f"{name}: {STORE_HELP[name]}") for name in COMMENT_STORES],
    )

    def clean_timeline_model(self) -> str:
        model = self.cleaned_data["timeline_model"]
        if model not in selectors.maintained_timeline_models():
            raise forms.ValidationError(
                f"The {model} model is not kept up to date here: shadow models are off "
                "(FEED_SHADOW_MODELS), so its timelines miss posts. Turn them on, or pick "
                "the configured model or read."
            )
        return model

    def clean_embed(self) -> bool:
        embed = self.cleaned_data["embed"]
        if not selectors.embed_maintained(embed):
            raise forms.ValidationError(
                "Entries do not carry copies of their posts here (FEED_EMBED and shadow "
                "models are off), so an embed read would only show the link model's cost."
            )
        return embed

    def warnings(self) -> list[str]:
        """What is allowed but may not show the real thing (after is_valid)."""
        store = self.cleaned_data.get("comment_store")
        if store and store not in selectors.maintained_comment_stores():
            return [
                f"The {store} comment store is not kept up to date by comment writes "
                "(COMMENTS_SHADOW_STORES): threads show what it holds, which is complete "
                f"only after `manage.py convert_comments --to {store}`."
            ]
        return []

    def choice(self) -> dict:
        data = self.cleaned_data
        return {
            "timeline_model": data["timeline_model"],
            "embed": data["embed"],
            "comment_store": data["comment_store"],
        }
