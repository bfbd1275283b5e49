"""Where a lower app's page leaves room for a higher app (docs/architecture.md#explicit-wiring).

A page of a lower app may show what a higher app adds: the profile page
(profiles) shows the wall (feeds), search (profiles) shows posts (feeds),
the post page (feeds) shows its comments (comments); post cards, comments,
profiles and messages carry a Report control (moderation), feeds and search
an ad slot (ads). The lower app cannot import the higher one (the layer
test fails on it), so the higher app registers here, in its
`AppConfig.ready()`, as its owners and demo seeders do:

- `add_page_context(page, func)`: `func(request, *args) -> dict` adds to
  the named page's template context; the page's view calls `page_context`.
- `add_to_slot(slot, template)`: the template is rendered where a lower
  app's template writes `{% slot "<slot>" name=value ... %}`
  (`socialsite/templatetags/slots.py`), with those values and the page's
  context.

- `add_link(name, url_name)`: where a named link in a lower app's text
  goes (a post's hashtags link to their tag's page, `link("tag", tag)`);
  unregistered, `link` is None and the text stays plain.
- `add_composer_page(url_name)`: the page shows the post composer, so a
  post that fails renders that page again with its errors
  (feeds/views/posts.py) rather than a bare form.

Every page and slot is named here, so a misspelt registration fails at
start-up rather than leaving a page silently without its part.
"""

from collections.abc import Callable

from django.http import HttpRequest
from django.urls import reverse

#: Pages a higher app adds context to, and what their views pass it.
PAGES = {
    "profile": "the profile page (profiles): request, the person",
    "search": "the search page (profiles): request, the query",
    "post": "the post page (feeds): request, the post",
    "sessions": "the account's sessions page (profiles): request",
}
#: Places in lower apps' templates where a higher app's template goes.
SLOTS = {
    "report": "a Report control: target, owner",
    # For a list of many items (a conversation's messages), where a control
    # each is too much: each item links `link("report")` + `?target=<key>`.
    "report_form": "the page's one Report dialog, for the links of its items",
    "ad": "an ad slot: zone, keywords",
    # The sessions page: what else may use the account (the client API's apps).
    "authorized_apps": "beside the sessions: the page's context",
}

_page_context: dict[str, list[Callable[..., dict]]] = {page: [] for page in PAGES}
_slot_templates: dict[str, list[str]] = {slot: [] for slot in SLOTS}
_composer_pages: set[str] = set()
_links: dict[str, str] = {}


def add_page_context(page: str, func: Callable[..., dict]) -> None:
    if page not in PAGES:
        raise ValueError(f"No page called {page!r} takes extensions ({', '.join(PAGES)}).")
    if func not in _page_context[page]:
        _page_context[page].append(func)


def page_context(page: str, request: HttpRequest, *args: object) -> dict:
    """The context every registered app adds to `page`, in registration order."""
    context: dict = {}
    for func in _page_context[page]:
        context.update(func(request, *args))
    return context


def add_to_slot(slot: str, template: str) -> None:
    if slot not in SLOTS:
        raise ValueError(f"No slot called {slot!r} ({', '.join(SLOTS)}).")
    if template not in _slot_templates[slot]:
        _slot_templates[slot].append(template)


def slot_templates(slot: str) -> list[str]:
    if slot not in SLOTS:
        raise ValueError(f"No slot called {slot!r} ({', '.join(SLOTS)}).")
    return list(_slot_templates[slot])


def add_composer_page(url_name: str) -> None:
    _composer_pages.add(url_name)


def composer_pages() -> frozenset[str]:
    """The URL names of the pages that show the composer."""
    return frozenset(_composer_pages)


def add_link(name: str, url_name: str) -> None:
    _links[name] = url_name


def link(name: str, *args: object) -> str | None:
    """The URL of the named link for these arguments, or None when no app
    registered one."""
    url_name = _links.get(name)
    return None if url_name is None else reverse(url_name, args=args)
