from django.urls import path

from feeds.views import atom
from feeds.views import likes as like_views
from feeds.views import pages as views
from feeds.views import reposts as repost_views

app_name = "feeds"

urlpatterns = [
    path("feed/", views.feed, name="feed"),
    path("feed/new/", views.new_posts, name="new_posts"),
    path("incoming/", views.incoming, name="incoming"),
    path("posts/", views.post_create, name="create"),
    path("posts/<str:post_id>/", views.post_detail, name="post"),
    path("posts/<str:post_id>/edit/", views.post_edit, name="edit"),
    path("posts/<str:post_id>/delete/", views.post_delete, name="delete"),
    path("posts/<str:post_id>/vote/", views.poll_vote, name="vote"),
    path("posts/<str:post_id>/like/", like_views.like, name="like"),
    path("posts/<str:post_id>/unlike/", like_views.unlike, name="unlike"),
    path("posts/<str:post_id>/repost/", repost_views.repost, name="repost"),
    path("posts/<str:post_id>/unrepost/", repost_views.unrepost, name="unrepost"),
    path("u/<str:handle>/feed.atom", atom.wall_feed, name="atom"),
    path("posts/<str:post_id>/photo/", views.photo, {"size": "full"}, name="photo"),
    path("posts/<str:post_id>/thumb/", views.photo, {"size": "thumb"}, name="thumb"),
]
