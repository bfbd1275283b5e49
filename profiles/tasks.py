"""Background work of the profiles app, on Django's Tasks API (see
timelines/tasks.py). The services that queue these tasks import this module
(profiles/services/erasure.py, exports.py); what the tasks run lives in
modules that do not (erasure_walk.py, export_zip.py, recovery.py), so
nothing here is imported back. The tasks keep their dotted paths: a queue
(RQ, the task marks) may hold runs under them."""

from bson import ObjectId
from django.tasks import task

from profiles.services import recovery
from profiles.services.erasure_walk import erasure_run
from profiles.services.export_zip import export_build
from socialsite.durable import durable_task


@task
def erase_account(handle: str) -> None:
    erasure_run(handle)


@task
def build_export(export_id: str) -> None:
    export_build(ObjectId(export_id))


@durable_task
def password_reset_send(address: str, site: str) -> int:
    return recovery.password_reset_send(address=address, site=site)
