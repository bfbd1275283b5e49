from django.conf import settings
from django.urls import include, path

from socialsite import views

urlpatterns = [
    path("", include("explore.home_urls")),
    path("healthz", views.healthz, name="healthz"),
    path("", include("profiles.urls")),
    path("", include("feeds.urls")),
    path("", include("timelines.urls")),
    path("", include("explore.urls")),
    path("", include("comments.urls")),
    path("", include("messaging.urls")),
    path("", include("moderation.urls")),
    path("", include("notifications.urls")),
    path("ads/", include("ads.urls")),
    path("", include("devlens.urls")),
    path("", include("live.urls")),
    path("", include("api.urls")),
    path("", include("federation.urls")),
]

if settings.DEBUG_TOOLBAR:  # DEBUG only, never under tests (settings.py)
    from debug_toolbar.toolbar import debug_toolbar_urls

    urlpatterns += debug_toolbar_urls()

handler404 = "socialsite.views.not_found"
handler403 = "socialsite.views.forbidden"
handler400 = "socialsite.views.bad_request"
handler500 = "socialsite.views.server_error"
