"""Choosing ads (*Online Advertising Networks*, Designs 1-3, made correct; docs/ads-api.md).

`choose_ads` reads the zone and the viewer (two round trips), scores each
ad `ecpm * ln(1.1 + matching keywords)` when keywords are given (plain eCPM
otherwise), walks them best score first with ties in random order, skips
campaigns the viewer has seen `cap_count` times in the last `cap_hours`, ended ones
and those whose budget buys nothing, and keeps up to `n` ads from distinct
campaigns. It then records them (ads/serving/recording.py: offers, stats,
viewer; three writes) and serves only those whose budget and cap held.

The seed's keyword iterator sorted scores ascending and grouped ties on the
whole (score, ad) tuple; its capping code read `user_id`, `timestamp` and
`detail`, which its own schema does not have. Here ads are walked best score
first and each group of equal scores is shuffled, so every tied ad is
equally likely to come first.
"""

import logging
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from operator import itemgetter

from ads.documents import AdUser, AdZone
from ads.services.campaigns import campaigns_deactivate
from ads.serving import recording
from ads.serving.recording import Pick
from socialsite.clock import aware
from socialsite.clock import now as clock_now

log = logging.getLogger(__name__)

MAX_ADS = 10
MAX_QUERY_KEYWORDS = 20
QUERY_PUNCTUATION = ".,;:!?\"'()[]{}<>«»“”‘’"


@dataclass(frozen=True)
class ServedAd:
    campaign_id: str
    ad_unit_id: str
    title: str
    text: str
    url: str  # the unit's stored url; pages link to the click url instead
    image: str
    offer_id: str
    site: str
    zone: str
    matched_keywords: tuple[str, ...]  # for "Why this ad?"
    score: float
    # The campaign's cap window when this impression counted against the
    # viewer's frequency cap, else 0: what a new viewer's cookie carries
    # (ads/serving/viewer.py, docs/ads-api.md).
    cap_hours: int = 0


def query_keywords(keywords: Sequence[str]) -> frozenset[str]:
    """The request's keywords as campaigns store theirs: lowercase words,
    without the punctuation around them ("cars?" is "cars")."""
    words: list[str] = []
    for keyword in keywords or ():
        if isinstance(keyword, str):
            for word in keyword.casefold().replace(",", " ").split():
                word = word.strip(QUERY_PUNCTUATION)
                if word:
                    words.append(word)
    return frozenset(words[:MAX_QUERY_KEYWORDS])


# ln(1.1 + m) for every possible number of matching keywords m.
_RELEVANCE = [math.log(1.1 + matching) for matching in range(MAX_QUERY_KEYWORDS + 1)]


def score(ad: dict, keywords: frozenset[str]) -> float:
    """`ecpm * ln(1.1 + matching keywords)`, or the plain eCPM without keywords."""
    ecpm = float(ad.get("ecpm") or 0)
    if not keywords:
        return ecpm
    return ecpm * _RELEVANCE[len(keywords.intersection(ad.get("keywords") or ()))]


def matched_keywords(ad: dict, keywords: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(keywords.intersection(ad.get("keywords") or ())))


def servable(ad: dict, caps: dict, now: datetime) -> bool:
    """Not ended, its budget buys something, and under the viewer's cap."""
    ends = ad.get("ends")
    if ends is not None and aware(ends) <= now:
        return False
    bought = ad.get("max_impressions")
    if bought is not None and bought <= 0:
        return False
    cap, hours = ad.get("cap_count") or 0, ad.get("cap_hours") or 0
    if cap > 0 and hours > 0:
        return recording.seen_in_window(caps, ad["campaign_id"], hours, now) < cap
    return True


def best_first(
    ads: list[dict], keywords: frozenset[str], rng: random.Random
) -> Iterator[tuple[float, dict]]:
    """(score, ad), best score first, each group of equal
    scores shuffled so every tied ad is equally likely to come first.

    Without keywords the score is the eCPM, and the zone's array is already
    sorted by it (`$push` `$sort`, seed Design 1), so groups are taken in
    stored order and only as far as the caller walks. With keywords every ad
    is scored and sorted (the seed's warning: that costs at display time).
    """
    scored: Iterable[tuple[float, dict]]
    if keywords:
        scored = sorted(((score(ad, keywords), ad) for ad in ads), key=itemgetter(0), reverse=True)
    else:
        scored = ((float(ad.get("ecpm") or 0), ad) for ad in ads)
    for _points, group in groupby(scored, key=itemgetter(0)):
        tied = list(group)
        rng.shuffle(tied)
        yield from tied


def rank(
    ads: list[dict],
    *,
    keywords: frozenset[str],
    caps: dict,
    n: int,
    rng: random.Random,
    now: datetime,
) -> list[Pick]:
    """Up to `n` servable picks from distinct campaigns, best score first."""
    picks: list[Pick] = []
    campaigns: set[str] = set()
    for points, ad in best_first(ads, keywords, rng):
        if ad["campaign_id"] in campaigns or not servable(ad, caps, now):
            continue
        campaigns.add(ad["campaign_id"])
        picks.append(Pick(ad=ad, score=points, matched=matched_keywords(ad, keywords)))
        if len(picks) == n:
            break
    return picks


def choose_ads(
    *,
    site: str,
    zone: str,
    viewer: str,
    keywords: Sequence[str] = (),
    n: int = 1,
    bot: bool = False,
    remember: bool = True,
    first_seen: dict | None = None,
    ip: str | None = None,
    rng: random.Random | None = None,
    now: datetime | None = None,
) -> list[ServedAd]:
    """Choose, record and offer up to `n` ads for one page view.

    Reads: the zone and (unless a bot) the viewer. Writes: the offers, the
    stats and the viewer (ads/serving/recording.py says why in that order).
    A bot is served but not counted: no impressions, no caps, only offers
    marked uncounted (so its clicks and views are not counted either).
    `remember=False` is a viewer without a profile: one whose browser sent
    no cookie of ours (a new visitor, a script, another site's visitor). Its
    impressions count, but no `ad_user` is read or written, so no frequency
    cap holds for it and no profile is kept for 90 days per page view;
    instead, with its `ip`, its decisions are counted against the IP's
    window (`RATELIMIT_AD_IMPRESSION`), and past it it is served uncounted,
    as a bot, so one address cannot spend a campaign's budget. A viewer with
    a profile is limited by it instead (`RATELIMIT_AD_VIEWER`), at no cost.
    Its counted capped impressions come back with their `cap_hours`, for the
    cookie to carry; `first_seen` is what the cookie carried back (caps-shaped,
    ads/serving/viewer.py `first_impressions`): while the read finds no
    profile, they count against the caps and start the profile.
    """
    for name, value in (("site", site), ("zone", zone), ("viewer", viewer)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string")
    n = max(1, min(int(n), MAX_ADS))
    rng = rng or random.SystemRandom()
    now = now or clock_now()
    found = AdZone._get_collection().find_one({"site_id": site, "zone_id": zone}, {"ads": 1})
    ads = (found or {}).get("ads") or []
    if not ads:
        return []
    caps: dict = {}
    known = False
    profile = None
    if not bot and remember:
        profile = AdUser._get_collection().find_one({"_id": viewer}, {"caps": 1, "recent.date": 1})
        known = profile is not None
        # No profile yet: the impressions of the cookieless first answer,
        # which no profile could hold, are the viewer's caps (issue 32, item
        # 7). Once the profile exists it holds them, and the cookie is moot.
        caps = ((profile or {}).get("caps") or {}) if known else dict(first_seen or {})
    picks = rank(ads, keywords=query_keywords(keywords), caps=caps, n=n, rng=rng, now=now)
    if not picks:
        return []
    counted = not bot
    if counted and remember:
        counted = not recording.viewer_over_limit(profile, now)
    elif counted and ip is not None:
        # In the viewer's place (no profile to read or write): one write.
        counted = recording.within_ip_limit(ip)
    recording.record_offers(picks, viewer=viewer, site=site, zone=zone, counted=counted, now=now)
    if counted:
        spent = recording.record_stats(picks, now)
        refused = set(spent)
        billed = [p for p in picks if p.ad["campaign_id"] not in spent]
        if remember and billed:
            capped = recording.record_viewer(
                viewer, billed, caps, known, now, first_seen=None if known else caps
            )
            recording.unbill([p for p in billed if p.ad["campaign_id"] in capped], now)
            refused |= capped
        if refused:
            # Rare (a race at a budget's end or for one viewer's cap): the
            # offers of ads not served would name ads nobody was given.
            recording.withdraw_offers([p for p in picks if p.ad["campaign_id"] in refused])
            picks = [p for p in picks if p.ad["campaign_id"] not in refused]
        if spent:
            _stop_spent(spent)
    return [
        ServedAd(
            campaign_id=p.ad["campaign_id"],
            ad_unit_id=p.ad["ad_unit_id"],
            title=p.ad["title"],
            text=p.ad.get("text", ""),
            url=p.ad["url"],
            image=p.ad.get("image", ""),
            offer_id=p.offer_id,
            site=site,
            zone=zone,
            matched_keywords=p.matched,
            score=p.score,
            cap_hours=_cap_hours(p.ad) if counted else 0,
        )
        for p in picks
    ]


def _cap_hours(ad: dict) -> int:
    """The ad's cap window, or 0 if it has no cap (either part unset)."""
    cap, hours = ad.get("cap_count") or 0, ad.get("cap_hours") or 0
    return int(hours) if cap > 0 and hours > 0 else 0


def _stop_spent(campaign_ids: set[str]) -> None:
    """A budget ran out during this decision: deactivate the campaign now
    (two writes, once per campaign, not per decision), so no later decision
    picks it; pacing would only catch it on its next sweep."""
    stopped = campaigns_deactivate([(cid, "budget") for cid in sorted(campaign_ids)])
    for campaign_id, _reason in stopped:
        log.info("ad campaign %s deactivated: its budget is spent", campaign_id)
