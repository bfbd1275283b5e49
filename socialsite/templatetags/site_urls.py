"""`{% fixed_url 'name' %}`: the path of a route without arguments, reversed
once per process instead of on every page.

base.html links to about ten such routes on every page; `{% url %}` walks
the resolver, joins and quotes for each, every time (docs/performance.md: app
CPU). Their paths change only with the URL configuration or the script
prefix, so both are part of the cache key.
"""

import functools

from django import template
from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

register = template.Library()


@functools.cache
def _reversed(name: str, urlconf: str, prefix: str) -> str:
    return reverse(name, urlconf=urlconf)


@register.simple_tag
def fixed_url(name: str) -> str:
    """`{% url name %}` for a route that takes no arguments."""
    return _reversed(name, get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())
