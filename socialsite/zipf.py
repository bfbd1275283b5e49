"""A Zipf sampler over ranks 1..n, as Socialite's load generator uses.

P(rank k) is proportional to 1 / k**theta. The cumulative weights are
computed once, so a draw over any prefix 1..m (e.g. "one of the m users who
signed up earlier") is one bisect.
"""

import random
from bisect import bisect_left
from itertools import accumulate


class Zipf:
    def __init__(self, n: int, theta: float = 0.99, rng: random.Random | None = None):
        if n < 1:
            raise ValueError("n must be at least 1")
        self.n = n
        self.rng = rng or random.Random()
        self._cdf = list(accumulate(1.0 / (k**theta) for k in range(1, n + 1)))

    def rank(self, within: int | None = None) -> int:
        """A rank in 1..within (default n), Zipf-distributed."""
        m = self.n if within is None else min(within, self.n)
        x = self.rng.random() * self._cdf[m - 1]
        return min(bisect_left(self._cdf, x, 0, m), m - 1) + 1

    def distinct(self, count: int, within: int) -> list[int]:
        """Up to `count` distinct ranks in 1..within, drawn Zipf-wise."""
        count = min(count, within)
        picked: dict[int, None] = {}
        attempts = 0
        while len(picked) < count and attempts < count * 20:
            picked[self.rank(within)] = None
            attempts += 1
        return list(picked)
