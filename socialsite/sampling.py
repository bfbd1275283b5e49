"""Everyone but a few, to draw from without writing out everyone.

The demo's seeders draw likers, voters and commenters from "every user but
the author and whoever a block bars" once per post or comment. Building that
list each time costs the whole population per draw, so a world of n users
with 1.5 posts each cost n * n (docs/benchmarks.md#seeding). `random.sample`
reads a population by `len` and index only (it copies one into a pool only
when it is small), so a view that skips the few left out draws exactly what
the list would have drawn, for the cost of the picks.
"""

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import overload


class Population:
    """A list of distinct names and where each one stands in it."""

    def __init__(self, names: Sequence[str]):
        self.names = list(names)
        self.position = {name: i for i, name in enumerate(self.names)}

    def without(self, left_out: Iterable[str]) -> "Excluding":
        return Excluding(self, left_out)


class Excluding(Sequence[str]):
    """The population's names, in order, less `left_out` (names outside the
    population are ignored): the list `[n for n in names if n not in left_out]`
    without building it."""

    def __init__(self, population: Population, left_out: Iterable[str]):
        self.population = population
        self.left_out = frozenset(left_out)
        position = population.position
        self._gaps = sorted(position[name] for name in self.left_out if name in position)

    def without(self, more: Iterable[str]) -> "Excluding":
        return Excluding(self.population, self.left_out | frozenset(more))

    def __len__(self) -> int:
        return len(self.population.names) - len(self._gaps)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("index out of range")
        return self.population.names[self._position_of(index)]

    def _position_of(self, index: int) -> int:
        """The position in the population of the view's `index`-th name: the
        least p with p - (gaps at or before p) == index (p is then no gap)."""
        gaps = self._gaps
        low, high = index, index + len(gaps)
        while low < high:
            middle = (low + high) // 2
            if middle - bisect_right(gaps, middle) < index:
                low = middle + 1
            else:
                high = middle
        return low

    def __iter__(self) -> Iterator[str]:
        left_out = self.left_out
        return (name for name in self.population.names if name not in left_out)

    def __contains__(self, name: object) -> bool:
        return name in self.population.position and name not in self.left_out
