"""Sweepers that run by themselves (docs/operations.md#sweepers-run-by-themselves):
every app's are registered, each runs once per period however many
processes run the loop, a failing one neither stops the others nor goes
unrecorded, and the thread backend's worker runs them with no command."""

import threading
import time
from datetime import timedelta

import pytest
from django.test import Client

from feeds.documents import Post
from profiles import services as graph
from socialsite import periodic
from socialsite.clock import now
from socialsite.documents import PeriodicJob
from socialsite.thread_backend import ThreadBackend
from tests.feeds.test_commands import delivery_state, news_ids, stuck_post


@pytest.fixture
def only(monkeypatch):
    """Replace the registered jobs with the test's own."""
    monkeypatch.setattr(periodic, "_jobs", {})
    return periodic.register


def _make_due(name: str) -> None:
    PeriodicJob._get_collection().update_one(
        {"_id": name}, {"$set": {"due": now() - timedelta(seconds=1)}}
    )


def test_every_apps_sweepers_are_registered():
    assert {job.name for job in periodic.jobs()} >= {
        "feeds.pending",
        "profiles.accounts",
        "profiles.graph",
        "moderation.suspensions",
        "ads.pacing",
    }


def test_a_job_runs_once_a_period_whatever_runs_the_loop(only, settings):
    settings.TASKS_SWEEP_SECONDS = 60
    runs = []
    only("count", lambda: runs.append(1) or "counted")
    assert periodic.run_due(owner="web-1") == ["count"]
    assert periodic.run_due(owner="web-2") == []  # another process, same period
    _make_due("count")  # a period later
    assert periodic.run_due(owner="web-2") == ["count"]
    assert len(runs) == 2
    row = PeriodicJob._get_collection().find_one({"_id": "count"})
    assert row["owner"] == "web-2" and row["outcome"] == "counted" and row["error"] == ""


def test_a_failing_job_is_recorded_and_the_others_still_run(only, caplog):
    ran = []

    def broken():
        raise RuntimeError("the disk is full")

    only("a.broken", broken)
    only("b.fine", lambda: ran.append(1) or "")
    assert periodic.run_due(owner="web") == ["a.broken", "b.fine"]
    assert ran == [1] and "periodic job a.broken failed" in caplog.text
    health = periodic.health()
    assert health["a.broken"]["error"] == "RuntimeError: the disk is full"
    assert health["b.fine"] == {"age": 0, "error": ""}


def test_a_parallel_burst_of_loops_runs_a_job_once(only, settings):
    settings.TASKS_SWEEP_SECONDS = 60
    runs = []
    only("once", lambda: runs.append(1) or "")
    start = threading.Barrier(8)

    def loop(i):
        start.wait()
        periodic.run_due(owner=f"web-{i}")

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert runs == [1]


def test_the_thread_backends_worker_runs_them_with_no_command(only, settings):
    settings.TASKS_SWEEP_SECONDS = 0.2
    runs = []
    only("tick", lambda: runs.append(1) or "")
    backend = ThreadBackend("sweeping", {})
    backend.start_sweeping()
    try:
        deadline = time.monotonic() + 10
        while len(runs) < 2 and time.monotonic() < deadline:
            _make_due("tick")
            time.sleep(0.05)
    finally:
        backend.stop_sweeping()  # no loop left running into the next tests
    assert len(runs) >= 2
    time.sleep(0.1)  # a run in flight when it stopped
    done = len(runs)
    _make_due("tick")
    time.sleep(0.5)
    assert len(runs) == done


def test_a_stuck_post_reaches_its_followers_without_a_command(settings, make_user):
    """What a killed process leaves: a post still `pending` an hour later is
    delivered by the loop's sweeper (the real registered jobs)."""
    settings.FEED_MODEL = "cache"
    make_user("ada")
    bob = make_user("bob")
    graph.follow_create(follower=bob, followee="ada")
    old = stuck_post("ada", queued_ago=timedelta(hours=1))
    assert "feeds.pending" in periodic.run_due(owner="web")
    assert delivery_state(old) == "done" and news_ids("bob") == [old.id]
    assert Post.objects(id=old.id).count() == 1


def test_healthz_shows_each_sweepers_last_run(only, monkeypatch):
    monkeypatch.setattr("socialsite.indexes.health", lambda: "ok")  # not what is tested
    only("feeds.pending", lambda: "")
    periodic.run_due(owner="web")
    body = Client().get("/healthz").json()
    # Seconds since it started: 0, or 1 on a loaded machine.
    assert body["sweeps"]["feeds.pending"]["age"] <= 2
    assert body["sweeps"]["feeds.pending"]["error"] == ""
