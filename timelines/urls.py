from django.urls import path

from timelines import views

app_name = "timelines"

urlpatterns = [
    path("feed/", views.feed, name="feed"),
    path("feed/new/", views.new_posts, name="new_posts"),
    path("incoming/", views.incoming, name="incoming"),
]
