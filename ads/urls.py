from django.urls import path

from ads.views import manage, public

app_name = "ads"

urlpatterns = [
    # Public: serving, views and clicks (ads/views/public.py).
    # Management (ads/views/manage.py).
]
