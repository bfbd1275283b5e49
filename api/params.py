"""Parameters of an API request, wherever the client put them (docs/api.md#parameters).

Mastodon clients send the query string, a form body (urlencoded or
multipart) and a JSON body alike; arrays as `id[]=a&id[]=b`, nested values
as `poll[options][]=...`. A JSON body is flattened to those same names, so
a view reads one way whatever came. Only strings come out: a JSON object
where a value belongs (`{"acct": {"$gt": ""}}`) has no name the view reads
(`acct[$gt]`), so it is simply absent, never an operator.
"""

import json
from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, QueryDict
from django.http.multipartparser import MultiPartParserError

TRUE = frozenset({"1", "true", "on", "yes", "t"})
FALSE = frozenset({"0", "false", "off", "no", "f", ""})


class BadParams(ValueError):
    """The body could not be read (malformed JSON or form): a 400."""


class Params:
    def __init__(self, values: dict[str, list[str]]) -> None:
        self._values = values

    @classmethod
    def of(cls, request: HttpRequest) -> "Params":
        values: dict[str, list[str]] = {}
        _merge(values, request.GET.lists())
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            if request.content_type == "application/json":
                _merge(values, _flatten_json(request.body))
            elif request.content_type in (
                "application/x-www-form-urlencoded",
                "multipart/form-data",
            ):
                _merge(values, _form(request).lists())
        return cls(values)

    def get(self, name: str) -> str | None:
        """The last value sent under `name`, or None."""
        found = self._values.get(name)
        return found[-1] if found else None

    def getlist(self, name: str) -> list[str]:
        """Every value of an array: `name[]` (Mastodon's form) or repeated `name`."""
        return [*self._values.get(f"{name}[]", []), *self._values.get(name, [])]

    def boolean(self, name: str, default: bool = False) -> bool:
        value = self.get(name)
        if value is None:
            return default
        if value.strip().lower() in TRUE:
            return True
        if value.strip().lower() in FALSE:
            return False
        return default

    def names(self) -> list[str]:
        return list(self._values)


def _merge(values: dict[str, list[str]], pairs: Any) -> None:
    for name, items in pairs:
        values.setdefault(name, []).extend(str(item) for item in items)


def _form(request: HttpRequest) -> QueryDict:
    """The form body, for PATCH and PUT too (Django reads it for POST only)."""
    if request.method == "POST":
        try:
            return request.POST
        except MultiPartParserError as exc:
            raise BadParams("The form body could not be read.") from exc
    method = request.method
    try:
        request.method = "POST"
        request._load_post_and_files()
        return request.POST
    except MultiPartParserError as exc:
        raise BadParams("The form body could not be read.") from exc
    finally:
        request.method = method


def _flatten_json(body: bytes) -> Iterator[tuple[str, list[str]]]:
    if not body.strip():
        return
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadParams("The JSON body could not be parsed.") from exc
    if not isinstance(data, dict):
        raise BadParams("The JSON body must be an object.")
    yield from _flatten(data, "", depth=0)


def _flatten(value: Any, name: str, depth: int) -> Iterator[tuple[str, list[str]]]:
    if depth > 5:  # nothing Mastodon takes nests deeper
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{name}[{key}]" if name else str(key), depth + 1)
    elif isinstance(value, list):
        scalars = [_scalar(item) for item in value if not isinstance(item, dict | list)]
        yield f"{name}[]", [item for item in scalars if item is not None]
    else:
        scalar = _scalar(value)
        if scalar is not None:
            yield name, [scalar]


def _scalar(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
