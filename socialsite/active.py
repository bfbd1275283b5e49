"""The storage models in use for this request
(docs/developer-lens.md#the-models-in-use-for-a-request).

Settings pick the models for the whole site (FEED_MODEL, FEED_EMBED,
COMMENTS_STORE). The developer's lens lets one admin's session read through
other models, and the compare page renders one page under each of them, in
the same process as everyone else's requests: so the choice lives in a
contextvar, set by `override` for the duration of one request (or one
rendering), never in the settings, which every thread shares.

Readers ask `timeline_model()`, `embed()` and `comment_store()`;
`timelines.stores.get_store(None)` and `comments.stores.get_store(None)` do.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings

TIMELINE_MODELS = ("cache", "month", "size", "read")
COMMENT_STORES = ("documents", "embedded", "buckets")


@dataclass(frozen=True)
class Choice:
    """What an override sets; None leaves that model to the settings."""

    timeline_model: str | None = None
    embed: bool | None = None
    comment_store: str | None = None


class _Lazy:
    """A choice worked out on first use (the middleware's: it reads the
    session and the user, which a page that asks for no model never loads).
    While it is being worked out, models are the settings': loading the user
    may itself write (timelines/receivers.py), and writes never follow a lens."""

    def __init__(self, decide: Callable[[], Choice]):
        self._decide = decide
        self._value: Choice | None = None
        self._deciding = False

    def get(self) -> Choice:
        if self._value is None:
            if self._deciding:
                return Choice()
            self._deciding = True
            try:
                self._value = self._decide()
            finally:
                self._deciding = False
        return self._value


# No override: every model from the settings. (A frozen dataclass, so the
# shared default cannot be changed in place.)
_SETTINGS = Choice()
_choice: ContextVar["Choice | _Lazy | None"] = ContextVar("active_choice", default=None)


def _current() -> Choice:
    value = _choice.get()
    if value is None:
        return _SETTINGS
    return value.get() if isinstance(value, _Lazy) else value


def timeline_model() -> str:
    return _current().timeline_model or settings.FEED_MODEL


def embed() -> bool:
    chosen = _current().embed
    return settings.FEED_EMBED if chosen is None else chosen


def comment_store() -> str:
    return _current().comment_store or settings.COMMENTS_STORE


def overridden() -> Choice:
    """The override in force here (all None when there is none)."""
    return _current()


@contextmanager
def override(
    timeline_model: str | None = None,
    embed: bool | None = None,
    comment_store: str | None = None,
) -> Iterator[Choice]:
    """Read through these models inside the block. Blocks nest: an inner
    block changes only what it names. Unknown names raise ValueError here,
    not deep inside a page."""
    if timeline_model is not None and timeline_model not in TIMELINE_MODELS:
        raise ValueError(
            f"timeline model must be one of {TIMELINE_MODELS}, not {timeline_model!r}"
        )
    if comment_store is not None and comment_store not in COMMENT_STORES:
        raise ValueError(f"comment store must be one of {COMMENT_STORES}, not {comment_store!r}")
    current = _current()
    choice = Choice(
        timeline_model=current.timeline_model if timeline_model is None else timeline_model,
        embed=current.embed if embed is None else embed,
        comment_store=current.comment_store if comment_store is None else comment_store,
    )
    token = _choice.set(choice)
    try:
        yield choice
    finally:
        _choice.reset(token)


@contextmanager
def override_lazily(decide: Callable[[], Choice]) -> Iterator[None]:
    """Like `override`, with the choice worked out by `decide()` only when a
    model is first asked for inside the block."""
    token = _choice.set(_Lazy(decide))
    try:
        yield
    finally:
        _choice.reset(token)
