from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.tasks import task_backends
from django.views.decorators.cache import never_cache

from socialsite import durable, indexes, mongo, periodic


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 while the database answers, 503 when it does not. `indexes` says
    "ok" or which declared indexes are missing or differ (at most a minute
    old): the site still serves then, so the status stays 200
    (docs/operations.md#indexes). With the "thread" task backend,
    `tasks_pending` is its backlog: the tasks queued in this process and not
    run yet (docs/operations.md#background-work); `tasks` is the backlog
    in the database, per task kind, whichever the backend."""
    if not mongo.ping():
        return JsonResponse({"status": "error", "db": "unreachable"}, status=503)
    body: dict[str, object] = {"status": "ok", "db": "ok", "indexes": indexes.health()}
    pending = getattr(task_backends["default"], "pending", None)
    if pending is not None:
        body["tasks_pending"] = pending
    # Each sweeper's last run (seconds ago) and error: one that stopped
    # running, or keeps failing, shows here (docs/operations.md#sweepers-run-by-themselves).
    body["sweeps"] = periodic.health()
    # Per durable task kind: marks pending, marks failed, the oldest pending
    # mark's age in seconds (docs/operations.md#durable-background-work).
    body["tasks"] = durable.health()
    return JsonResponse(body)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/error.html", {"code": 404, "title": "Not found"}, status=404)


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/error.html", {"code": 403, "title": "Forbidden"}, status=403)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/error.html", {"code": 400, "title": "Bad request"}, status=400)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "errors/error.html", {"code": 500, "title": "Server error"}, status=500)
