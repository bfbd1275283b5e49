"""The "thread" task backend (socialsite/thread_backend.py): `enqueue`
returns at once and a worker thread of this process runs the tasks in order,
with the immediate backend's lifecycle, signals and log lines."""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.tasks import task, task_backends
from django.tasks.base import TaskResultStatus
from django.tasks.exceptions import TaskResultDoesNotExist

from socialsite import thread_backend

ROOT = Path(__file__).resolve().parents[2]
THREAD = {"default": {"BACKEND": "socialsite.thread_backend.ThreadBackend"}}
ran: list[tuple[str, str]] = []
gate = threading.Event()


@task
def remember(value: str) -> str:
    ran.append((value, threading.current_thread().name))
    return value.upper()


@task
def wait_for_the_gate() -> None:
    gate.wait(10)


@task
def explode() -> None:
    raise RuntimeError("boom")


@pytest.fixture
def backend(settings):
    settings.TASKS = THREAD
    ran.clear()
    gate.clear()
    yield task_backends["default"]
    gate.set()
    assert task_backends["default"].wait_idle(10)


def test_enqueue_returns_before_the_task_runs_on_the_worker_thread(backend):
    blocker = wait_for_the_gate.enqueue()
    result = remember.enqueue("hello")
    assert result.status == TaskResultStatus.READY and ran == []
    assert backend.pending == 2
    gate.set()
    assert backend.wait_idle(10)
    assert ran == [("hello", "tasks-default")]
    assert blocker.status == TaskResultStatus.SUCCESSFUL
    stored = backend.get_result(result.id)
    assert stored.status == TaskResultStatus.SUCCESSFUL
    assert stored.return_value == "HELLO" and stored.worker_ids == [backend.worker_id]
    assert stored.started_at is not None and stored.finished_at is not None


def test_every_request_thread_of_a_process_shares_one_queue_and_worker(backend):
    """Django keeps a task backend per thread (per request under ASGI): here
    that would be a queue, a worker and a sweeper loop per request thread."""
    seen = []
    others = [
        threading.Thread(target=lambda: seen.append(task_backends["default"])) for _ in range(3)
    ]
    for thread in others:
        thread.start()
    for thread in others:
        thread.join()
    assert all(other is backend for other in seen)


def test_tasks_run_in_the_order_they_were_queued(backend):
    for value in "abcde":
        remember.enqueue(value)
    assert backend.wait_idle(10)
    assert [value for value, _ in ran] == list("abcde")


def test_a_deferred_task_waits_beside_the_queue_and_runs_when_due(backend):
    from datetime import UTC, datetime, timedelta

    later = remember.using(run_after=datetime.now(UTC) + timedelta(seconds=0.3))
    later.enqueue("later")
    remember.enqueue("now")
    assert backend.pending >= 2  # the deferred one counts, though not queued
    deadline = time.monotonic() + 10
    while not ran and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [value for value, _ in ran] == ["now"]  # not held up behind it
    assert backend.wait_idle(10)  # waits for the deferred task too
    assert [value for value, _ in ran] == ["now", "later"]


def test_a_failing_task_is_recorded_and_the_worker_goes_on(backend, caplog):
    failed = explode.enqueue()
    after = remember.enqueue("still running")
    assert backend.wait_idle(10)
    result = backend.get_result(failed.id)
    assert result.status == TaskResultStatus.FAILED
    [error] = result.errors
    assert error.exception_class_path == "builtins.RuntimeError"
    assert "boom" in error.traceback
    assert backend.get_result(after.id).status == TaskResultStatus.SUCCESSFUL
    assert "task tests.socialsite.test_thread_backend.explode failed: boom" in caplog.text


def test_an_unknown_result_does_not_exist(backend):
    with pytest.raises(TaskResultDoesNotExist):
        backend.get_result("nope")


def test_only_the_latest_results_are_kept(backend, monkeypatch):
    monkeypatch.setattr(thread_backend, "RESULTS_KEPT", 3)
    results = [remember.enqueue(str(i)) for i in range(5)]
    assert backend.wait_idle(10)
    with pytest.raises(TaskResultDoesNotExist):
        backend.get_result(results[0].id)
    assert backend.get_result(results[-1].id).return_value == "4"


def test_a_forked_process_starts_its_own_worker_and_queue(backend, monkeypatch):
    remember.enqueue("parent")
    assert backend.wait_idle(10)
    parent_thread, parent_queue = backend._thread, backend._queue
    # As after a fork: another pid, the parent's objects inherited.
    monkeypatch.setattr(os, "getpid", lambda: -1)
    remember.enqueue("child")
    assert backend.wait_idle(10)
    assert backend._thread is not parent_thread and backend._queue is not parent_queue
    assert [value for value, _ in ran] == ["parent", "child"]


def test_healthz_shows_the_backlog(backend, client):
    wait_for_the_gate.enqueue()
    remember.enqueue("queued")
    assert client.get("/healthz").json()["tasks_pending"] == 2
    gate.set()
    assert backend.wait_idle(10)
    assert client.get("/healthz").json()["tasks_pending"] == 0


@task
def write_after_a_while(path: str) -> None:
    time.sleep(0.3)
    Path(path).write_text("ran")


@pytest.mark.no_test_db(reason="the process that enqueues runs as a subprocess")
def test_a_process_that_ends_first_runs_what_it_queued(tmp_path):
    """A management command from cron queues its tasks and exits: they run
    before the process ends, not never."""
    out = tmp_path / "ran.txt"
    script = (
        "import django, sys; django.setup();"
        "from tests.socialsite.test_thread_backend import write_after_a_while;"
        f"write_after_a_while.enqueue({str(out)!r})"
    )
    env = {**os.environ, "TASKS_BACKEND": "thread", "MONGODB_URI": "", "MONGODB_TEST_URI": ""}
    env["DEBUG"] = "true"  # a development key, no production checks
    env["DJANGO_SETTINGS_MODULE"] = "socialsite.settings"
    finished = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, timeout=60
    )
    assert finished.returncode == 0, finished.stderr.decode()[-2000:]
    assert out.read_text() == "ran"
