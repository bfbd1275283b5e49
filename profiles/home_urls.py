"""The front page's route, outside the `profiles` namespace: it is "home"."""

from django.urls import path

from profiles.views.home import home

urlpatterns = [path("", home, name="home")]
