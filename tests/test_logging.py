"""JSON log lines: one per request, one per task run, and none with a
traceback for a refused request. Read from the handler settings.LOGGING
configures, so the formatter and filter under test are the real ones."""

import json
import logging
import sys
from io import StringIO

import pytest
from bson.errors import InvalidId
from django.test import Client

from comments import tasks as comment_tasks
from socialsite import rq_backend
from socialsite.logging import JsonFormatter, RefusedRequestFilter
from tests.moderation.conftest import new_post


class Capture:
    def __init__(self):
        self.stream = StringIO()

    def __call__(self) -> list[dict]:
        """Every line since the last reset, parsed: each one must be JSON."""
        return [json.loads(line) for line in self.stream.getvalue().splitlines()]

    def reset(self) -> None:
        self.stream.seek(0)
        self.stream.truncate()


@pytest.fixture
def log_lines():
    """The console handler's output from here on (`log_lines.reset()` to skip the set-up)."""
    [handler] = [h for h in logging.getLogger().handlers if isinstance(h.formatter, JsonFormatter)]
    capture = Capture()
    previous = handler.setStream(capture.stream)
    yield capture
    handler.setStream(previous)


def requests(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line["event"] == "request"]


def test_one_line_per_request_with_its_fields(make_user, login, log_lines, round_trips):
    make_user("ada")
    bob = login(make_user("bob"))
    log_lines.reset()
    with round_trips() as trips:
        response = bob.get("/u/ada/")
    [line] = requests(log_lines())
    assert line["method"] == "GET"
    assert line["path"] == "/u/ada/"
    assert line["status"] == 200
    assert isinstance(line["ms"], float) and line["ms"] >= 0
    # The middleware's count and a count around the request agree.
    assert line["round_trips"] == trips.total > 0
    assert line["user"] == "bob"
    assert line["level"] == "info" and line["logger"] == "socialsite.requests"
    assert line["request_id"] == response["X-Request-ID"]


def test_an_anonymous_request_has_no_user(log_lines):
    Client().get("/accounts/login/?next=%2Ffeed%2F")
    [line] = requests(log_lines())
    assert line["user"] is None
    assert line["path"] == "/accounts/login/"  # no query string: it may carry tokens


def test_each_request_gets_its_own_line_and_id(make_user, login, log_lines):
    bob = login(make_user("bob"))
    log_lines.reset()
    bob.get("/feed/")
    bob.post("/accounts/logout/")
    first, second = requests(log_lines())
    assert (first["method"], first["path"], first["status"]) == ("GET", "/feed/", 200)
    assert (second["method"], second["path"], second["status"]) == (
        "POST",
        "/accounts/logout/",
        302,
    )
    assert first["request_id"] != second["request_id"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/no/such/page/", 404),
        ("get", "/posts/000000000000000000000000/", 404),  # Http404 raised by a view
        ("get", "/mod/", 403),  # PermissionDenied: Django logs its traceback
        ("put", "/report/", 405),  # require_POST (a GET is sent to the home page)
    ],
)
def test_a_refused_request_logs_one_line_and_no_traceback(
    method, path, status, make_user, login, log_lines
):
    bob = login(make_user("bob"))
    log_lines.reset()
    response = getattr(bob, method)(path)
    assert response.status_code == status
    lines = log_lines()
    assert len(lines) == 1
    [line] = lines
    assert (line["event"], line["path"], line["status"]) == ("request", path, status)
    assert line["level"] == "info"
    assert "exception" not in line and "Traceback" not in json.dumps(line)


def test_a_bad_host_logs_the_security_event_without_traceback(log_lines):
    response = Client(HTTP_HOST="evil.example").get("/")
    assert response.status_code == 400
    lines = log_lines()
    [request] = requests(lines)
    assert request["status"] == 400
    [security] = [line for line in lines if line["logger"] == "django.security.DisallowedHost"]
    assert "evil.example" in security["event"]
    assert all("exception" not in line for line in lines)


def test_server_errors_keep_their_traceback():
    def record(name, status):
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            exc_info = sys.exc_info()
        rec = logging.LogRecord(name, logging.ERROR, __file__, 1, "failed", (), exc_info)
        rec.status_code = status
        return rec

    refused = RefusedRequestFilter()
    failed = record("django.request", 500)
    assert refused.filter(failed) and failed.exc_info is not None
    line = json.loads(JsonFormatter().format(failed))
    assert "RuntimeError: boom" in line["exception"]
    assert "\n" not in JsonFormatter().format(failed)  # still one line
    assert not refused.filter(record("django.request", 404))


def test_a_task_run_in_a_request_logs_its_line(make_user, login, log_lines):
    ada = make_user("ada")
    post = new_post(ada)
    bob = login(make_user("bob"))
    log_lines.reset()
    response = bob.post(f"/posts/{post.id}/comments/", {"text": "hi"})
    assert response.status_code == 302
    lines = log_lines()
    tasks = {line["task"]: line for line in lines if line["event"] == "task"}
    # The summary refresh and the post author's notification, each a line.
    assert set(tasks) == {
        "comments.tasks.refresh_summary",
        "notifications.tasks.tell_comment_created",
    }
    task = tasks["comments.tasks.refresh_summary"]
    assert task["outcome"] == "successful"
    assert isinstance(task["ms"], float)
    assert task["logger"] == "socialsite.tasks"
    [request] = requests(lines)
    assert task["request_id"] == request["request_id"]  # which request ran it


def test_a_failed_task_logs_failed(log_lines):
    comment_tasks.refresh_summary.enqueue("not-an-object-id")
    [task] = [line for line in log_lines() if line["event"] == "task"]
    assert (task["task"], task["outcome"], task["level"]) == (
        "comments.tasks.refresh_summary",
        "failed",
        "error",
    )


def test_the_rq_worker_logs_the_same_task_line(make_user, log_lines):
    post = new_post(make_user("ada"))
    log_lines.reset()
    rq_backend.run_task("comments.tasks.refresh_summary", [str(post.id)], {})
    with pytest.raises(InvalidId):
        rq_backend.run_task("comments.tasks.refresh_summary", ["not-an-object-id"], {})
    tasks = [line for line in log_lines() if line["event"] == "task"]
    assert [(t["task"], t["outcome"]) for t in tasks] == [
        ("comments.tasks.refresh_summary", "successful"),
        ("comments.tasks.refresh_summary", "failed"),
    ]
