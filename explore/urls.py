from django.urls import path

from explore import views

app_name = "explore"

urlpatterns = [
    path("explore/", views.explore, name="explore"),
    path("tags/<str:tag>/", views.tag_page, name="tag"),
    path("tags/<str:tag>/follow/", views.tag_follow, name="tag_follow"),
    path("tags/<str:tag>/unfollow/", views.tag_unfollow, name="tag_unfollow"),
]
