"""How comments rank under the `best` and `top` orders
(docs/discovery.md#comment-votes-and-ranked-orders).

`top` is the score, ups minus downs. `best` is Reddit's "confidence" sort:
the lower bound of the Wilson score interval, at 95 %, for the share of
voters who voted up. A comment with 1 up and 0 downs is not "100 % liked":
one vote says little, so its lower bound (0.21) stays below that of a
comment with 40 ups and 10 downs (0.67). Evan Miller's "How Not To Sort By
Average Rating" gives the formula used here:

    (p + z²/2n - z·√(p(1-p)/n + z²/4n²)) / (1 + z²/n)

with p the share of ups among the n votes and z the normal quantile of the
confidence (1.96 for 95 %). No votes: 0, the bottom, with the newest first
among equals.
"""

import math

#: The 97.5th percentile of the standard normal distribution: a two-sided
#: 95 % interval, whose lower bound is what `best` sorts on.
Z_95 = 1.959963984540054

#: At this score or lower a comment is shown collapsed, a click away.
COLLAPSE_AT = -4


def wilson_lower_bound(ups: int, downs: int, z: float = Z_95) -> float:
    """The lower bound of the Wilson score interval of ups among all votes.
    A count may dip below 0 for a moment while racing votes land (a vote
    taken back counted before the vote itself, comments/votes.py): that
    moment ranks as no such votes, and the last count to land sets it right."""
    ups, downs = max(ups, 0), max(downs, 0)
    n = ups + downs
    if n <= 0:
        return 0.0
    p = ups / n
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)
    return (centre - spread) / (1 + z2 / n)


def score(ups: int, downs: int) -> int:
    return ups - downs
