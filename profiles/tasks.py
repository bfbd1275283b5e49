from bson import ObjectId
from django.tasks import task

from socialsite.durable import durable_task


@task
def erase_account(handle: str) -> None:
    from profiles.services.erasure import erasure_run

    erasure_run(handle)


@task
def build_export(export_id: str) -> None:
    from profiles.services.exports import export_build

    export_build(ObjectId(export_id))


@durable_task
def password_reset_send(address: str, site: str) -> int:
    from profiles.services.recovery import password_reset_send

    return password_reset_send(address=address, site=site)
