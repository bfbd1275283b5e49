from django.urls import path

from federation import pages, views

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
    path("mod/domains/", pages.domains, name="domains"),
    path("mod/domains/<str:domain>/lift/", pages.domain_lift, name="domain_lift"),
    path("mod/domains/<str:domain>/retry/", pages.domain_retry, name="domain_retry"),
    path("settings/domains/block/", pages.domain_block, name="domain_block"),
    path("settings/domains/unblock/", pages.domain_unblock, name="domain_unblock"),
]
