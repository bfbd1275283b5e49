"""Every way in ends together (docs/api.md#revocation): a password change
or reset, a suspension, an erasure revoke every token; the sessions page
lists the apps and revokes one."""

import pytest
from mastodon import MastodonUnauthorizedError

from api.documents import OAuthToken
from moderation.services import user_suspend
from moderation.targets import Target
from profiles.services import password_change
from tests.api.conftest import logged_in
from tests.conftest import login_client


def test_a_password_change_revokes_every_token(ann, ann_api, app_api):
    password_change(user=ann, new_password="another horse battery")
    with pytest.raises(MastodonUnauthorizedError):
        ann_api.account_verify_credentials()
    # The app's own token names no one: it stays.
    assert app_api.app_verify_credentials().name == "Test App"


def test_the_password_page_revokes_them_too(ann, ann_web, ann_api):
    response = ann_web.post(
        "/settings/password/",
        {
            "old_password": "correct horse battery",
            "new_password1": "a brand new horse",
            "new_password2": "a brand new horse",
        },
    )
    assert response.status_code in (200, 302)
    assert OAuthToken.objects(user="ann").count() == 0


def test_a_suspension_revokes_every_token(ann_api, make_user):
    moderator = make_user("mod", role="moderator")
    user_suspend(moderator=moderator, target=Target("user", "ann"), reason="spam")
    assert OAuthToken.objects(user="ann").count() == 0
    with pytest.raises(MastodonUnauthorizedError):
        ann_api.account_verify_credentials()


def test_a_token_of_someone_no_longer_active_is_refused(ann_api):
    from profiles.documents import User

    User.objects(handle="ann").update_one(set__status="erasing")
    with pytest.raises(MastodonUnauthorizedError):
        ann_api.account_verify_credentials()


def test_erasure_revokes_every_token(ann, ann_api):
    from profiles.services.erasure import erasure_begin

    erasure_begin(user=ann)
    assert OAuthToken.objects(user="ann").count() == 0


def test_the_sessions_page_lists_apps_and_revokes_one(ann, ann_web, bob):
    first = logged_in(ann_web)
    logged_in(ann_web, scopes=["read"])
    page = ann_web.get("/settings/sessions/")
    text = page.content.decode()
    assert "Authorized apps" in text and text.count('class="session authorized-app"') == 2
    keys = [row["key"] for row in page.context["authorized_apps"]]
    bob_web = login_client(bob)
    assert bob_web.post(f"/settings/apps/{keys[0]}/revoke/").status_code == 404
    assert ann_web.post("/settings/apps/nosuchkey/revoke/").status_code == 404
    mine = OAuthToken.objects.get(key=keys[1])
    assert ann_web.post(f"/settings/apps/{keys[1]}/revoke/").status_code == 302
    assert OAuthToken.objects(key=mine.key).count() == 0
    assert OAuthToken.objects(user="ann").count() == 1
    if mine.scopes != ["read"]:
        with pytest.raises(MastodonUnauthorizedError):
            first.account_verify_credentials()


def test_the_revoke_button_needs_the_csrf_token(ann, ann_web):
    logged_in(ann_web)
    key = OAuthToken.objects.get().key
    ann_web.handler.enforce_csrf_checks = True
    assert ann_web.post(f"/settings/apps/{key}/revoke/").status_code == 403
    assert OAuthToken.objects.count() == 1
