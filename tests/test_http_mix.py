"""benchmarks/http_mix.py: it starts the demo server, drives every operation of
the mix over HTTP and prints a table that parses, with no server errors."""

import pytest

from benchmarks import http_mix

pytestmark = pytest.mark.no_test_db(
    reason="the demo server runs in a subprocess on its own demo database"
)


def parse_table(output: str) -> dict[str, dict[str, str]]:
    lines = [line for line in output.splitlines() if " | " in line]
    header = [cell.strip() for cell in lines[0].split(" | ")]
    rows = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.split(" | ")]
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def test_a_short_run_drives_every_operation_without_errors(capsys, monkeypatch):
    monkeypatch.setenv("MONGODB_URI", "")  # the demo database, never a real server
    # A small world's feeds are short: small pages give the scrolls a next page.
    monkeypatch.setenv("FEED_PAGE_SIZE", "5")
    runs = []

    def run_mix(args, url):
        drivers, seconds = real_run_mix(args, url)
        runs.append(drivers)
        return drivers, seconds

    real_run_mix = http_mix.run_mix
    monkeypatch.setattr(http_mix, "run_mix", run_mix)
    argv = ["--users", "20", "--seconds", "3", "--threads", "2", "--sessions", "2"]
    assert http_mix.main([*argv, "--cpu-seconds", "0.5"]) == 0
    output, cpu = capsys.readouterr().out.split("server CPU per operation")
    rows = parse_table(output)
    assert list(rows) == [*(name for name, _ in http_mix.MIX), "login (untimed)"]
    for name, row in rows.items():
        assert int(row["count"].replace(",", "")) > 0, f"{name} never ran"
        assert row["5xx"] == "0", f"{name} failed on the server"
        assert row["4xx"] == "0", f"{name} was refused"
        assert float(row["p50 ms"]) <= float(row["p99 ms"])
        # Server-Timing (docs/developer-lens.md) gives round trips for every page.
        assert float(row["trips/op"]) >= 1
    assert rows["read"]["ops/s"] != "-"
    seeding = output.splitlines()[0]
    assert "20 demo users" in seeding
    assert "seeding: -" not in seeding  # the server's start line was found
    assert "all operations:" in output
    assert "/healthz, 200 on one keep-alive connection: p50" in output
    # Each POST's redirect was followed as a browser follows it: the page it
    # led to answered, and showed (so consumed) the flash message the POST
    # left, so no session carries a messages cookie growing with each form.
    (drivers,) = runs
    forms = ("send", "follow", "unfollow")
    posts = [s for d in drivers for name in forms for s in d.samples[name]]
    assert posts and all(s.status == 302 and s.followed == 200 for s in posts)
    for session in (session for d in drivers for session in d.sessions):
        assert "messages" not in session.cookies, session.handle
    # Then each operation alone: the server's CPU per operation, and the
    # ceiling of one process that makes.
    costs = parse_table(cpu)
    assert list(costs) == [name for name, _ in http_mix.MIX]
    for name, row in costs.items():
        assert int(row["count"].replace(",", "")) > 0, f"{name} never ran alone"
        assert float(row["CPU ms/op"]) > 0, name
