from typing import Any

from django.core.management.base import BaseCommand

from moderation import services


class Command(BaseCommand):
    help = "Lift suspensions whose end date has passed (the worker loop runs the same by itself)."

    def handle(self, *args: Any, **options: Any) -> None:
        count = services.expire_suspensions()
        self.stdout.write(self.style.SUCCESS(f"{count} suspension(s) ended."))
