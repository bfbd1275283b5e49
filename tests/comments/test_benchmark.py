"""The comments benchmark stays runnable (tiny sizes; timings are not checked)."""

import pytest

from benchmarks import comments as bench


def test_benchmark_smoke_run(capsys):
    argv = ["--comments", "30", "--reads", "2", "--deep-page", "2", "--threads-depth", "4"]
    assert bench.main([*argv, "--wipe"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("store "))
    assert [cell.strip() for cell in header.split("|")] == list(bench.HEADER)
    rows = {
        line.split("|")[0].strip(): [cell.strip() for cell in line.split("|")]
        for line in lines
        if line.split("|")[0].strip() in bench.STORE_NAMES
    }
    assert set(rows) == set(bench.STORE_NAMES)
    column = {name: i for i, name in enumerate(bench.HEADER)}
    assert rows["documents"][column["docs/discussion"]] == "30"
    assert rows["embedded"][column["docs/discussion"]] == "1"
    assert rows["buckets"][column["order"]] == "oldest"
    assert rows["documents"][column["order"]] == "threaded"
    # A page of a keyset store costs one round trip, at page 1 and deeper.
    assert rows["documents"][column["trips/page 1"]] == "1.0"
    assert rows["documents"][column["trips/deep"]] == "1.0"
    assert rows["embedded"][column["deep page"]] == "1"  # 30 comments: one page of 50


def test_arguments_are_checked():
    for argv in (["--stores", "nope"], ["--comments", "0"], ["--replies", "2"]):
        with pytest.raises(SystemExit):
            bench.parse_args(argv)
