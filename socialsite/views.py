from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from socialsite import mongo


@never_cache
def healthz(request):
    ok = mongo.ping()
    return JsonResponse(
        {"status": "ok" if ok else "error", "db": "ok" if ok else "unreachable"},
        status=200 if ok else 503,
    )


def not_found(request, exception=None):
    return render(request, "errors/error.html", {"code": 404, "title": "Not found"}, status=404)


def forbidden(request, exception=None):
    return render(request, "errors/error.html", {"code": 403, "title": "Forbidden"}, status=403)


def bad_request(request, exception=None):
    return render(request, "errors/error.html", {"code": 400, "title": "Bad request"}, status=400)


def server_error(request):
    return render(request, "errors/error.html", {"code": 500, "title": "Server error"}, status=500)
