"""The ads benchmark stays runnable (tiny sizes; timings are not checked)."""

import pytest

from benchmarks import ads as bench


def _rows(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("ads in zone "))
    header = [cell.strip() for cell in lines[start].split("|")]
    assert header == list(bench.HEADER)
    return [
        [cell.strip() for cell in line.split("|")] for line in lines[start + 2 :] if "|" in line
    ]


def test_benchmark_smoke_run(capsys):
    argv = ["--sizes", "3,12", "--decisions", "20", "--viewers", "2", "--wipe"]
    assert bench.main(argv) == 0
    rows = _rows(capsys.readouterr().out)
    column = {name: i for i, name in enumerate(bench.HEADER)}
    assert [(r[0], r[1], r[2]) for r in rows] == [
        (size, words, caps)
        for size in ("3", "12")
        for words, caps in (("no", "no"), ("yes", "no"), ("no", "2/24h"), ("yes", "2/24h"))
    ]
    for row in rows:
        # Two reads a decision (zone, viewer), whatever the zone's size.
        assert row[column["reads/decision"]] == "2.0", row
    uncapped = [r for r in rows if r[2] == "no"]
    assert {r[column["trips/decision"]] for r in uncapped} == {"5.0"}
    assert {r[column["ads/decision"]] for r in uncapped} == {"1.00"}
    # Three capped ads, two impressions each, for two viewers of ten decisions:
    # 12 of 20 decisions are served, then the zone falls through to none.
    small_capped = [r for r in rows if r[0] == "3" and r[2] != "no"]
    assert {r[column["ads/decision"]] for r in small_capped} == {"0.60"}
    large_capped = [r for r in rows if r[0] == "12" and r[2] != "no"]
    assert {r[column["ads/decision"]] for r in large_capped} == {"1.00"}


def test_arguments_are_checked():
    for argv in (["--sizes", "ten"], ["--sizes", "0"], ["--n", "11"], ["--decisions", "0"]):
        with pytest.raises(SystemExit):
            bench.parse_args(argv)
