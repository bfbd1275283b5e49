"""JSON, never an HTML page, for every answer under /api/ (docs/api.md#errors).

An API view answers its own errors (api/http.py). What happens before or
around it does not know it is an API: an unknown /api/ URL (the 404 page),
a method the view does not take (socialsite/methods.py would redirect a
GET of a POST-only action to its page), an error inside the view (the 500
page). This middleware, placed before MethodMiddleware, answers those in
JSON for /api/ paths; pages keep theirs. It also reads an API path with
a trailing slash as the same path without one, as Mastodon does.
"""

import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponseBase, JsonResponse
from pymongo.errors import PyMongoError

from api.http import API_METHODS, error

log = logging.getLogger("socialsite.api")

API_PREFIX = "/api/"

MESSAGES = {
    400: "Bad request",
    401: "The access token is invalid",
    403: "This action is not allowed",
    404: "Record not found",
    405: "Method not allowed",
    413: "Request too large",
    422: "Validation failed",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}


class ApiMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path_info.startswith(API_PREFIX) and request.path_info.endswith("/"):
            # Mastodon answers `/api/v1/instance/` as `/api/v1/instance`, and
            # clients ask it so (Mastodon.py's version check does).
            request.path_info = request.path_info.rstrip("/")
            request.path = request.path.rstrip("/")
        response = self.get_response(request)
        if (
            request.path.startswith(API_PREFIX)
            and response.status_code >= 400
            and not isinstance(response, JsonResponse)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            status = response.status_code
            replaced = error(status, MESSAGES.get(status, "Error"))
            for header in ("Allow", "Retry-After"):
                if header in response:
                    replaced[header] = response[header]
            return replaced
        return response

    def process_view(
        self,
        request: HttpRequest,
        view: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> HttpResponseBase | None:
        allowed = getattr(view, API_METHODS, None)
        if allowed is None or request.method == "OPTIONS":
            return None
        if request.method in allowed or (request.method == "HEAD" and "GET" in allowed):
            return None
        response = error(405, MESSAGES[405])
        response["Allow"] = ", ".join(sorted(allowed | {"OPTIONS"}))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> JsonResponse | None:
        if not request.path.startswith(API_PREFIX):
            return None
        if isinstance(exception, PyMongoError) and exception.timeout:
            # The page deadline ran out (socialsite/middleware.py): a JSON 503.
            response = error(503, MESSAGES[503])
            response["Retry-After"] = "5"
            return response
        log.exception("API error", extra={"path": request.path[:500]})
        return error(500, MESSAGES[500])
