from django.apps import AppConfig


class DevlensConfig(AppConfig):
    name = "devlens"
