"""Hostile requests: drawn by hypothesis per batch (`slots`, `draw`), or
swept field by field with the values of each field's kind (`sweep`)."""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote

from django.urls import resolve
from hypothesis import strategies as st

from socialsite.methods import allowed_methods
from tests.hostile.routes import STATIC_VALUES, Route
from tests.hostile.values import KEY_SHAPES, KIND_SAMPLES, OPERATOR_KEYS, Raw, encode, value_for
from tests.hostile.world import World

CONVERTER = re.compile(r"<(?:(?P<kind>[^>:]+):)?(?P<name>[^>]+)>")


@dataclass
class Probe:
    route: str
    role: str
    method: str
    path: str
    query: list[tuple[str, str]]
    form: list[tuple[str, str]]
    multipart: bool
    headers: dict[str, str] = field(default_factory=dict)  # WSGI names: HTTP_COOKIE
    body: bytes | None = None  # sent as it is, with `content_type`, instead of `form`
    content_type: str = ""

    def describe(self, limit: int = 160) -> str:
        def short(pairs):
            return [(k[:40], _clip(v, limit)) for k, v in pairs]

        body = (
            f" {'multipart' if self.multipart else 'form'}={short(self.form)}" if self.form else ""
        )
        headers = f" headers={short(self.headers.items())}" if self.headers else ""
        return (
            f"{self.method} {_clip(self.path, limit)} as {self.role}"
            f" query={short(self.query)}{body}{headers}"
        )


def _clip(value: str, limit: int) -> str:
    text = repr(value) if not isinstance(value, Raw) else f"Raw({str(value)!r})"
    return text if len(text) <= limit else f"{text[: limit - 20]}…<{len(value)} chars>"


def _valid(kind: str, world: World) -> list[str]:
    return world.values.get(kind) or STATIC_VALUES.get(kind, [])


def _pairs(data, params: dict[str, str], hostile: set, world: World) -> list[tuple[str, str]]:
    """The parameters as sent: those in `hostile` get hostile values and key
    shapes, the others a valid value or nothing."""
    pairs: list[tuple[str, str]] = []
    for name, kind in params.items():
        valid = _valid(kind, world)
        if name not in hostile and valid:
            if data.draw(st.sampled_from((True, True, True, False))):
                pairs.append((name, data.draw(st.sampled_from(valid))))
            continue
        shape = data.draw(st.sampled_from(KEY_SHAPES))
        value = value_for(valid, kind)
        if shape == "once":
            pairs.append((name, data.draw(value)))
        elif shape == "repeated":
            pairs += [(name, v) for v in data.draw(st.lists(value, min_size=2, max_size=4))]
        elif shape == "operator":
            key = data.draw(st.sampled_from(OPERATOR_KEYS)).format(name=name)
            pairs.append((key, data.draw(value)))
    return pairs


def valid_path(key: str, route: Route, world: World) -> str:
    """The route's path with the first valid value of each parameter."""

    def fill(match: re.Match) -> str:
        return encode(_valid(route.path[match.group("name")], world)[0], safe="/")

    return "/" + CONVERTER.sub(fill, key)


def own_method(route: Route) -> str:
    return route.method or ("POST" if route.form else "GET")


#: The client API's routes (docs/api.md): a method they do not take is a JSON
#: 405 naming the ones they do, a GET of a POST-only one included (an app
#: is told, not redirected to a page).
API_ROUTES = ("api/", "oauth/", ".well-known/")


def is_api(key: str) -> bool:
    return key.startswith(API_ROUTES)


def methods_taken(key: str, route: Route, world: World) -> frozenset[str]:
    view = resolve(unquote(valid_path(key, route, world))).func
    return allowed_methods(view)


def answers_get(key: str, route: Route, world: World) -> bool:
    """Whether the route's view takes GET too: a form page (the inbox, a
    conversation) whose GET reads the query its POST only reads on a refusal."""
    view = resolve(unquote(valid_path(key, route, world))).func
    return "GET" in allowed_methods(view)


@dataclass(frozen=True)
class Slot:
    """Who sends a batch of probes, how, and whether the path is valid."""

    role: str
    method: str
    path: str  # "valid": from the world; "hostile": mostly hostile values
    examples: int


def slots(route: Route) -> list[Slot]:
    """The batches for one route, about a dozen requests in all.

    Each role that reaches different code gets its own batch with the route's
    own method, so that no role is left to chance; the other method and
    hostile path parameters get a smaller one.
    """
    primary = own_method(route)
    other = "GET" if primary == "POST" else "POST"
    if route.staff:
        batches = [Slot("mod", primary, "valid", 4), Slot("admin", primary, "valid", 3)]
        batches += [Slot("bob", primary, "valid", 1), Slot("anon", primary, "valid", 1)]
        batches.append(Slot("mod", other, "valid", 1))
    else:
        batches = [Slot("alice", primary, "valid", 4), Slot("bob", primary, "valid", 3)]
        batches += [Slot("anon", primary, "valid", 2), Slot("cyd", primary, "valid", 2)]
        batches.append(Slot("alice", other, "valid", 1))
    if route.path:
        batches.append(Slot("mod" if route.staff else "alice", primary, "hostile", 3))
    return batches


def draw(data, key: str, route: Route, slot: Slot, world: World) -> Probe:
    def fill(match: re.Match) -> str:
        kind, name = match.group("kind"), match.group("name")
        kind_of = route.path[name]
        valid = _valid(kind_of, world)
        strategy = st.sampled_from(valid) if slot.path == "valid" else value_for(valid, kind_of)
        return encode(data.draw(strategy), safe="/" if kind == "path" else "")

    path = "/" + CONVERTER.sub(fill, key)
    form_fields = route.form if slot.method == "POST" else {}
    names = sorted(set(route.query) | set(form_fields))
    # Mostly one field hostile and the rest valid, so that the hostile value
    # gets past the other fields' checks to its own; else every field or none
    # (a hostile path, or a valid request that reaches the page itself).
    mode = data.draw(st.sampled_from(("one", "one", "all", "none"))) if names else "none"
    hostile = {data.draw(st.sampled_from(names))} if mode == "one" else set()
    if mode == "all":
        hostile = set(names)
    query = _pairs(data, route.query, hostile, world)
    form = _pairs(data, form_fields, hostile, world)
    multipart = slot.method == "POST" and data.draw(st.booleans())
    return Probe(key, slot.role, slot.method, path, query, form, multipart)


# Optional fields the sweep leaves out of its valid base: two page cursors
# at once are refused whatever they hold (a conversation reads `after` only
# without `before`), and `next` only redirects.
OPTIONAL_KINDS = {"timeline_cursor", "comment_cursor", "inbox_cursor", "message_cursor", "next"}
EVERY_FIELD = [Raw("%ff%fe"), "9" * 30]


def sweep(key: str, route: Route, world: World) -> Iterator[tuple[str, Probe]]:
    """Every path parameter, query parameter and form field of the route in
    turn, with each hostile value of its kind and the other fields valid, as
    (field, probe). Deterministic: the cross-check that hypothesis's random
    draws cannot miss a field."""
    role = route.sweep_role or ("admin" if route.staff else "alice")
    method = own_method(route)
    fields = {**route.query, **(route.form if method == "POST" else {})}
    path_values = {name: _valid(kind, world)[0] for name, kind in route.path.items()}
    base = {
        name: _valid(kind, world)[0]
        for name, kind in fields.items()
        if kind not in OPTIONAL_KINDS and _valid(kind, world)
    }

    def build(path_values: dict, values: dict, method: str = method) -> Probe:
        def fill(match: re.Match) -> str:
            safe = "/" if match.group("kind") == "path" else ""
            return encode(path_values[match.group("name")], safe=safe)

        in_form = route.form if method == "POST" else {}
        query = [(n, v) for n, v in values.items() if n in route.query and n not in in_form]
        form = [(n, v) for n, v in values.items() if n in in_form]
        multipart = "photo" in in_form
        return Probe(key, role, method, "/" + CONVERTER.sub(fill, key), query, form, multipart)

    for name, kind in route.path.items():
        # Every valid value too: the edit form of a poll is not a status's.
        for value in _valid(kind, world)[1:] + KIND_SAMPLES.get(kind, []) + EVERY_FIELD:
            yield name, build({**path_values, name: value}, base)
    for name, kind in fields.items():
        for value in KIND_SAMPLES.get(kind, []) + EVERY_FIELD:
            values = {**base, **route.together.get(name, {}), name: value}
            if name in route.mirrors:
                values[route.mirrors[name]] = value
            yield name, build(path_values, values)
    if method == "POST" and route.query and answers_get(key, route, world):
        # A form page's query is read on its GET: the page cursors, above all.
        for name, kind in route.query.items():
            for value in KIND_SAMPLES.get(kind, []) + EVERY_FIELD:
                yield name, build(path_values, {**base, name: value}, "GET")
