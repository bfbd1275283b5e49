from django.urls import path

from moderation import views

app_name = "moderation"

urlpatterns = [
    path("report/", views.report, name="report"),
    path("mod/", views.dashboard, name="dashboard"),
    path("mod/reports/", views.reports, name="reports"),
    path("mod/act/", views.act, name="act"),
    path("mod/bulk/", views.bulk, name="bulk"),
    path("mod/users/", views.users, name="users"),
    path("mod/users/<str:handle>/", views.user_detail, name="user"),
    path("mod/users/<str:handle>/suspend/", views.user_suspend, name="suspend"),
    path("mod/users/<str:handle>/unsuspend/", views.user_unsuspend, name="unsuspend"),
    path("mod/users/<str:handle>/role/", views.user_role, name="role"),
    path("mod/log/", views.log, name="log"),
    path("mod/tags/<str:tag>/hide/", views.tag_trend, {"action": "hide"}, name="tag_hide"),
    path("mod/tags/<str:tag>/show/", views.tag_trend, {"action": "show"}, name="tag_show"),
]
