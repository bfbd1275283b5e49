"""The front page's route, outside the `feeds` namespace: it is "home"."""

from django.urls import path

from feeds.views.discovery import home

urlpatterns = [path("", home, name="home")]
