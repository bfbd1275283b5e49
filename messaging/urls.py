from django.urls import path

from messaging import views

app_name = "messaging"

urlpatterns = [
    path("messages/", views.inbox, name="inbox"),
    path("messages/<str:conversation_id>/", views.conversation, name="conversation"),
    path("messages/<str:conversation_id>/newer/", views.newer, name="newer"),
    path("messages/<str:conversation_id>/leave/", views.leave, name="leave"),
]
