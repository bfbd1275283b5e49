"""The front page's route, outside the `explore` namespace: it is "home"."""

from django.urls import path

from explore.views import home

urlpatterns = [path("", home, name="home")]
