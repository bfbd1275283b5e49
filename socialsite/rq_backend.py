"""A django.tasks backend that queues tasks in Redis for RQ workers.

Why our own: the Tasks API we use is Django's built-in `django.tasks`
(Django 6). The `django-tasks-rq` package on PyPI plugs into the older
`django_tasks` backport, whose classes `django.tasks` does not accept, so
this module is the small bridge: `enqueue()` puts an RQ job in Redis, and a
worker (`manage.py run_worker`) runs it with `run_task()`.

    TASKS = {"default": {
        "BACKEND": "socialsite.rq_backend.RQBackend",
        "OPTIONS": {"REDIS_URL": "redis://127.0.0.1:6379/0", "QUEUE": "default"},
    }}

Every task goes to the one RQ queue named by QUEUE; Django's queue names are
checked against QUEUES as usual. Arguments cross the queue as JSON-like values
(`TaskResult` normalizes them), so tasks take strings, numbers, lists, dicts.
"""

from django.tasks.backends.base import BaseTaskBackend
from django.tasks.base import Task, TaskError, TaskResult, TaskResultStatus
from django.tasks.exceptions import TaskResultDoesNotExist
from django.tasks.signals import task_enqueued
from django.utils.module_loading import import_string
from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from socialsite.logging import task_run

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

STATUSES = {
    JobStatus.QUEUED: TaskResultStatus.READY,
    JobStatus.DEFERRED: TaskResultStatus.READY,
    JobStatus.SCHEDULED: TaskResultStatus.READY,
    JobStatus.STARTED: TaskResultStatus.RUNNING,
    JobStatus.FINISHED: TaskResultStatus.SUCCESSFUL,
    JobStatus.FAILED: TaskResultStatus.FAILED,
    JobStatus.STOPPED: TaskResultStatus.FAILED,
    JobStatus.CANCELED: TaskResultStatus.FAILED,
}


def run_task(module_path: str, args: list, kwargs: dict) -> object:
    """What the RQ job calls in the worker: import the task and run it."""
    task = import_string(module_path)
    if not isinstance(task, Task):
        raise TypeError(f"{module_path!r} is not a django.tasks Task")
    # Calling the task directly sends no task_finished signal: log its line here.
    with task_run(module_path):
        return task.call(*args, **kwargs)


class RQBackend(BaseTaskBackend):
    # A task with `run_after` waits in RQ's scheduled registry; the worker's
    # scheduler (`manage.py run_worker`) queues it when due.
    supports_defer = True
    supports_async_task = False
    supports_get_result = True
    supports_priority = False

    def __init__(self, alias: str, params: dict[str, object]) -> None:
        super().__init__(alias, params)
        self.redis_url = self.options.get("REDIS_URL", DEFAULT_REDIS_URL)
        self.queue_name = self.options.get("QUEUE", "default")
        self._connection: Redis | None = None

    @property
    def connection(self) -> Redis:
        if self._connection is None:
            self._connection = Redis.from_url(self.redis_url)
        return self._connection

    def queue(self) -> Queue:
        return Queue(self.queue_name, connection=self.connection)

    def enqueue(
        self, task: Task, args: tuple[object, ...], kwargs: dict[str, object]
    ) -> TaskResult:
        self.validate_task(task)
        result = TaskResult(
            task=task,
            id="",  # set from the job below
            status=TaskResultStatus.READY,
            enqueued_at=None,
            started_at=None,
            last_attempted_at=None,
            finished_at=None,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=[],
            worker_ids=[],
        )
        call = (task.module_path, result.args, result.kwargs)
        if task.run_after is not None:
            job = self.queue().enqueue_at(
                task.run_after, run_task, *call, description=task.module_path
            )
        else:
            job = self.queue().enqueue_call(func=run_task, args=call, description=task.module_path)
        object.__setattr__(result, "id", job.id)
        object.__setattr__(result, "enqueued_at", job.enqueued_at)
        task_enqueued.send(type(self), task_result=result)
        return result

    def get_result(self, result_id: str) -> TaskResult:
        try:
            job = Job.fetch(result_id, connection=self.connection)
        except NoSuchJobError as exc:
            raise TaskResultDoesNotExist(result_id) from exc
        module_path, args, kwargs = job.args
        status = STATUSES.get(job.get_status(), TaskResultStatus.READY)
        errors = []
        latest = job.latest_result()
        if status == TaskResultStatus.FAILED and latest is not None:
            errors.append(_task_error(latest.exc_string or ""))
        result = TaskResult(
            task=import_string(module_path),
            id=job.id,
            status=status,
            enqueued_at=job.enqueued_at,
            started_at=job.started_at,
            last_attempted_at=job.started_at,
            finished_at=job.ended_at,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=errors,
            worker_ids=[job.worker_name] if job.worker_name else [],
        )
        if status == TaskResultStatus.SUCCESSFUL:
            object.__setattr__(result, "_return_value", job.return_value())
        return result


def _task_error(traceback: str) -> TaskError:
    # RQ keeps the formatted traceback only; its last line names the exception.
    last = traceback.strip().splitlines()[-1] if traceback.strip() else "Exception"
    name = last.split(":", 1)[0].strip()
    path = name if "." in name else f"builtins.{name}"
    return TaskError(exception_class_path=path, traceback=traceback)
