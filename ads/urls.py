from django.urls import path

from ads.views import manage, public

app_name = "ads"

urlpatterns = [
    # Public: serving, views and clicks (ads/views/public.py).
    path("serve/", public.serve, name="serve"),
    path("click/<str:offer_id>/", public.click, name="click"),
    path("view/<str:offer_id>/", public.view, name="view"),
    # Management (ads/views/manage.py).
    path("manage/", manage.campaign_list, name="manage"),
    path("manage/campaigns/", manage.campaign_create, name="campaign_create"),
    path("manage/campaigns/new/", manage.campaign_new, name="campaign_new"),
    path("manage/campaigns/<str:campaign_id>/", manage.campaign_detail, name="campaign"),
    path("manage/campaigns/<str:campaign_id>/units/", manage.unit_add, name="unit_add"),
    path(
        "manage/campaigns/<str:campaign_id>/units/<str:ad_unit_id>/delete/",
        manage.unit_remove,
        name="unit_remove",
    ),
    path(
        "manage/campaigns/<str:campaign_id>/activate/",
        manage.campaign_activate,
        name="campaign_activate",
    ),
    path(
        "manage/campaigns/<str:campaign_id>/deactivate/",
        manage.campaign_deactivate,
        name="campaign_deactivate",
    ),
]
