from django.urls import include, path

from socialsite import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("", include("profiles.urls")),
    path("", include("feeds.urls")),
    path("", include("comments.urls")),
    path("", include("moderation.urls")),
    path("", include("notifications.urls")),
    path("ads/", include("ads.urls")),
]

handler404 = "socialsite.views.not_found"
handler403 = "socialsite.views.forbidden"
handler400 = "socialsite.views.bad_request"
handler500 = "socialsite.views.server_error"
