from django.urls import path

from profiles.views import (
    accounts,
    data,
    filters,
    people,
    recovery,
    sessions,
    settings_index,
    twofactor,
)

app_name = "profiles"

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.login, name="login"),
    path("accounts/login/2fa/", twofactor.login_2fa, name="login_2fa"),
    path("accounts/logout/", accounts.logout, name="logout"),
    path("settings/", settings_index.settings_index, name="settings"),
    path("settings/profile/", people.profile_edit, name="profile_edit"),
    path("settings/password/", accounts.password_change, name="password_change"),
    path("settings/email/", recovery.email, name="email"),
    path("settings/2fa/", twofactor.settings_2fa, name="settings_2fa"),
    path("settings/sessions/", sessions.session_list, name="sessions"),
    path("settings/sessions/<str:session_id>/end/", sessions.session_end, name="session_end"),
    path("settings/export/", data.export, name="export"),
    path(
        "settings/export/<str:export_id>/download/", data.export_download, name="export_download"
    ),
    path("settings/delete/", data.delete, name="delete"),
    path("settings/filters/", filters.filter_list, name="filters"),
    path("settings/filters/<str:filter_id>/delete/", filters.filter_delete, name="filter_delete"),
    path("accounts/verify/<str:token>/", recovery.email_verify, name="email_verify"),
    path("accounts/email/undo/<str:token>/", recovery.email_undo, name="email_undo"),
    path("accounts/password/reset/", recovery.password_reset, name="password_reset"),
    # Before the token route: "sent" is never a token (they hold a ":").
    path(
        "accounts/password/reset/sent/",
        recovery.password_reset_sent,
        name="password_reset_sent",
    ),
    path(
        "accounts/password/reset/<str:token>/",
        recovery.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path("circles/", people.circles, name="circles"),
    path("search/", people.search, name="search"),
    path("u/<str:handle>/", people.profile, name="profile"),
    path("u/<str:handle>/followers/", people.followers, name="followers"),
    path("u/<str:handle>/following/", people.following, name="following"),
    path("u/<str:handle>/follow/", people.follow, name="follow"),
    path("u/<str:handle>/unfollow/", people.unfollow, name="unfollow"),
    path("u/<str:handle>/block/", people.block, name="block"),
    path("u/<str:handle>/unblock/", people.unblock, name="unblock"),
    path("u/<str:handle>/mute/", people.mute, name="mute"),
    path("u/<str:handle>/unmute/", people.unmute, name="unmute"),
    path("u/<str:handle>/circles/", people.set_circles, name="set_circles"),
]
