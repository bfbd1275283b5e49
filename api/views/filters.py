"""Keyword filters (docs.joinmastodon.org/methods/filters, v2) over our
own (profiles/filters.py, docs/privacy.md#keyword-filters), written through
the settings page's services (docs/api.md#filters).

A filter of ours is one phrase: where it applies, whether it hides or
warns, and when it expires. So a Filter here has exactly one keyword,
matched as whole words, under the filter's own id, and is titled by it.
What our model cannot hold is refused with a 422 saying so, never dropped:
a title other than its keyword, no keyword or a second one, a keyword
matched inside words (`whole_word` false), a keyword removed from its
filter, filtered statuses, an action other than `warn` and `hide`.
"""

import json
import re
from datetime import timedelta

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse

from api import scopes as scope_names
from api.entities.filter import (
    CONTEXTS_IN,
    filter_entity,
    filter_keyword,
    filter_v1,
)
from api.http import OUT_OF_SCOPE, ApiError, api_view, rate_limited
from api.params import Params
from profiles.filters import KeywordFilter, stored_filters
from profiles.services import filters as filter_services

#: A filter's id as the settings page makes them (an ObjectId's hex).
FILTER_ID = re.compile(r"[0-9a-f]{24}")
WRITE_LIMIT = ("filters", "RATELIMIT_FILTERS")
#: The longest expiry asked for (Mastodon takes any; ten years is plenty).
EXPIRES_IN_MAX = 10 * 365 * 24 * 3600
ONE_KEYWORD = "A filter here is one keyword: send exactly one in keywords_attributes"
TITLE_IS_KEYWORD = "A filter here is named by its one keyword: send the same title and keyword"
WHOLE_WORDS = "Keywords here always match whole words: send whole_word=true"


def _filter_of(request: HttpRequest, filter_id: str) -> KeywordFilter:
    """One of the reader's filters (on their document, read with the
    token): anything else, another's included, is a 404."""
    if not FILTER_ID.fullmatch(filter_id or ""):
        raise Http404
    found = next((f for f in stored_filters(request.user.filters) if f.id == filter_id), None)
    if found is None:
        raise Http404
    return found


def _contexts(params: Params, *, required: bool) -> list[str] | None:
    asked = params.getlist("context")
    if not asked:
        if required:
            raise ApiError(422, "Validation failed: context can't be blank")
        return None
    unknown = [c for c in asked if c not in CONTEXTS_IN]
    if unknown:
        raise ApiError(422, f"Validation failed: unknown context {unknown[0][:40]!r}")
    return list(dict.fromkeys(CONTEXTS_IN[c] for c in asked))


def _action(params: Params, default: str | None) -> str | None:
    action = params.get("filter_action")
    if action is None or action == "":
        return default
    if action not in ("warn", "hide"):
        raise ApiError(422, "Validation failed: filter_action is warn or hide here")
    return action


def _expires_in(params: Params) -> timedelta | bool | None:
    """A timedelta, None for "never" (sent empty), False when not sent."""
    raw = params.get("expires_in")
    if raw is None:
        return False
    raw = raw.strip()
    if raw == "":
        return None
    if not raw.isascii() or not raw.isdigit() or not 0 < int(raw[:12]) <= EXPIRES_IN_MAX:
        raise ApiError(422, f"Validation failed: expires_in is 1 to {EXPIRES_IN_MAX} seconds")
    return timedelta(seconds=int(raw))


def keywords_attributes(request: HttpRequest, params: Params) -> list[dict[str, str]]:
    """`keywords_attributes` as sent: a JSON array of objects, or form
    fields `keywords_attributes[][keyword]` / `keywords_attributes[0][keyword]`."""
    if request.content_type == "application/json" and request.body.strip():
        data = json.loads(request.body)  # Params parsed it already
        sent = data.get("keywords_attributes") if isinstance(data, dict) else None
        items = list(sent.values()) if isinstance(sent, dict) else sent
        if items is None:
            return []
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise ApiError(422, "Validation failed: keywords_attributes is a list of objects")
        return [
            {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in i.items()}
            for i in items[:10]
        ]
    grouped: dict[str, dict[str, str]] = {}
    counts: dict[str, int] = {}
    for name in params.names():
        match = re.fullmatch(r"keywords_attributes\[(\d{0,3})\]\[(\w{1,20})\]", name)
        if not match:
            continue
        index, field = match.groups()
        for n, value in enumerate(params.getlist(name) if not index else [params.get(name)]):
            key = index or str(n)
            counts[field] = counts.get(field, 0) + 1
            grouped.setdefault(key, {})[field] = value or ""
    return [grouped[key] for key in sorted(grouped, key=int)][:10]


def _whole_word(item: dict[str, str]) -> None:
    if item.get("whole_word", "true").strip().lower() not in ("true", "1", "on", "t", "yes"):
        raise ApiError(422, WHOLE_WORDS)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _refused(exc: filter_services.FilterError) -> ApiError:
    return ApiError(422, f"Validation failed: {exc}")


def _need(request: HttpRequest, scope: str) -> None:
    """The scope of this method, for a route whose methods need different ones."""
    if not scope_names.covers(request.grant.scopes, scope):
        raise ApiError(403, OUT_OF_SCOPE)


def _answer(data: object, headers: dict[str, str], status: int = 200) -> JsonResponse:
    response = JsonResponse(data, safe=False, status=status)
    for name, value in headers.items():
        response[name] = value
    return response


def _write(request: HttpRequest) -> dict[str, str]:
    """A write's scope and its count against the settings page's limit."""
    _need(request, "write:filters")
    return rate_limited(request, *WRITE_LIMIT)


SCOPES = ("read:filters", "write:filters")


@api_view(["GET", "POST"], scope=SCOPES, user=True)
def filters(request: HttpRequest, params: Params) -> HttpResponse | list:
    """GET: the reader's filters, expired ones too (as the settings page
    lists them). POST: a filter of `title`, `context[]`, `filter_action`,
    `expires_in` and its one keyword in `keywords_attributes`."""
    if request.method == "GET":
        _need(request, "read:filters")
        return [filter_entity(f) for f in stored_filters(request.user.filters)]
    headers = _write(request)
    title = " ".join((params.get("title") or "").split())
    keywords = keywords_attributes(request, params)
    if len(keywords) != 1 or not (keywords[0].get("keyword") or "").strip():
        raise ApiError(422, ONE_KEYWORD)
    _whole_word(keywords[0])
    phrase = keywords[0]["keyword"]
    if title and not _same(title, phrase):
        raise ApiError(422, TITLE_IS_KEYWORD)
    expires_in = _expires_in(params)
    try:
        made = filter_services.keyword_filter_create(
            user=request.user,
            phrase=phrase,
            contexts=_contexts(params, required=True) or [],
            action=_action(params, "warn") or "warn",
            expires_in=expires_in if isinstance(expires_in, timedelta) else None,
        )
    except filter_services.FilterError as exc:
        raise _refused(exc) from exc
    return _answer(filter_entity(made), headers)


@api_view(["GET", "PUT", "DELETE"], scope=SCOPES, user=True)
def filter_detail(request: HttpRequest, params: Params, filter_id: str) -> HttpResponse | dict:
    """GET one filter; PUT changes what is sent (a keyword in
    `keywords_attributes` must carry the filter's id); DELETE removes it."""
    if request.method == "GET":
        _need(request, "read:filters")
        return filter_entity(_filter_of(request, filter_id))
    headers = _write(request)
    kept = _filter_of(request, filter_id)
    if request.method == "DELETE":
        filter_services.keyword_filter_delete(user=request.user, filter_id=kept.id)
        return _answer({}, headers)
    phrase = None
    for item in keywords_attributes(request, params):
        if item.get("id") != kept.id:
            raise ApiError(422, ONE_KEYWORD)
        if item.get("_destroy", "false").strip().lower() in ("true", "1"):
            raise ApiError(422, "A filter here cannot lose its one keyword: delete the filter")
        _whole_word(item)
        if "keyword" in item:
            phrase = item["keyword"]
    title = params.get("title")
    if title is not None and title.strip():
        if phrase is not None and not _same(title, phrase):
            raise ApiError(422, TITLE_IS_KEYWORD)
        phrase = phrase if phrase is not None else title
    return _answer(_update(request, kept, params, phrase), headers)


def _update(request: HttpRequest, kept: KeywordFilter, params: Params, phrase: str | None) -> dict:
    try:
        changed = filter_services.keyword_filter_update(
            user=request.user,
            filter_id=kept.id,
            phrase=phrase,
            contexts=_contexts(params, required=False),
            action=_action(params, None),
            expires_in=_expires_in(params),
        )
    except filter_services.FilterError as exc:
        raise _refused(exc) from exc
    return filter_entity(changed)


@api_view(["GET", "POST"], scope=SCOPES, user=True)
def filter_keywords(request: HttpRequest, params: Params, filter_id: str) -> HttpResponse | list:
    """GET: the filter's one keyword. POST: a second one, which our
    filters cannot hold (422)."""
    if request.method == "GET":
        _need(request, "read:filters")
        return [filter_keyword(_filter_of(request, filter_id))]
    _write(request)
    _filter_of(request, filter_id)
    raise ApiError(422, "A filter here holds exactly one keyword: create another filter")


@api_view(["GET", "PUT", "DELETE"], scope=SCOPES, user=True)
def keyword_detail(request: HttpRequest, params: Params, keyword_id: str) -> HttpResponse | dict:
    """A keyword's id is its filter's: GET it, PUT a new `keyword` (the
    filter's phrase), DELETE is refused (the filter would hold nothing)."""
    if request.method == "GET":
        _need(request, "read:filters")
        return filter_keyword(_filter_of(request, keyword_id))
    headers = _write(request)
    kept = _filter_of(request, keyword_id)
    if request.method == "DELETE":
        raise ApiError(422, "A filter here cannot lose its one keyword: delete the filter")
    _whole_word({"whole_word": params.get("whole_word") or "true"})
    phrase = params.get("keyword")
    changed = _update(request, kept, Params({}), phrase)
    return _answer(changed["keywords"][0], headers)


@api_view(["GET"], scope="read:filters", user=True)
def filter_statuses(request: HttpRequest, params: Params, filter_id: str) -> list:
    """Filtered statuses: our filters hold none (an empty list)."""
    _filter_of(request, filter_id)
    return []


@api_view(["GET"], scope="read:filters", user=True)
def filters_v1(request: HttpRequest, params: Params) -> list:
    """The v1 list, for older clients: each filter in the V1::Filter shape
    (`irreversible` for a hiding one). Written through v2 only."""
    return [filter_v1(f) for f in stored_filters(request.user.filters)]
