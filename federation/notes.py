"""Remote Notes read into our posts' shape (docs/federation.md#what-federates)."""

from datetime import datetime, timedelta

from django.utils.dateparse import parse_datetime

from federation import uris
from federation.sanitize import html_to_text
from socialsite.clock import aware, now

NOTE_TYPES = {"Note", "Question", "Article", "Page"}
MAX_OPTIONS = 10
MAX_ATTACHMENTS = 4


class NoteError(ValueError):
    """What came is not a Note we can show."""


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def is_public(doc: dict) -> bool:
    return any(a in uris.PUBLIC_FORMS for a in _strings(doc.get("to")) + _strings(doc.get("cc")))


def when(value: object) -> datetime:
    """A published time, never in the future (a clock ahead can't pin a post on top)."""
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        return now()
    return min(aware(parsed), now())


def link_of(value: object) -> str | None:
    """A URL out of `url`: a string, a Link, or a list of them."""
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("href")
    if isinstance(value, str) and value.startswith(("https://", "http://")) and len(value) < 2000:
        return value
    return None


def mentioned_locals(doc: dict) -> list[str]:
    """Our people the Note mentions (its Mention tags naming our actors)."""
    raw = doc.get("tag")
    tags = raw if isinstance(raw, list) else []
    found = []
    for tag in tags[:50]:
        if isinstance(tag, dict) and tag.get("type") == "Mention":
            local = uris.parse_local(tag.get("href"))
            if local is not None and local.kind == "actor" and local.handle not in found:
                found.append(local.handle)
    return found


def _attachments(doc: dict) -> list[dict]:
    items = doc.get("attachment")
    items = [items] if isinstance(items, dict) else items if isinstance(items, list) else []
    found = []
    for item in items[:MAX_ATTACHMENTS]:
        if not isinstance(item, dict):
            continue
        url = link_of(item.get("url"))
        if url:
            name, media = item.get("name"), item.get("mediaType")
            alt = name if isinstance(name, str) else ""
            kind = media if isinstance(media, str) else ""
            found.append({"url": url, "alt": alt[:1500], "media_type": kind[:100]})
    return found


def post_fields(doc: dict) -> dict:
    """`type` and `detail` of our post for a remote Note or Question."""
    if doc.get("type") not in NOTE_TYPES:
        raise NoteError("Only Notes become posts.")
    raw = doc.get("content")
    text = html_to_text(raw if isinstance(raw, str) else "")
    if doc.get("type") in ("Article", "Page") and isinstance(doc.get("name"), str):
        text = f"{doc['name'][:200]}\n\n{text}".strip()
    detail: dict = {"text": text}
    summary = doc.get("summary")
    if isinstance(summary, str) and summary.strip():
        detail["cw"] = html_to_text(summary)[:200]
    attachments = _attachments(doc)
    if attachments:
        detail["attachments"] = attachments
    if doc.get("type") == "Question":
        return {"type": "poll", "detail": {**detail, **poll_detail(doc, text)}}
    if not text and not attachments:
        raise NoteError("The Note is empty.")
    return {"type": "status", "detail": detail}


def poll_detail(doc: dict, question: str) -> dict:
    choices = doc.get("oneOf") or doc.get("anyOf")
    if not isinstance(choices, list) or not 2 <= len(choices) <= MAX_OPTIONS:
        raise NoteError("A poll has 2 to 10 options.")
    options, votes = [], []
    for choice in choices:
        if not isinstance(choice, dict) or not isinstance(choice.get("name"), str):
            raise NoteError("A poll option has no name.")
        options.append(choice["name"][:100])
        votes.append(vote_count(choice))
    ends = parse_datetime(doc["endTime"]) if isinstance(doc.get("endTime"), str) else None
    return {
        "question": question[:300] or "Poll",
        "options": options,
        "votes": votes,
        "expires": aware(ends) if ends else now() + timedelta(days=1),
    }


def vote_count(choice: dict) -> int:
    replies = choice.get("replies")
    total = replies.get("totalItems") if isinstance(replies, dict) else 0
    return total if isinstance(total, int) and 0 <= total < 10**9 else 0


def poll_votes(doc: dict) -> list[int] | None:
    choices = doc.get("oneOf") or doc.get("anyOf")
    if not isinstance(choices, list):
        return None
    return [vote_count(c) if isinstance(c, dict) else 0 for c in choices]
