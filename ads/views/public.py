"""Serving, view beacons and clicks (docs/ads-api.md).

`/ads/serve/` is what every ad slot calls, Socialsite's own (same origin,
so the viewer is the signed-in handle or the first-party cookie) and other
sites' through static/ads/embed.js. Its answers allow any origin to read
them but never with credentials: another site's page learns nothing about
the person but the ads. Every parameter is parsed before anything reads the
database, so a malformed or operator-shaped one is a 400 that costs no
round trip.
"""

import re
from collections.abc import Iterable
from typing import Literal, overload

from django.conf import settings
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
    QueryDict,
)
from django.urls import reverse
from django.views.decorators.http import require_GET, require_safe

from ads.documents import SLUG_REGEX
from ads.services import offers
from ads.serving import bots
from ads.serving.choosing import ServedAd, choose_ads
from ads.serving.viewer import (
    first_impressions,
    forget_new_token,
    new_cookie_token,
    remember_first_impressions,
    viewer_id,
)
from socialsite import ratelimit
from socialsite.clock import now as clock_now
from socialsite.middleware import writes_on_get

MAX_ADS = 10
MAX_KEYWORDS = 20  # a campaign has at most as many
KEYWORD_MAX_CHARS = 40  # and none longer (ads/services/campaigns.py)
KEYWORD_SPLIT = re.compile(r"[\s,]+")
_SLUG_RE = re.compile(SLUG_REGEX)
# ASCII digits only ("\d" takes Arabic-Indic and fullwidth digits too), no
# sign, no leading zero, at most 2.
_N_RE = re.compile(r"[1-9][0-9]?")
# Offer ids are secrets.token_urlsafe output: URL-safe base64, bounded length.
OFFER_ID_RE = re.compile(r"[A-Za-z0-9_-]{16,64}")


class BadServeRequest(ValueError):
    """A /ads/serve/ query that cannot name a zone: answered 400."""


@overload
def _single(query: QueryDict, name: str, *, required: Literal[True]) -> str: ...
@overload
def _single(query: QueryDict, name: str, *, required: bool) -> str | None: ...
def _single(query: QueryDict, name: str, *, required: bool) -> str | None:
    values = query.getlist(name)
    if not values:
        if required:
            raise BadServeRequest(f"'{name}' is required.")
        return None
    if len(values) > 1:
        raise BadServeRequest(f"Give '{name}' once.")
    return values[0]


def _slug(query: QueryDict, name: str) -> str:
    value = _single(query, name, required=True)
    if not _SLUG_RE.fullmatch(value):
        raise BadServeRequest(
            f"'{name}' must be 1 to 40 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit."
        )
    return value


def _count(query: QueryDict) -> int:
    value = _single(query, "n", required=False)
    if value is None:
        return 1
    if not _N_RE.fullmatch(value) or int(value) > MAX_ADS:
        raise BadServeRequest(f"'n' must be a whole number from 1 to {MAX_ADS}.")
    return int(value)


def parse_keywords(values: Iterable[object]) -> list[str]:
    """Keywords from repeated `kw` values, each split on commas and spaces as
    campaigns' keywords are (ads/services/campaigns.py): casefolded,
    deduplicated, at most MAX_KEYWORDS. A word longer than any campaign's
    keyword could never match, so it is dropped, not refused."""
    keywords: list[str] = []
    for value in values:
        for word in KEYWORD_SPLIT.split(str(value).casefold()):
            if word and len(word) <= KEYWORD_MAX_CHARS and word not in keywords:
                keywords.append(word)
                if len(keywords) == MAX_KEYWORDS:
                    return keywords
    return keywords


def parse_serve_query(query: QueryDict) -> tuple[str, str, list[str], int]:
    """(site, zone, keywords, n) from the query, or BadServeRequest."""
    site = _slug(query, "site")
    zone = _slug(query, "zone")
    n = _count(query)
    return site, zone, parse_keywords(query.getlist("kw")), n


def _why(ad: ServedAd) -> str:
    """The "Why this ad?" note: which zone and which keywords chose it."""
    where = f"Chosen for the “{ad.zone}” zone of {ad.site}"
    if ad.matched_keywords:
        return f"{where} because this page is about: {', '.join(ad.matched_keywords)}."
    return f"{where} by the advertiser's bid, not by anything about you."


def _cross_site(request: HttpRequest) -> bool:
    """Another site's page asking: its browser drops the SameSite=Lax cookie
    we would set, so sending one would only mint a new viewer per page view."""
    return request.headers.get("Sec-Fetch-Site") == "cross-site"


def _public(response: HttpResponse) -> HttpResponse:
    # Any site may read the answer (embed.js); cookies never go with it
    # (no Allow-Credentials), and nothing here may be cached or shared.
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = "no-store"
    return response


@writes_on_get
@require_GET  # a HEAD must not record impressions
def serve(request: HttpRequest) -> HttpResponse:
    try:
        site, zone, keywords, n = parse_serve_query(request.GET)
    except BadServeRequest as error:
        return _public(JsonResponse({"error": str(error)}, status=400))
    viewer = viewer_id(request)
    # A viewer without our cookie (a new visitor, a script, another site's
    # visitor) gets no `ad_user`: a script that never keeps the cookie would
    # leave one 90-day document per request. Its profile starts when the
    # cookie comes back; until then its decisions are limited per IP.
    # The capped impressions of that first answer go in the cookie instead,
    # and count against the caps when it comes back (ads/serving/viewer.py).
    cookieless = new_cookie_token(request) is not None
    now = clock_now()
    served = choose_ads(
        site=site,
        zone=zone,
        viewer=viewer,
        keywords=keywords,
        n=n,
        bot=bots.request_is_bot(request),
        remember=not cookieless,
        first_seen=first_impressions(request),
        ip=ratelimit.client_ip(request),
        now=now,
    )
    if not served or _cross_site(request):
        # Nothing was chosen, or the cookie would not come back: send none.
        forget_new_token(request)
    elif cookieless:
        remember_first_impressions(request, [(ad.campaign_id, ad.cap_hours) for ad in served], now)
    ads = [
        {
            "campaign_id": ad.campaign_id,
            "ad_unit_id": ad.ad_unit_id,
            "title": ad.title,
            "text": ad.text,
            "url": ad.url,
            "click_url": request.build_absolute_uri(reverse("ads:click", args=[ad.offer_id])),
            "view_url": request.build_absolute_uri(reverse("ads:view", args=[ad.offer_id])),
            "image": ad.image,
            "why": _why(ad),
        }
        for ad in served
    ]
    return _public(JsonResponse({"ads": ads}))


def _offer_id_or_404(value: object) -> str:
    if not isinstance(value, str) or not OFFER_ID_RE.fullmatch(value):
        raise Http404("No such ad.")
    return value


def _within_click_limits(request: HttpRequest) -> bool:
    """Count this click against the IP's limits; False if any is spent."""
    keys = [f"ip:{ratelimit.client_ip(request)}"]
    within = True
    for rule in settings.RATELIMIT_AD_CLICK:
        try:
            # One scope per rule: each is its own window of counters.
            ratelimit.hit(f"ad_click:{rule}", keys, rule)
        except ratelimit.RateLimited:
            within = False
    return within


def _counts(request: HttpRequest) -> bool:
    # A HEAD (link checkers, prefetchers) and a crawler follow the ad
    # without a person behind them: they get the answer, uncounted.
    return request.method == "GET" and not bots.request_is_bot(request)


@writes_on_get
@require_safe
def click(request: HttpRequest, offer_id: str) -> HttpResponse:
    offer_id = _offer_id_or_404(offer_id)
    count = _counts(request) and _within_click_limits(request)
    url = offers.offer_click(
        offer_id=offer_id, viewer=viewer_id(request, assign=False), count=count
    )
    if url is None:
        raise Http404("This ad has expired.")
    # The unit's stored url (http(s), checked when it was saved): nothing
    # from the request ever chooses where this goes.
    response = HttpResponseRedirect(url)
    response["Cache-Control"] = "no-store"
    return response


@writes_on_get
@require_safe
def view(request: HttpRequest, offer_id: str) -> HttpResponse:
    """The viewability beacon: 204 whether or not this view counted (an
    offer counts one view; an expired one none), so a beacon never errs."""
    offer_id = _offer_id_or_404(offer_id)
    if _counts(request):
        offers.offer_view(offer_id=offer_id)
    return _public(HttpResponse(status=204))
