from django.urls import path

from api.views import accounts, apps, instance, oauth, sessions

app_name = "api"

urlpatterns = [
    path("oauth/authorize", oauth.authorize, name="authorize"),
    path("oauth/token", oauth.token, name="token"),
    path("oauth/revoke", oauth.revoke, name="revoke"),
    path(".well-known/oauth-authorization-server", oauth.metadata, name="oauth_metadata"),
    path("settings/apps/<str:key>/revoke/", sessions.revoke, name="app_revoke"),
    path("api/v1/apps", apps.create, name="apps"),
    path("api/v1/apps/verify_credentials", apps.verify_credentials, name="apps_verify"),
    path("api/v1/instance", instance.instance, name="instance"),
    path("api/v2/instance", instance.instance_v2_view, name="instance_v2"),
    path("api/v1/custom_emojis", instance.custom_emojis, name="custom_emojis"),
    path("api/v1/announcements", instance.announcements, name="announcements"),
    path("api/v1/preferences", instance.preferences, name="preferences"),
    path(
        "api/v1/accounts/verify_credentials",
        accounts.verify_credentials,
        name="verify_credentials",
    ),
    path(
        "api/v1/accounts/update_credentials",
        accounts.update_credentials,
        name="update_credentials",
    ),
    path("api/v1/accounts/lookup", accounts.lookup, name="account_lookup"),
    path("api/v1/accounts/relationships", accounts.relationships, name="relationships"),
    path("api/v1/accounts/<str:handle>", accounts.detail, name="account"),
    path("api/v1/accounts/<str:handle>/followers", accounts.followers, name="followers"),
    path("api/v1/accounts/<str:handle>/following", accounts.following, name="following"),
    path("api/v1/accounts/<str:handle>/follow", accounts.follow, name="follow"),
    path("api/v1/accounts/<str:handle>/unfollow", accounts.unfollow, name="unfollow"),
    path("api/v1/accounts/<str:handle>/block", accounts.block, name="block"),
    path("api/v1/accounts/<str:handle>/unblock", accounts.unblock, name="unblock"),
    path("api/v1/accounts/<str:handle>/mute", accounts.mute, name="mute"),
    path("api/v1/accounts/<str:handle>/unmute", accounts.unmute, name="unmute"),
    path("api/v1/blocks", accounts.blocks, name="blocks"),
    path("api/v1/mutes", accounts.mutes, name="mutes"),
]
