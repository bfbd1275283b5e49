from django.urls import path

from comments import views

app_name = "comments"

urlpatterns = [
    path("posts/<str:post_id>/comments/", views.comment_create, name="create"),
    path("posts/<str:post_id>/c/<path:slug>/", views.permalink, name="permalink"),
    path("posts/<str:post_id>/comments/<path:slug>/edit/", views.comment_edit, name="edit"),
    path("posts/<str:post_id>/comments/<path:slug>/delete/", views.comment_delete, name="delete"),
    path("posts/<str:post_id>/comments/<path:slug>/vote/", views.comment_vote, name="vote"),
]
