"""`{% ad_slot zone keywords %}`: an ad slot on Socialsite's own pages.

The page renders only the empty slot and static/ads/embed.js fills it from
/ads/serve/. Choosing an ad reads the zone and the viewer and writes three
times (docs/performance.md), which a page with a budget of 3 round trips (the feed)
cannot afford; fetched by the browser, the ad costs the page nothing and the
page's HTML stays the same for every viewer. Being same-origin, the request
carries the session (the viewer is the handle) and the first-party
`ad_viewer` cookie.
"""

from collections.abc import Iterable

from django import template
from django.conf import settings
from django.template import Context
from django.template.loader import render_to_string

from ads.views.public import parse_keywords

register = template.Library()


def slot_keywords(keywords: str | Iterable[object] | None) -> str:
    """`data-ad-kw`: comma-separated keywords, from a search query or a list
    (a profile's interests), split into words as /ads/serve/ reads them."""
    if not keywords:
        return ""
    if not isinstance(keywords, str):
        keywords = " ".join(str(k) for k in keywords)
    return ",".join(parse_keywords([keywords]))


@register.simple_tag(takes_context=True)
def ad_slot(context: Context, zone: str, keywords: str | Iterable[object] | None = None) -> str:
    """The slot for one of Socialsite's zones (`feed`, `search`, `profile`)
    and the script that fills it."""
    return render_to_string(
        "ads/_slot.html",
        {
            "site": settings.ADS_SITE_ID,
            "zone": zone,
            "keywords": slot_keywords(keywords),
            "csp_nonce": context.get("csp_nonce", ""),
        },
    )
