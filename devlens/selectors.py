"""What the lens reads: which models are kept current, which this session
chose, and what the session's last page cost.

A stored model answers pages truthfully only if every write keeps it
current: the configured one always, the others only as shadows
(FEED_SHADOW_MODELS, COMMENTS_SHADOW_STORES; docs/storage-models.md#shadow-models). The `read`
model stores nothing, so it is always current.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings

from comments.stores.shadows import shadow_names
from socialsite import active, meter
from socialsite.active import COMMENT_STORES, TIMELINE_MODELS, Choice
from timelines.selectors import pulled
from timelines.stores import shadow_models, stores_copies

if TYPE_CHECKING:
    from django.contrib.sessions.backends.base import SessionBase

#: The session keys the lens uses.
SESSION_CHOICE = "dev_models"
SESSION_LAST_PAGE = "dev_last_page"
# Set when an admin opens /dev/: from then on the session records what each
# page it views costs (one session write per page, for this session only).
SESSION_RECORDING = meter.LENS_SESSION_KEY


def maintained_timeline_models() -> set[str]:
    """The timeline models that every write keeps current."""
    return {"read", settings.FEED_MODEL, *shadow_models()}


def embed_maintained(embed: bool | None) -> bool:
    """Link reads work on any stored entry (a copy is projected away); embed
    reads need entries that carry their copy."""
    return not embed or stores_copies()


def maintained_comment_stores() -> set[str]:
    """The comment stores that every comment write keeps current."""
    return {settings.COMMENTS_STORE, *shadow_names()}


def pulled_authors() -> int:
    """How many authors are pulled rather than pushed
    (docs/performance.md#celebrities-are-pulled)."""
    return len(pulled.authors())


def shadows_on() -> bool:
    return maintained_timeline_models() >= set(TIMELINE_MODELS)


def stored_choice(session: "SessionBase") -> Choice:
    """What the session chose at /dev/, as stored (unchecked)."""
    raw = session.get(SESSION_CHOICE)
    if not isinstance(raw, dict):
        return Choice()
    model = raw.get("timeline_model")
    store = raw.get("comment_store")
    embed = raw.get("embed")
    return Choice(
        timeline_model=model if model in TIMELINE_MODELS else None,
        embed=embed if isinstance(embed, bool) else None,
        comment_store=store if store in COMMENT_STORES else None,
    )


def usable_choice(session: "SessionBase") -> Choice:
    """The stored choice without what is not kept current any more (the
    settings changed since): a timeline model or embedding that no write
    maintains would show an empty or stale feed, so it is left to the
    settings, and /dev/ says so. A comment store is kept: converting
    (`manage.py convert_comments --to <store>`) may have filled it."""
    choice = stored_choice(session)
    model = choice.timeline_model
    embed = choice.embed
    if model is not None and model not in maintained_timeline_models():
        model = None
    if embed is not None and not embed_maintained(embed):
        embed = None
    return Choice(timeline_model=model, embed=embed, comment_store=choice.comment_store)


@dataclass(frozen=True)
class InUse:
    """One model of the page: its value, and where it comes from."""

    name: str
    value: str
    source: str  # "session" or "settings"
    maintained: bool


def models_in_use(session: "SessionBase") -> list[InUse]:
    """The models this session's pages read, with their source."""
    usable = usable_choice(session)
    with active.override(**usable.__dict__):
        model, embed, store = active.timeline_model(), active.embed(), active.comment_store()
    return [
        InUse(
            "timeline model",
            model,
            "session" if usable.timeline_model else "settings",
            model in maintained_timeline_models(),
        ),
        InUse(
            "entries",
            "embed" if embed else "link",
            "session" if usable.embed is not None else "settings",
            embed_maintained(embed),
        ),
        InUse(
            "comment store",
            store,
            "session" if usable.comment_store else "settings",
            store in maintained_comment_stores(),
        ),
    ]


def ignored_choices(session: "SessionBase") -> list[str]:
    """What the session chose that is not applied (no longer maintained)."""
    stored, usable = stored_choice(session), usable_choice(session)
    ignored = []
    if stored.timeline_model and not usable.timeline_model:
        ignored.append(f"timeline model {stored.timeline_model}")
    if stored.embed is not None and usable.embed is None:
        ignored.append("embedded entries" if stored.embed else "link entries")
    return ignored


def last_page(session: "SessionBase") -> dict | None:
    raw = session.get(SESSION_LAST_PAGE)
    return raw if isinstance(raw, dict) and isinstance(raw.get("path"), str) else None
