from typing import Any

from django.http import HttpRequest

from socialsite import mongo


def site(request: HttpRequest) -> dict[str, Any]:
    return {
        "user": getattr(request, "user", None),
        "demo_mode": mongo.is_demo(),
    }
