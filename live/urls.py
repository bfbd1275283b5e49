from django.urls import path

from live import views

app_name = "live"

urlpatterns = [
    path("live/stream", views.stream, name="stream"),
    path("live/counts", views.counts, name="counts"),
]
