"""`Excluding` is the list of everyone less a few, and draws what that list draws."""

import random

import pytest

from socialsite.sampling import Population

NAMES = [f"user{n:04d}" for n in range(500)]


@pytest.mark.parametrize(
    "left_out",
    [
        set(),
        {"user0000"},
        {"user0499"},
        {"user0003", "user0004", "user0250", "nobody"},
        set(NAMES),
    ],
)
def test_it_is_the_list_less_the_left_out(left_out):
    view = Population(NAMES).without(left_out)
    listed = [name for name in NAMES if name not in left_out]
    assert len(view) == len(listed)
    assert list(view) == listed
    assert [view[i] for i in range(len(view))] == listed
    assert view[-1:] == listed[-1:] and view[2:9] == listed[2:9]
    assert ("user0003" in view) == ("user0003" in listed)
    with pytest.raises(IndexError):
        view[len(listed)]


@pytest.mark.parametrize("k", [0, 3, 40])
def test_random_sample_draws_what_the_list_draws(k):
    left_out = set(random.Random(1).sample(NAMES, 60))
    view = Population(NAMES).without(left_out).without(["user0100", "user0101"])
    listed = [name for name in NAMES if name not in left_out | {"user0100", "user0101"}]
    for seed in range(5):
        assert random.Random(seed).sample(view, k) == random.Random(seed).sample(listed, k)
    small = Population(NAMES[:12]).without(["user0005"])  # copied into a pool when small
    assert random.Random(3).sample(small, 4) == random.Random(3).sample(list(small), 4)
