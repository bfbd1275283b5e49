"""Federation's background work (docs/federation.md#delivery). The
deliveries' documents are their marks (federation/delivery.py): a lost run
is found by the sweeper, so the task itself needs no mark of its own."""

from django.tasks import task

from federation import sending


@task
def send_deliveries(delivery_ids: list[str]) -> dict[str, int]:
    return sending.send(delivery_ids)
