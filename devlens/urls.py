from django.urls import path

from devlens import views

app_name = "devlens"

urlpatterns = [
    path("dev/", views.switch, name="switch"),
    path("dev/compare/", views.compare, name="compare"),
    path("dev/mail/", views.mail_sent, name="mail"),
]
