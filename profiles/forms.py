from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import FieldDoesNotExist
from django.core.validators import URLValidator

from profiles.documents import User
from profiles.filters import CONTEXT_LABELS, CONTEXTS, MAX_PHRASE, phrase_pattern
from profiles.names import clean_display_name
from socialsite.ids import LOCAL_HANDLE_RE
from socialsite.text import PlainCharField


class _CandidateField:
    def __init__(self, verbose_name: str) -> None:
        self.verbose_name = verbose_name


class _CandidateMeta:
    """The `_meta.get_field(name).verbose_name` that Django's
    UserAttributeSimilarityValidator reads to word its error."""

    fields = {"handle": _CandidateField("handle"), "name": _CandidateField("display name")}

    def get_field(self, name: str) -> _CandidateField:
        try:
            return self.fields[name]
        except KeyError:
            raise FieldDoesNotExist(name) from None


class _Candidate:
    """What the password validators compare the password against."""

    _meta = _CandidateMeta()

    def __init__(self, handle: str = "", name: str = "") -> None:
        self.handle, self.name = handle, name


class SignupForm(forms.Form):
    username = forms.CharField(
        label="Handle",
        max_length=30,
        help_text="3–30 characters: lowercase letters, digits and _.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    name = forms.CharField(label="Display name", max_length=80)
    password1 = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text="At least 8 characters, not too common, not all digits.",
    )
    password2 = forms.CharField(
        label="Password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_username(self) -> str:
        handle = self.cleaned_data["username"].strip().lower()
        if not LOCAL_HANDLE_RE.fullmatch(handle):
            raise forms.ValidationError(
                "Use 3–30 characters: lowercase letters, digits and underscores."
            )
        return handle

    def clean_name(self) -> str:
        return clean_display_name(self.cleaned_data["name"])

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        p1, p2 = data.get("password1"), data.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", "The two passwords don't match.")
        elif p1:
            try:
                password_validation.validate_password(
                    p1, _Candidate(data.get("username", ""), data.get("name", ""))
                )
            except forms.ValidationError as exc:
                self.add_error("password1", exc)
        return data


class LoginForm(forms.Form):
    username = forms.CharField(
        label="Handle",
        max_length=100,
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}
        ),
    )
    password = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class SetPasswordForm(forms.Form):
    """A new password, twice, checked by the password validators."""

    new_password1 = forms.CharField(
        label="New password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    new_password2 = forms.CharField(
        label="New password again",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        p1, p2 = data.get("new_password1"), data.get("new_password2")
        if p1 and p2 and p1 != p2:
            self.add_error("new_password2", "The two passwords don't match.")
        elif p1:
            try:
                password_validation.validate_password(
                    p1, _Candidate(self.user.handle, self.user.name)
                )
            except forms.ValidationError as exc:
                self.add_error("new_password1", exc)
        return data


def _code_field() -> forms.CharField:
    return forms.CharField(
        label="Code",
        max_length=64,
        required=False,
        help_text="The 6 digits your authenticator app shows, or one of your recovery codes.",
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "text", "spellcheck": "false"}
        ),
    )


def _password_field(label: str = "Password") -> forms.CharField:
    return forms.CharField(
        label=label,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class ProofForm(forms.Form):
    """The password, and a code when two-factor login is on: what a stolen
    session lacks (docs/accounts.md#what-a-stolen-session-cannot-do). The
    view checks them (profiles/views/confirm.py), under a rate limit."""

    password = _password_field()
    code = _code_field()

    def __init__(self, *args: Any, needs_code: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if needs_code:
            self.fields["code"].required = True
        else:
            del self.fields["code"]


class PasswordChangeForm(SetPasswordForm):
    """The current password (checked by the view, under a rate limit), a
    code when two-factor login is on, and the new password twice."""

    old_password = _password_field("Current password")
    code = _code_field()
    field_order = ["old_password", "code", "new_password1", "new_password2"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.user.has_2fa:
            self.fields["code"].required = True
        else:
            del self.fields["code"]


class TwoFactorCodeForm(forms.Form):
    code = forms.CharField(
        label="Code",
        max_length=64,
        help_text="The 6 digits your authenticator app shows, or one of your recovery codes.",
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "text", "spellcheck": "false"}
        ),
    )


class TwoFactorEnrolForm(TwoFactorCodeForm):
    """The first code, from the app just set up (no recovery codes yet), and
    the password: a stolen session cannot tie the account to another app."""

    password = _password_field()
    field_order = ["code", "password"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["code"].help_text = f"The 6 digits the app shows for {settings.SITE_NAME}."
        self.fields["password"].help_text = "Your current password, to show it is you."


class TwoFactorOffForm(ProofForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, needs_code=True, **kwargs)


class EmailForm(forms.Form):
    email = forms.EmailField(
        label="Email address",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class EmailChangeForm(ProofForm):
    """A new address, with the password (and code): the address is what a
    reset link goes to, so changing it is changing who can take the account."""

    email = forms.EmailField(
        label="Email address",
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    field_order = ["email", "password", "code"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["password"].help_text = "Your current password, to show it is you."


http_only = URLValidator(schemes=["http", "https"], message="Enter an http:// or https:// link.")


class ProfileForm(forms.Form):
    # The name refuses control characters with a message (profiles/names.py);
    # the other fields drop them (socialsite/text.py).
    name = forms.CharField(label="Display name", max_length=80)
    bio = PlainCharField(label="Bio", max_length=500, required=False, widget=forms.Textarea)
    location = PlainCharField(label="Location", max_length=100, required=False)
    interests = PlainCharField(
        label="Interests",
        max_length=400,
        required=False,
        help_text="Separated by commas, up to 20.",
    )
    website = PlainCharField(
        label="Website",
        max_length=200,
        required=False,
        validators=[http_only],
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
    )
    # Left out of a post: unchanged (docs/messages.md#who-may-write-to-you).
    messages_from = forms.ChoiceField(
        label="Who may start a conversation with you",
        choices=[
            ("everyone", "Everyone"),
            ("following", "People you follow"),
            ("nobody", "Nobody"),
        ],
        required=False,
        widget=forms.RadioSelect,
    )

    def clean_name(self) -> str:
        return clean_display_name(self.cleaned_data["name"])

    def clean_interests(self) -> list[str]:
        raw = self.cleaned_data.get("interests", "")
        interests = list(dict.fromkeys(i.strip() for i in raw.split(",") if i.strip()))
        if len(interests) > 20:
            raise forms.ValidationError("At most 20 interests.")
        if any(len(i) > 40 for i in interests):
            raise forms.ValidationError("Each interest is at most 40 characters.")
        return interests


class CircleNameForm(forms.Form):
    name = PlainCharField(label="New circle", max_length=30)


class CirclePickForm(forms.Form):
    """The `circles` field of the follow form (repeated, optional)."""

    circles = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args: Any, owner_circles: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["circles"].choices = [(c, c) for c in owner_circles]


class AccountDeleteForm(ProofForm):
    """Erasing the account: the password, and a code when 2FA is on."""


class KeywordFilterForm(forms.Form):
    """A keyword filter (docs/privacy.md#keyword-filters): the phrase, where
    it applies (`context`, repeated), what it does and how long it lasts."""

    phrase = PlainCharField(
        label="Word or phrase",
        max_length=MAX_PHRASE,
        help_text="Whole words, any case: “cat” does not filter “category”.",
    )
    context = forms.MultipleChoiceField(
        label="Filter it in",
        choices=[(c, CONTEXT_LABELS[c]) for c in CONTEXTS],
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one place to filter it in."},
    )
    action = forms.ChoiceField(
        label="Then",
        choices=[("warn", "Warn: show it folded, naming the filter"), ("hide", "Hide it")],
        initial="warn",
        widget=forms.RadioSelect,
    )
    expires = forms.ChoiceField(
        label="Expires",
        choices=[
            ("never", "Never"),
            ("1h", "After 1 hour"),
            ("1d", "After 1 day"),
            ("7d", "After 7 days"),
            ("30d", "After 30 days"),
        ],
        initial="never",
        required=False,
    )

    def clean_expires(self) -> str:
        return self.cleaned_data["expires"] or "never"

    def clean_phrase(self) -> str:
        phrase = " ".join(self.cleaned_data["phrase"].split())
        if phrase_pattern(phrase) is None:
            raise forms.ValidationError("Give a word or phrase to filter.")
        return phrase
