"""One page of the site rendered under each model, measured, and checked
against the system of record (docs/developer-lens.md).

The page is rendered in-process, by calling its view with a copy of the
admin's request (same user, same session, no HTTP), inside `override(...)`
and `roundtrips.count()`. Each variant is rendered twice and the second
rendering is measured: the first pays the one-off costs (templates compiled,
a store's module imported, anything a model builds on its first read), so
that the model measured first is not the one that looks slowest. Only pages
that read timelines or threads and write nothing on GET can be compared
(`COMPARABLE`); the rest are refused.
"""

import copy
import time
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, QueryDict
from django.urls import Resolver404, ResolverMatch, resolve
from django.utils.datastructures import MultiValueDict

from devlens import selectors
from socialsite import active, roundtrips
from socialsite.active import COMMENT_STORES, TIMELINE_MODELS, Choice

# The GET pages whose content comes from a timeline model or a comment store.
COMPARABLE = {
    "timelines:feed": "news feed",
    "timelines:incoming": "incoming page",
    "profiles:profile": "wall",
    "feeds:post": "post page",
    "comments:permalink": "comment permalink",
}
# Pages with a thread: compared under every comment store too.
THREADED = {"feeds:post", "comments:permalink"}
MAX_PATH = 2000


class BadPath(ValueError):
    """Not a site-relative path of a page that can be compared (a 400)."""


@dataclass(frozen=True)
class Target:
    path: str  # decoded, as the resolver saw it
    query: str
    view_name: str
    match: ResolverMatch = field(compare=False, repr=False)

    @property
    def label(self) -> str:
        return COMPARABLE[self.view_name]

    @property
    def threaded(self) -> bool:
        return self.view_name in THREADED

    @property
    def full_path(self) -> str:
        return f"{self.path}?{self.query}" if self.query else self.path


def parse_target(raw: object) -> Target:
    """A site-relative path of a comparable page, or BadPath.

    Refused: anything but a path starting with one "/" (absolute URLs,
    scheme-relative `//host`), backslashes, control characters and spaces,
    `.` and `..` segments (also percent-encoded), /dev/ itself, paths that
    resolve to no page, and pages the models do not change."""
    if not isinstance(raw, str) or not raw:
        raise BadPath("Give a path of this site, such as /feed/.")
    if len(raw) > MAX_PATH:
        raise BadPath("That path is too long.")
    if any(ord(c) < 33 or ord(c) == 127 or c == "\\" for c in raw):
        raise BadPath("A path has no spaces, control characters or backslashes.")
    if not raw.startswith("/") or raw.startswith("//"):
        raise BadPath("Only a path of this site, starting with a single /, can be compared.")
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc or parts.fragment:
        raise BadPath("Only a path of this site can be compared.")
    try:
        path = unquote(parts.path, errors="strict") if "%" in parts.path else parts.path
    except UnicodeDecodeError as exc:  # "%ff": no page's path decodes to that
        raise BadPath("That path has percent-escapes that are not UTF-8.") from exc
    if any(ord(c) < 33 or ord(c) == 127 or c == "\\" for c in path) or "//" in path:
        raise BadPath("That path hides characters a page path does not have.")
    if any(segment in (".", "..") for segment in path.split("/")):
        raise BadPath("A path with . or .. segments is not a page of this site.")
    if path.startswith("/dev/") or path == "/dev":
        raise BadPath("The lens cannot compare its own pages.")
    try:
        match = resolve(path)
    except Resolver404 as exc:
        raise BadPath(f"{path} is not a page of this site.") from exc
    if match.view_name not in COMPARABLE:
        raise BadPath(
            f"{path} does not read timelines or comments: compare a feed, a wall, "
            "the incoming page, a post or a comment permalink."
        )
    return Target(path, parts.query, match.view_name, match)


class _Ids(HTMLParser):
    """The posts (`article.post[data-post-id]`) and comments
    (`article.comment[data-slug]`) of a page, in order (docs/features.md#routes)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.posts: list[str] = []
        self.comments: list[str] = []
        # Posts a news page merged from pulled authors (`data-pulled`,
        # docs/performance.md#celebrities-are-pulled), not read from the stored timeline.
        self.pulled = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "article":
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        post_id, slug = values.get("data-post-id"), values.get("data-slug")
        if "post" in classes and post_id:
            self.posts.append(post_id)
            self.pulled += "data-pulled" in values
        if "comment" in classes and slug is not None:
            self.comments.append(slug)


@dataclass
class Measure:
    """One rendering: what it cost and what it showed."""

    choice: Choice
    status: int
    round_trips: int
    docs: int
    db_ms: float
    ms: float
    html_bytes: int
    db_bytes: int | None
    posts: list[str]
    comments: list[str]
    maintained: bool
    pulled: int = 0  # of `posts`, those merged from pulled authors' posts
    parity: str = "ok"
    difference: str = ""


def _sub_request(request: HttpRequest, target: Target) -> HttpRequest:
    """The admin's request, seen as a plain GET of the target: same user and
    session, none of the compare page's own query, and no pending messages
    (the rendering must not consume what the admin has yet to read)."""
    sub = copy.copy(request)
    sub.method = "GET"
    sub.path = sub.path_info = target.path
    sub.META = {
        **request.META,
        "REQUEST_METHOD": "GET",
        "PATH_INFO": target.path,
        "QUERY_STRING": target.query,
    }
    sub.GET = QueryDict(target.query)
    sub._post, sub._files = QueryDict(), MultiValueDict()
    sub.resolver_match = target.match
    sub.__dict__.pop("_messages", None)
    return sub


def _render(request: HttpRequest, target: Target) -> tuple[int, bytes]:
    match = target.match
    try:
        response = match.func(_sub_request(request, target), *match.args, **match.kwargs)
    except Http404:
        return 404, b""
    except PermissionDenied:
        return 403, b""
    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
        response.render()
    body = response.content if not getattr(response, "streaming", False) else b""
    return response.status_code, body


def measure(request: HttpRequest, target: Target, choice: Choice, maintained: bool) -> Measure:
    with active.override(**choice.__dict__):
        _render(request, target)  # warm-up: see the module docstring
        started = time.perf_counter()
        with roundtrips.count() as trips:
            status, body = _render(request, target)
        ms = (time.perf_counter() - started) * 1000
    details = getattr(trips, "details", None)
    ids = _Ids()
    ids.feed(body.decode("utf-8", errors="replace"))
    return Measure(
        choice=choice,
        status=status,
        round_trips=trips.total,
        docs=int(getattr(trips, "docs", 0)),
        db_ms=float(getattr(trips, "ms", 0.0)),
        ms=ms,
        html_bytes=len(body),
        db_bytes=sum(getattr(d, "bytes", 0) or 0 for d in details) if details else None,
        posts=ids.posts,
        comments=ids.comments,
        maintained=maintained,
        pulled=ids.pulled,
    )


def _check(rows: list[Measure], reference: Measure) -> None:
    for row in rows:
        differences = []
        if row.status != reference.status:
            differences.append(f"status {row.status}, not {reference.status}")
        for what, mine, theirs in (
            ("posts", row.posts, reference.posts),
            ("comments", row.comments, reference.comments),
        ):
            if mine == theirs:
                continue
            missing = len([i for i in theirs if i not in mine])
            extra = len([i for i in mine if i not in theirs])
            if missing or extra:
                differences.append(f"{what}: {missing} missing, {extra} extra")
            else:
                differences.append(f"{what} in another order")
        row.parity = "differs" if differences else "ok"
        row.difference = "; ".join(differences)


@dataclass
class Comparison:
    target: Target
    models: list[Measure]  # one per timeline model, at this session's embed setting
    embed_variants: list[Measure]  # the stored models with the other embed setting
    stores: list[Measure]  # post pages: one per comment store
    embed: bool
    store_reference: str


def compare(request: HttpRequest, target: Target) -> Comparison:
    """Every timeline model (parity against `read`, the system of record),
    the stored ones with embedding flipped too, and for pages with a thread
    every comment store (parity against the configured COMMENTS_STORE, the
    one every comment write keeps)."""
    embed, store, model = active.embed(), active.comment_store(), active.timeline_model()
    timelines = selectors.maintained_timeline_models()

    def run(choice: Choice, page: Target = target) -> Measure:
        kept = (
            choice.timeline_model in timelines
            and selectors.embed_maintained(choice.embed)
            and choice.comment_store in selectors.maintained_comment_stores()
        )
        return measure(request, page, choice, kept)

    models = [run(Choice(name, embed, store)) for name in TIMELINE_MODELS]
    reference = next(row for row in models if row.choice.timeline_model == "read")
    variants = [run(Choice(name, not embed, store)) for name in TIMELINE_MODELS if name != "read"]
    _check(models + variants, reference)
    stores: list[Measure] = []
    if target.threaded:
        # Oldest first: the one order every store serves (`buckets` cannot
        # thread, so a threaded page would differ by design, not by data).
        query = QueryDict(target.query, mutable=True)
        query["order"] = "oldest"
        oldest = replace(target, query=query.urlencode())
        stores = [run(Choice(model, embed, name), oldest) for name in COMMENT_STORES]
        record = next(row for row in stores if row.choice.comment_store == settings.COMMENTS_STORE)
        _check(stores, record)
    return Comparison(target, models, variants, stores, embed, settings.COMMENTS_STORE)
