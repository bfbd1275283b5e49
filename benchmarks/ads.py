"""Benchmark ad decisions (`ads.serving.choosing.choose_ads`) on zones of growing size.

    .venv/bin/python -m benchmarks.ads
    .venv/bin/python -m benchmarks.ads --sizes 10,100,1000 --decisions 400 --n 3

For each zone size, the benchmark empties the database and creates that many
active campaigns of one unit each in two zones, one uncapped and one where
every campaign has a frequency cap (their serving copies are made by
`ads.services.zones`, as activation makes them).
Campaigns get eCPMs from a short price list, so ties are common, and two or
three keywords each from a vocabulary of 40. Then it makes `--decisions`
decisions in each of four cases: no keywords or caps, keywords, caps, and
both. Viewers come from a pool of `--viewers`, so capped campaigns do fall
through. Round trips are counted the way the tests count them (docs/performance.md).
It runs against MONGODB_URI when that is set (the database is emptied: pass
--wipe), and otherwise in demo mode (in-process database), whose timings say
nothing about MongoDB.
"""

import argparse
import random
import sys
import time
from dataclasses import dataclass
from decimal import Decimal

from benchmarks.common import (
    add_common_arguments,
    announce_database,
    empty_database,
    per,
    rate,
    setup_django,
    table,
)

SITE = "bench"
PRICES = [Decimal(p) for p in ("0.50", "1.00", "1.50", "2.00", "2.50", "3.00", "4.00", "5.00")]
VOCABULARY = (
    "hiking climbing running cycling sailing kayak coffee baking poetry typography film jazz "
    "databases chess astronomy gardening photography travel books music games shoes tents "
    "bikes boats maps tea bread cameras lenses stars plants seeds fonts records guitars "
    "pianos puzzles kites"
).split()
CAP_COUNT, CAP_HOURS = 2, 24
CASES = (("-", False), ("keywords", False), ("-", True), ("keywords", True))
HEADER = (
    "ads in zone",
    "keywords",
    "caps",
    "decisions/s",
    "trips/decision",
    "reads/decision",
    "writes/decision",
    "ads/decision",
    "scoring µs",
    "zone KB",
)
# Command names of reads, on a server (the listener) and in demo mode (the wrapper).
READS = {"find", "find_one", "aggregate", "count", "count_documents", "distinct", "getMore"}


@dataclass
class Result:
    size: int
    keywords: bool
    caps: bool
    decisions: int
    seconds: float
    trips: int
    reads: int
    served: int
    rank: float  # seconds of scoring per decision
    zone_kb: float

    def row(self) -> tuple[str, ...]:
        return (
            f"{self.size:,}",
            "yes" if self.keywords else "no",
            f"{CAP_COUNT}/{CAP_HOURS}h" if self.caps else "no",
            rate(self.decisions, self.seconds),
            per(self.trips, self.decisions),
            per(self.reads, self.decisions),
            per(self.trips - self.reads, self.decisions),
            f"{self.served / max(1, self.decisions):.2f}",
            f"{self.rank * 1e6:,.0f}",
            f"{self.zone_kb:,.1f}",
        )


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ads", description=__doc__)
    parser.add_argument("--sizes", default="10,100,1000", help="comma-separated zone sizes")
    parser.add_argument("--decisions", type=int, default=300, help="decisions per case")
    parser.add_argument("--viewers", type=int, default=10, help="distinct viewers per case")
    parser.add_argument("--n", type=int, default=1, help="ads asked for per decision (1..10)")
    add_common_arguments(parser)
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes: comma-separated whole numbers")
    if not args.sizes or min(args.sizes) < 1:
        parser.error("--sizes: each size must be at least 1")
    if args.decisions < 1 or args.viewers < 1 or not 1 <= args.n <= 10:
        parser.error("--decisions and --viewers must be >= 1, --n within 1..10")
    return args


def build_zones(size: int, rng: random.Random) -> None:
    """`size` one-unit campaigns in zone "plain" and `size` capped ones in "capped".

    The campaigns go in with one bulk insert, and each zone gets its serving
    copies (ads.services.zones.zone_copies) in one `$push` `$each` `$sort`:
    activation's own write, batched. Activating a thousand campaigns one by
    one re-sorts the zone a thousand times, which on the demo database takes
    minutes and measures nothing a decision does.
    """
    from ads.documents import AdUnit, Campaign
    from ads.services import clean_keywords, zones

    for zone, (cap_count, cap_hours) in (("plain", (0, 0)), ("capped", (CAP_COUNT, CAP_HOURS))):
        campaigns = [
            Campaign(
                id=f"bench:{zone}-{i}",
                advertiser="bench",
                name=f"{zone} {i}",
                owner="bench_advertiser",
                ecpm=rng.choice(PRICES),
                keywords=clean_keywords(rng.sample(VOCABULARY, rng.randint(2, 3))),
                cap_count=cap_count,
                cap_hours=cap_hours,
                status="active",
                units=[
                    AdUnit(
                        ad_unit_id=f"unit-{i}",
                        site=SITE,
                        zone=zone,
                        title=f"Ad {i}",
                        text="Benchmark ad.",
                        url=f"https://example.org/ads/{i}",
                    )
                ],
            )
            for i in range(size)
        ]
        for campaign in campaigns:
            campaign.validate()
        Campaign._get_collection().insert_many([c.to_mongo() for c in campaigns])
        copies = [copy for c in campaigns for copy in zones.zone_copies(c)[(SITE, zone)]]
        zones.zones_push({(SITE, zone): copies})


def decide(args, size: int, keywords: bool, caps: bool, rng: random.Random) -> Result:
    from ads.serving.choosing import choose_ads
    from socialsite import roundtrips

    zone = "capped" if caps else "plain"
    tag = f"{size}-{'k' if keywords else 'p'}-{'c' if caps else 'u'}"
    plan = [
        (
            f"viewer-{tag}-{rng.randrange(args.viewers)}",
            tuple(rng.sample(VOCABULARY, 2)) if keywords else (),
        )
        for _ in range(args.decisions)
    ]
    served = 0
    with roundtrips.count() as trips:
        start = time.perf_counter()
        for viewer, words in plan:
            ads = choose_ads(
                site=SITE, zone=zone, viewer=viewer, keywords=words, n=args.n, rng=rng
            )
            served += len(ads)
        seconds = time.perf_counter() - start
    reads = sum(1 for name in trips.commands if name in READS)
    return Result(
        size,
        keywords,
        caps,
        len(plan),
        seconds,
        trips.total,
        reads,
        served,
        rank_seconds(args, zone, [words for _, words in plan], rng),
        zone_kilobytes(zone),
    )


def rank_seconds(args, zone: str, plan: list[tuple[str, ...]], rng: random.Random) -> float:
    """The scoring alone (`ads.serving.choosing.rank` on the zone's ads, no database):
    the part of a decision that grows with the zone on any server."""
    from ads.documents import AdZone
    from ads.serving.choosing import query_keywords, rank
    from socialsite.clock import now

    ads = AdZone._get_collection().find_one({"site_id": SITE, "zone_id": zone})["ads"]
    moment = now()
    # CPU time of this process: other processes on the machine do not count.
    start = time.process_time()
    for words in plan:
        rank(ads, keywords=query_keywords(words), caps={}, n=args.n, rng=rng, now=moment)
    return (time.process_time() - start) / max(1, len(plan))


def zone_kilobytes(zone: str) -> float:
    """What each decision's zone read carries over the wire (BSON size)."""
    import bson

    from ads.documents import AdZone

    found = AdZone._get_collection().find_one({"site_id": SITE, "zone_id": zone}, {"ads": 1})
    return len(bson.encode(found)) / 1024


def main(argv=None) -> int:
    args = parse_args(argv)
    setup_django()
    from django.conf import settings

    # A benchmark viewer makes more decisions than a person would: the limits
    # per viewer and per IP would turn its writes off, and it measures decisions.
    settings.RATELIMIT_ENABLED = False
    caveat = "It scans collections and copies whole documents (a zone is one document)."
    if not announce_database(args, caveat):
        return 2
    print(
        f"sizes={','.join(map(str, args.sizes))} decisions={args.decisions} "
        f"viewers={args.viewers} n={args.n} seed={args.seed}"
    )
    results = []
    for size in args.sizes:
        rng = random.Random(args.seed)
        started = time.perf_counter()
        empty_database()
        build_zones(size, rng)
        built = time.perf_counter() - started
        for words, caps in CASES:
            results.append(decide(args, size, words != "-", caps, rng))
        print(
            f"  {size} ads: zones built in {built:.1f} s, "
            f"done in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
    print()
    print(table([HEADER, *(r.row() for r in results)]))
    print()
    print(
        "A decision reads the zone and the viewer and writes the viewer, the stats and the "
        "offers. ads/decision is how many of the n asked for were served: capped campaigns "
        "fall through to the next ad, then to none. scoring µs is `rank` alone, per "
        "decision (CPU time): scoring every ad of the zone at display time, which grows with "
        "the zone on any server, as does zone KB, the zone document each decision reads."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
