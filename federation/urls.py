from django.urls import path

from federation import views

app_name = "federation"

urlpatterns = [
    path(".well-known/webfinger", views.webfinger, name="webfinger"),
    path(".well-known/host-meta", views.host_meta, name="host_meta"),
    path(".well-known/nodeinfo", views.nodeinfo_links, name="nodeinfo_links"),
    path("nodeinfo/2.0", views.nodeinfo, name="nodeinfo"),
    path("actor", views.instance_actor, name="instance_actor"),
    path("inbox", views.shared_inbox, name="shared_inbox"),
    path("u/<str:handle>/inbox", views.person_inbox, name="inbox"),
    path("u/<str:handle>/outbox", views.outbox, name="outbox"),
]
