"""The three writes of one ad decision (docs/performance.md, docs/ads-api.md): the offers, the
stats and the viewer, one round trip each whatever the number of ads.

Order matters, and each step is safe to be the last one a crash leaves done.
The offers come first: every impression that is ever billed has its offer,
and an offer whose decision then failed names an ad nobody was given, so
it counts nothing and expires. The stats come second because they decide
budgets: a budgeted campaign's impressions in all are counted by a
conditional upsert that fails (E11000) once the budget is spent, before
any viewer's frequency cap is spent on an ad that will not be served. The
viewer comes last because it decides frequency caps: one conditional update
of `ad_user`, so twenty simultaneous decisions for one viewer cannot all see
room under a cap; the few it refuses (a rival decision filled the window
since the read) are taken back from the stats (`unbill`), and the offers of
every refused ad are withdrawn: more writes only on those races. Only ads
that pass both are served.
"""

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from pymongo import InsertOne, UpdateOne
from pymongo.errors import BulkWriteError, DuplicateKeyError

from ads.documents import (
    BUDGET_ROW_DAY,
    AdOffer,
    AdStats,
    AdUser,
    budget_row_id,
    stats_row_id,
)
from socialsite import ratelimit
from socialsite.clock import aware

DUPLICATE_KEY = 11000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Events kept per viewer: enough for "why this ad?" and a glance at history.
RECENT_MAX = 50
CLICKS_MAX = 50
# Capped campaigns kept per viewer; past this the longest-unseen ones go.
CAPS_MAX = 200
# Entries whose window has passed are pruned once a viewer has this many.
CAPS_PRUNE_AT = 20


@dataclass
class Pick:
    """A chosen ad on its way to being served."""

    ad: dict  # the zone's serving copy
    score: float
    matched: tuple[str, ...]
    offer_id: str = ""


def day_of(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def seen_in_window(caps: dict, campaign_id: str, cap_hours: int, now: datetime) -> int:
    """How many times the viewer saw the campaign in the last `cap_hours`."""
    entry = caps.get(campaign_id)
    times = entry.get("t") if isinstance(entry, dict) else None
    if not isinstance(times, list):
        return 0
    cutoff = now - timedelta(hours=cap_hours)
    return sum(1 for seen in times if isinstance(seen, datetime) and aware(seen) > cutoff)


def record_viewer(
    viewer: str,
    picks: list[Pick],
    caps: dict,
    known: bool,
    now: datetime,
    *,
    first_seen: dict | None = None,
) -> set[str]:
    """Count the impressions against the viewer's caps, in one update.

    `caps.<campaign id>.t` holds the times of the viewer's last `cap_count`
    impressions of that campaign, oldest first. Each capped campaign adds a
    condition that there is room in its sliding window: fewer than
    `cap_count` times (`t.<cap_count - 1>` missing), or the oldest of them
    is past the window (`t.0 <= now - cap_hours`); its update pushes `now`
    (`$sort`, `$slice: -cap_count`). The server checks and writes in one
    step, so concurrent decisions for one viewer count at most `cap_count`.
    If a condition fails (a rival decision filled the window), nothing is
    written and the capped ads are refused; the returned ids say which.

    `first_seen` (caps-shaped) are a new viewer's impressions that no
    profile holds yet, those of the answer that set its cookie
    (ads/serving/viewer.py): the upsert that starts the profile writes them
    too, so the caps go on counting them (docs/ads-api.md).
    """
    clauses: list[dict] = []
    sets: dict = {"last_seen": now}
    pushes: dict = {
        "recent": {
            "$each": [
                {"campaign_id": p.ad["campaign_id"], "ad_unit_id": p.ad["ad_unit_id"], "date": now}
                for p in picks
            ],
            "$slice": -RECENT_MAX,
        }
    }
    capped = []
    for pick in picks:
        ad = pick.ad
        cap, hours = ad.get("cap_count") or 0, ad.get("cap_hours") or 0
        if cap <= 0 or hours <= 0:
            continue
        path = f"caps.{ad['campaign_id']}"
        capped.append(ad["campaign_id"])
        clauses.append(
            {
                "$or": [
                    {f"{path}.t.{cap - 1}": {"$exists": False}},
                    {f"{path}.t.0": {"$lte": now - timedelta(hours=hours)}},
                ]
            }
        )
        pushes[f"{path}.t"] = {"$each": [now], "$sort": 1, "$slice": -cap}
        sets[f"{path}.h"] = hours
    update: dict = {"$set": sets, "$push": pushes}
    # A new viewer's `caps` are only its first impressions: nothing stored to prune.
    unset = _prunable(caps, set(capped), now, clauses) if known else {}
    if unset:
        update["$unset"] = unset
    query: dict = {"_id": viewer}
    if clauses:
        query["$and"] = clauses
    collection = AdUser._get_collection()
    if known:
        result = collection.update_one(query, update)
        return set(capped) if result.matched_count == 0 else set()
    starting = _with_first_seen(update, first_seen or {}, now)
    for attempt in range(2):
        try:
            collection.update_one(query, starting if attempt == 0 else update, upsert=True)
            return set()
        except DuplicateKeyError:
            # A rival decision created the viewer first: try once more, now
            # as an update of that document, without the first impressions
            # (the rival came with the same cookie and wrote them); a second
            # collision means a condition failed on it.
            continue
    return set(capped)


def _with_first_seen(update: dict, first_seen: dict, now: datetime) -> dict:
    """`update`, also pushing the first impressions still in their window."""
    if not first_seen:
        return update
    sets, pushes = dict(update["$set"]), dict(update["$push"])
    for campaign_id, entry in first_seen.items():
        hours = entry.get("h") or 0
        cutoff = now - timedelta(hours=hours)
        times = sorted(t for t in entry.get("t") or () if aware(t) > cutoff)
        if not times:
            continue
        path = f"caps.{campaign_id}"
        served = pushes.get(f"{path}.t")
        if served is None:
            pushes[f"{path}.t"] = {"$each": times, "$sort": 1}
            sets[f"{path}.h"] = hours
        else:
            # Shown again now: its `$sort` and `$slice` keep the latest `cap_count`.
            pushes[f"{path}.t"] = {**served, "$each": [*times, *served["$each"]]}
    return {**update, "$set": sets, "$push": pushes}


def _prunable(caps: dict, serving: set[str], now: datetime, clauses: list[dict]) -> dict:
    """Entries to drop once a viewer has many: those whose newest impression
    is past their own window (`h` hours), then, past CAPS_MAX, the ones seen
    longest ago. Each drop is conditional on no newer impression having
    arrived meanwhile, so an entry another decision just used is never lost."""
    if len(caps) <= CAPS_PRUNE_AT:
        return {}
    newest = []
    for campaign_id, entry in caps.items():
        times = entry.get("t") if isinstance(entry, dict) else None
        if campaign_id in serving or not isinstance(times, list) or not times:
            continue
        # An entry without a readable time is dead: its "newest" is the epoch.
        last = max((aware(t) for t in times if isinstance(t, datetime)), default=EPOCH)
        newest.append((last, campaign_id, entry.get("h") or 0))
    newest.sort()
    excess = len(caps) - CAPS_MAX
    drop = {}
    for position, (last, campaign_id, hours) in enumerate(newest):
        if last > now - timedelta(hours=hours) and position >= excess:
            continue
        clauses.append({f"caps.{campaign_id}.t": {"$not": {"$gt": last}}})
        drop[f"caps.{campaign_id}"] = ""
    return drop


def stats_upsert(campaign_id: str, ad_unit_id: str, day: str, field: str) -> UpdateOne:
    """`$inc` one counter of a day row, by `_id` with the full shard key."""
    return UpdateOne(
        {
            "_id": stats_row_id(campaign_id, ad_unit_id, day),
            "campaign_id": campaign_id,
            "day": day,
            "ad_unit_id": ad_unit_id,
        },
        {"$inc": {field: 1}},
        upsert=True,
    )


def budget_gate(campaign_id: str, bought: int) -> UpdateOne:
    """Count one impression in all unless the budget's are reached: on a
    spent budget the filter misses the existing row and the upsert's insert
    collides with it (E11000)."""
    row = budget_row_id(campaign_id)
    return UpdateOne(
        {
            "_id": row,
            "campaign_id": row,
            "day": BUDGET_ROW_DAY,
            "ad_unit_id": BUDGET_ROW_DAY,
            "impressions": {"$lt": bought},
        },
        {"$inc": {"impressions": 1}},
        upsert=True,
    )


def record_stats(picks: list[Pick], now: datetime) -> set[str]:
    """Count the impressions, budget gates first, in one ordered bulk write.

    Returns the campaign ids whose budget is spent: their gate collided
    twice (the first E11000 may be two first impressions racing to create
    the row), and their day rows are not counted.
    """
    day = day_of(now)
    gates = [
        (p.ad["campaign_id"], budget_gate(p.ad["campaign_id"], p.ad["max_impressions"]))
        for p in picks
        if p.ad.get("max_impressions") is not None
    ]
    rows = [
        (
            p.ad["campaign_id"],
            stats_upsert(p.ad["campaign_id"], p.ad["ad_unit_id"], day, "impressions"),
        )
        for p in picks
    ]
    pending = gates + rows
    gate_count = len(gates)
    kinds = ["gate"] * gate_count + ["row"] * len(rows)
    order = list(range(len(pending)))
    retried: set[int] = set()
    spent: set[str] = set()
    collection = AdStats._get_collection()
    while order:
        try:
            collection.bulk_write([pending[i][1] for i in order], ordered=True)
            break
        except BulkWriteError as exc:
            errors = exc.details.get("writeErrors", [])
            if not errors or errors[0].get("code") != DUPLICATE_KEY:
                raise
            failed = order[errors[0]["index"]]
            rest = order[errors[0]["index"] + 1 :]
            if failed not in retried:
                retried.add(failed)
                order = [failed, *rest]
                continue
            if kinds[failed] == "gate":
                spent.add(pending[failed][0])
            order = [i for i in rest if pending[i][0] not in spent]
    return spent


def unbill(picks: list[Pick], now: datetime) -> None:
    """Take back the impressions `record_stats` counted for picks the viewer's
    cap then refused: their day rows and budget rows, in one write."""
    if not picks:
        return
    day = day_of(now)
    undo = []
    for pick in picks:
        campaign_id, unit = pick.ad["campaign_id"], pick.ad["ad_unit_id"]
        undo.append(
            UpdateOne(
                {
                    "_id": stats_row_id(campaign_id, unit, day),
                    "campaign_id": campaign_id,
                    "day": day,
                    "ad_unit_id": unit,
                },
                {"$inc": {"impressions": -1}},
            )
        )
        if pick.ad.get("max_impressions") is not None:
            row = budget_row_id(campaign_id)
            undo.append(
                UpdateOne(
                    {
                        "_id": row,
                        "campaign_id": row,
                        "day": BUDGET_ROW_DAY,
                        "ad_unit_id": BUDGET_ROW_DAY,
                    },
                    {"$inc": {"impressions": -1}},
                )
            )
    AdStats._get_collection().bulk_write(undo, ordered=False)


def withdraw_offers(picks: list[Pick]) -> None:
    """Delete the offers of ads refused after their offers were stored. Not
    retried: an offer left behind names an ad nobody was given, and expires."""
    if picks:
        AdOffer._get_collection().delete_many({"_id": {"$in": [p.offer_id for p in picks]}})


def viewer_over_limit(profile: dict | None, now: datetime) -> bool:
    """The viewer's profile already holds `RATELIMIT_AD_VIEWER` impressions
    in its window: one cookie kept by a script bills no more than one
    person's browsing. Read from the profile the decision reads anyway
    (`recent`, the last RECENT_MAX impressions), so it costs no round trip;
    simultaneous decisions may pass it together, as with `ratelimit.check`."""
    limit, seconds = ratelimit.parse_rule(settings.RATELIMIT_AD_VIEWER)
    recent = (profile or {}).get("recent")
    if not settings.RATELIMIT_ENABLED or not isinstance(recent, list):
        return False
    cutoff = now - timedelta(seconds=seconds)
    seen = sum(
        1
        for event in recent
        if isinstance(event, dict)
        and isinstance(event.get("date"), datetime)
        and aware(event["date"]) > cutoff
    )
    return seen >= min(limit, RECENT_MAX)


def within_ip_limit(ip: str) -> bool:
    """Count one decision for a viewer without a profile against its IP's
    window (`RATELIMIT_AD_IMPRESSION`, as clicks are limited per IP); False
    once the window is spent. One upsert, retried once if a rival request
    from the same address created the window's counter first (E11000)."""
    for attempt in range(2):
        try:
            ratelimit.hit("ad_impression", [f"ip:{ip}"], settings.RATELIMIT_AD_IMPRESSION)
            return True
        except ratelimit.RateLimited:
            return False
        except DuplicateKeyError:
            if attempt:
                raise
    return False  # not reached: the loop returns or raises


def record_offers(
    picks: list[Pick], *, viewer: str, site: str, zone: str, counted: bool, now: datetime
) -> None:
    """One offer per chosen ad: what a later view or click must name. An
    uncounted one (a bot's, or past its IP's limit) is stored with `bot`
    set, so its views and clicks are not counted either."""
    for pick in picks:
        pick.offer_id = secrets.token_urlsafe(16)
    if not picks:
        return
    AdOffer._get_collection().bulk_write(
        [
            InsertOne(
                {
                    "_id": pick.offer_id,
                    "viewer": viewer,
                    "campaign_id": pick.ad["campaign_id"],
                    "ad_unit_id": pick.ad["ad_unit_id"],
                    "owner": pick.ad["owner"],
                    "url": pick.ad["url"],
                    "site": site,
                    "zone": zone,
                    "bot": not counted,
                    "created": now,
                    "viewed": False,
                    "clicked": False,
                }
            )
            for pick in picks
        ],
        ordered=False,
    )
