"""Hostile input on the account forms (issue 9): display names that hide or
reorder text, and passwords too close to the handle or name (a 500 before)."""

import pytest
from django.core.exceptions import ValidationError

from profiles.documents import User
from profiles.names import clean_display_name
from tests.conftest import PASSWORD

SIGNUP = {
    "username": "margaret_h",
    "name": "Margaret Hamilton",
    "password1": "analytical engine 1843",
    "password2": "analytical engine 1843",
}

BAD_NAMES = {
    "zero-width space": "Ada\u200bLovelace",
    "zero-width joiner only": "\u200d",
    "word joiner": "Ada\u2060",
    "soft hyphen": "Ad\u00ada",
    "BOM": "\ufeffAda",
    "right-to-left override": "Ada\u202egnp.exe",
    "left-to-right embedding": "\u202aAda",
    "first-strong isolate": "Ada\u2068x\u2069",
    "right-to-left mark": "Ada\u200f",
    "control character": "Ada\x07",
    "NUL": "Ada\x00",
    "line separator": "Ada\u2028Lovelace",
    "paragraph separator": "Ada\u2029",
    "private use": "Ada\ue000",
    "unassigned": "Ada\U000e0080",
    "hangul filler": "\u3164",
    "hangul filler beside a name": "Ada\u3164",
    "punctuation only": "...",
    "symbols only": "★ ☆ ★",
    "emoji only": "\U0001f600",
}

GOOD_NAMES = {
    "plain": ("Ada Lovelace", "Ada Lovelace"),
    "accents": ("Zoë Ångström", "Zoë Ångström"),
    "decomposed accents are composed": ("Zoe\u0308", "Zoë"),
    "CJK": ("山田 太郎", "山田 太郎"),
    "Arabic": ("ليلى", "ليلى"),
    "digits": ("R2 D2", "R2 D2"),
    "emoji beside a letter": ("Ada \U0001f600", "Ada \U0001f600"),
    "spaces collapse": ("  Ada   Lovelace ", "Ada Lovelace"),
}


@pytest.mark.parametrize("value", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_unreadable_names_are_refused(value):
    with pytest.raises(ValidationError):
        clean_display_name(value)


@pytest.mark.parametrize("value, expected", GOOD_NAMES.values(), ids=GOOD_NAMES.keys())
def test_readable_names_are_kept(value, expected):
    assert clean_display_name(value) == expected


@pytest.mark.parametrize(
    "name", [BAD_NAMES["right-to-left override"], "\u200b\u200b", "---"], ids=str
)
def test_signup_refuses_unreadable_names(client, name):
    response = client.post("/accounts/signup/", {**SIGNUP, "name": name})
    assert response.status_code == 200
    assert "name" in response.context["form"].errors
    assert b"errorlist" in response.content
    assert User.objects.count() == 0


@pytest.mark.parametrize(
    "name", [BAD_NAMES["zero-width space"], BAD_NAMES["first-strong isolate"], "?!"], ids=str
)
def test_profile_edit_refuses_unreadable_names(make_user, login, name):
    client = login(make_user("ada", name="Ada"))
    response = client.post("/settings/profile/", {"name": name})
    assert response.status_code == 200
    assert "name" in response.context["form"].errors
    assert b"errorlist" in response.content
    assert User.objects.get(handle="ada").name == "Ada"


@pytest.mark.parametrize(
    "password, attribute",
    [
        ("margaret_h1", "handle"),
        ("Margaret Hamilton", "display name"),
        ("hamilton!", "display name"),
    ],
)
def test_signup_with_a_password_like_the_handle_or_name_rerenders(client, password, attribute):
    response = client.post(
        "/accounts/signup/", {**SIGNUP, "password1": password, "password2": password}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors["password1"]
    assert f"too similar to the {attribute}" in str(errors)
    assert b"errorlist" in response.content
    assert User.objects.count() == 0


@pytest.mark.parametrize(
    "password, attribute", [("margaret_h!", "handle"), ("MargaretHamilton", "display name")]
)
def test_password_change_to_one_like_the_handle_or_name_rerenders(
    make_user, login, password, attribute
):
    user = make_user("margaret_h", name="Margaret Hamilton")
    client = login(user)
    stored = User.objects.get(handle="margaret_h").password
    response = client.post(
        "/settings/password/",
        {"old_password": PASSWORD, "new_password1": password, "new_password2": password},
    )
    assert response.status_code == 200
    assert f"too similar to the {attribute}" in str(response.context["form"].errors)
    assert b"errorlist" in response.content
    assert User.objects.get(handle="margaret_h").password == stored
