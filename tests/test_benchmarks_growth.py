"""benchmarks/growth.py stays runnable: its core at a tiny size prints every
operation with its CPU and round trips, the seeding, the layer shares and the
floor (timings are printed, never checked)."""

import pytest

from benchmarks import growth
from benchmarks.common import serving_overrides

pytestmark = pytest.mark.mongomock_only(
    reason="the benchmark measures the in-process embedded database, whose frames "
    "its layer shares name; seeding a world on a server costs minutes"
)

OPERATIONS = [
    "news feed",
    "someone's wall",
    "post search",
    "people search",
    "notifications",
    "a conversation (30 messages)",
    "a like's background work",
    "a comment's background work",
    growth.FLOOR,
]


def parse_table(output: str) -> dict[str, dict[str, str]]:
    lines = [line for line in output.splitlines() if " | " in line]
    header = [cell.strip() for cell in lines[0].split(" | ")]
    return {
        cells[0]: dict(zip(header, cells, strict=True))
        for cells in ([cell.strip() for cell in line.split(" | ")] for line in lines[1:])
    }


def test_a_tiny_world_gives_every_operation_its_figures():
    with serving_overrides():
        # A few samples each: enough for shares that add up, few rounds.
        output = growth.growth([20], runs=2, maxfollows=10, least=3)
    rows = parse_table(output)
    assert list(rows) == [*OPERATIONS, growth.SEEDING]
    for name in OPERATIONS:
        row = rows[name]
        assert float(row["20: CPU ms"]) > 0, name
        # Round trips as Server-Timing counts them: the session at least.
        assert float(row["20: trips"]) >= 1, name
        shares = [float(row[f"{layer} %"]) for layer in growth.layers.LAYERS]
        assert 98 <= sum(shares) <= 102, (name, shares)  # rounded per cent
    # Background work is the tasks' alone: no request, so no middleware.
    assert rows["a like's background work"]["middleware %"] == "0"
    seeding = rows[growth.SEEDING]
    assert float(seeding["20: CPU ms"]) > 0
    assert int(seeding["20: trips"].replace(",", "")) > 0
    assert output.count("floor: ") == 2  # its row, and the line saying what it is
    assert "at 20 users. Every page's figure includes it" in output
    assert "noise: 20 users: load" in output
    assert "layers: this thread's CPU by layer at 20 users" in output


def test_arguments_are_checked():
    assert growth.parse_args(["--users", "150,1500", "--runs", "3"]).users == [150, 1500]
    for argv in (["--users", "ten"], ["--users", "5"], ["--runs", "0"]):
        with pytest.raises(SystemExit):
            growth.parse_args(argv)
