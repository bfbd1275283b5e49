"""What a person typed when their session had ended (docs/features.md#drafts).

A form sent after the session ended (it expired, or they logged out in
another tab) would be lost at the login page. `keep` puts its text fields in
the visitor's session instead, with the form's action; logging in keeps the
session's data (the key changes, the data stays), and the page the person
was on takes the words back into its form with `take`, once. Files are not
kept (a photo must be chosen again), nor anything past DRAFT_MAX_CHARS.
"""

from django.http import HttpRequest

SESSION_KEY = "draft"
DRAFT_MAX_CHARS = 20_000
# Never kept: the token is the old page's, and `next` is the login's own.
SKIPPED = frozenset({"csrfmiddlewaretoken", "next"})


def keep(request: HttpRequest) -> None:
    fields: dict[str, list[str]] = {}
    size = 0
    for name, values in request.POST.lists():
        if name in SKIPPED or not isinstance(name, str):
            continue
        kept = [value for value in values if isinstance(value, str)]
        size += len(name) + sum(len(value) for value in kept)
        if size > DRAFT_MAX_CHARS:
            return  # too large to carry: nothing half-kept
        fields[name] = kept
    if fields:
        request.session[SESSION_KEY] = {"action": request.path, "fields": fields}


def take(request: HttpRequest, action: str) -> dict[str, list[str]]:
    """The kept fields of a form sent to `action`, removed from the session;
    {} when there are none (or they were for another form)."""
    session = getattr(request, "session", None)
    if session is None:
        return {}
    draft = session.get(SESSION_KEY)
    if not isinstance(draft, dict) or draft.get("action") != action:
        return {}
    del session[SESSION_KEY]
    fields = draft.get("fields")
    return fields if isinstance(fields, dict) else {}
