from django.urls import path

from feeds.views import atom, bookmarks, interactions, pages, pins, posts

app_name = "feeds"

urlpatterns = [
    path("bookmarks/", bookmarks.bookmark_list, name="bookmarks"),
    path("posts/<str:post_id>/bookmark/", bookmarks.bookmark, name="bookmark"),
    path("posts/<str:post_id>/unbookmark/", bookmarks.unbookmark, name="unbookmark"),
    path("posts/<str:post_id>/pin/", pins.pin, name="pin"),
    path("posts/<str:post_id>/unpin/", pins.unpin, name="unpin"),
    path("posts/", posts.post_create, name="create"),
    path("posts/<str:post_id>/", pages.post_detail, name="post"),
    path("posts/<str:post_id>/edit/", posts.post_edit, name="edit"),
    path("posts/<str:post_id>/history/", pages.post_history, name="history"),
    path("posts/<str:post_id>/delete/", posts.post_delete, name="delete"),
    path("posts/<str:post_id>/vote/", posts.poll_vote, name="vote"),
    path("posts/<str:post_id>/like/", interactions.like, name="like"),
    path("posts/<str:post_id>/unlike/", interactions.unlike, name="unlike"),
    path("posts/<str:post_id>/repost/", interactions.repost, name="repost"),
    path("posts/<str:post_id>/unrepost/", interactions.unrepost, name="unrepost"),
    path("u/<str:handle>/feed.atom", atom.wall_feed, name="atom"),
    path("posts/<str:post_id>/photo/", pages.photo, {"size": "full"}, name="photo"),
    path("posts/<str:post_id>/thumb/", pages.photo, {"size": "thumb"}, name="thumb"),
]
