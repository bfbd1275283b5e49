"""The methods each page answers, for the whole site at once, and form
bodies Django cannot read.

A view that declares its methods (Django's `require_http_methods` and its
`require_POST` / `require_safe` / `require_GET` forms) keeps them; every
other view is a page that only reads, and answers GET and HEAD. Anything
else is a 405 with an `Allow` header (after the CSRF check: a POST without
its token is a 403 everywhere), but a GET of a POST-only action redirects to
the page it belongs to (`page_of`); OPTIONS answers with that `Allow` header. A
form view declared for GET and POST answers HEAD as its GET without a body
(Django's decorator would refuse it). See
docs/architecture.md#reliability-and-security-habits.

A urlencoded body in another charset than UTF-8 is a 400 here, on the way
in, before any view hook (the CSRF check's included) reads `request.POST`:
Django refuses it too, but with DEBUG on its
error page reads `request.POST` again and turns the 400 into a 500.
"""

from collections.abc import Callable
from functools import cache

from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseBase,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.urls import Resolver404, resolve

READ_ONLY = frozenset({"GET", "HEAD"})
FORM = "application/x-www-form-urlencoded"


@cache
def declared_methods(view: Callable) -> frozenset[str] | None:
    """The methods a view's decorator lets through, or None for a view that
    declares none. Read from the decorator's closure, down the `__wrapped__`
    chain that `functools.wraps` leaves (login_required, moderator_required...)."""
    seen: Callable | None = view
    for _ in range(20):  # a wrapper chain is a few deep; never loop forever
        if seen is None:
            return None
        code = getattr(seen, "__code__", None)
        closure = getattr(seen, "__closure__", None)
        if code is not None and closure and "request_method_list" in code.co_freevars:
            cell = closure[code.co_freevars.index("request_method_list")]
            return frozenset(cell.cell_contents)
        seen = getattr(seen, "__wrapped__", None)
    return None


def allowed_methods(view: Callable) -> frozenset[str]:
    declared = declared_methods(view)
    if declared is None:
        return READ_ONLY
    if _head_as_get(declared):
        return declared | {"HEAD"}
    return declared


def _head_as_get(declared: frozenset[str] | None) -> bool:
    """A form page (GET and POST) whose GET only reads. A GET-only view that
    left HEAD out did so on purpose: an ad's GET bills, a HEAD must not."""
    return declared is not None and {"GET", "POST"} <= declared and "HEAD" not in declared


def page_of(path: str) -> str:
    """The nearest page above a POST-only path that answers GET: the post
    for `/posts/<id>/like/`, the person for `/u/<handle>/follow/`, else the
    home page (which sends a signed-in person to their feed)."""
    parts = [part for part in path.split("/") if part]
    while parts:
        parts.pop()
        candidate = "/" + "".join(f"{part}/" for part in parts)
        try:
            match = resolve(candidate)
        except Resolver404:
            continue
        if "GET" in allowed_methods(match.func):
            return candidate
    return "/"


def _allow(methods: frozenset[str]) -> str:
    return ", ".join(sorted(methods | {"OPTIONS"}))


class MethodMiddleware:
    """After CsrfViewMiddleware, whose view hook must refuse a POST without
    its token first; the charset is checked in `__call__`, which runs before
    every view hook."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if (
            request.method == "POST"
            and request.content_type == FORM
            and (request.encoding or "utf-8").lower() != "utf-8"
        ):
            return HttpResponseBadRequest(
                "A form must be sent as UTF-8.", content_type="text/plain; charset=utf-8"
            )
        response = self.get_response(request)
        if getattr(request, "head_as_get", False):
            request.method = "HEAD"  # for the request log above
            if not response.streaming:
                # The GET's length, without its body.
                response["Content-Length"] = str(len(response.content))
                response.content = b""
        return response

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., HttpResponseBase],
        view_args: tuple[object, ...],
        view_kwargs: dict[str, object],
    ) -> HttpResponse | None:
        allowed = allowed_methods(view_func)
        if request.method == "OPTIONS":
            response = HttpResponse(status=200)
            response["Allow"] = _allow(allowed)
            return response
        if request.method in READ_ONLY and "POST" in allowed and "GET" not in allowed:
            # A form's action opened in the address bar, reloaded, or reached
            # again after logging in: the page it belongs to, never a bare 405.
            return HttpResponseRedirect(page_of(request.path))
        if request.method not in allowed:
            return HttpResponseNotAllowed(sorted(allowed | {"OPTIONS"}))
        if request.method == "HEAD" and _head_as_get(declared_methods(view_func)):
            request.method = "GET"
            request.head_as_get = True
        return None
