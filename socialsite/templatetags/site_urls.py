"""`{% fixed_url 'name' %}`: the path of a route without arguments, reversed
once per process instead of on every page; `{% path_to 'name' arg %}`: the
path of a route with one string argument, from a prefix reversed once.

base.html links to about ten such routes on every page; `{% url %}` walks
the resolver, joins and quotes for each, every time (docs/performance.md: app
CPU). Their paths change only with the URL configuration or the script
prefix, so both are part of the cache key.
"""

import functools
import re

from django import template
from django.conf import settings
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse

register = template.Library()


@functools.cache
def _reversed(name: str, urlconf: str, prefix: str) -> str:
    return reverse(name, urlconf=urlconf)


@register.simple_tag
def fixed_url(name: str) -> str:
    """`{% url name %}` for a route that takes no arguments."""
    return _reversed(name, get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())


# Stands for the argument when a route is reversed once: letters only, so
# every converter that takes a string path segment passes it through as it is.
MARKER = "zqxjmarker"
# What `reverse` writes unquoted and unchanged: a handle, an ObjectId's hex.
PLAIN = re.compile(r"[A-Za-z0-9_~-][A-Za-z0-9_.~-]*\Z")


@functools.cache
def _around(name: str, urlconf: str, prefix: str) -> tuple[str, str] | None:
    """The route's path before and after its one argument; None for a route
    whose converter changes or refuses the marker."""
    try:
        path = reverse(name, args=[MARKER], urlconf=urlconf)
    except NoReverseMatch:
        return None
    head, found, tail = path.partition(MARKER)
    return (head, tail) if found and MARKER not in tail else None


def path_to(name: str, arg: object) -> str:
    """`reverse(name, args=[arg])` for a route with one string argument (a
    profile, a post), from its path reversed once per process: a page of
    notifications links thirty people and posts. An argument that `reverse`
    would quote, or that is not a plain path segment, is reversed as usual."""
    text = str(arg)
    around = _around(name, get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())
    if around is None or not PLAIN.match(text):
        return reverse(name, args=[arg])
    return around[0] + text + around[1]


@register.simple_tag(name="path_to")
def path_to_tag(name: str, arg: object) -> str:
    """`{% url name arg %}` for a route with one string argument (`path_to`)."""
    return path_to(name, arg)
