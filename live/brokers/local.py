"""The one-process transport: an event goes straight to this process's hub.

The embedded demo's (one process serves pages, tasks and streams). A
worker process of its own (RQ) would publish into a hub nobody listens
to: with workers, use the Redis transport (docs/live.md#serving).
"""

from live.broker import Event, Hub, hub


class LocalTransport:
    def publish(self, event: Event) -> None:
        hub().deliver(event)

    def listen(self, hub: Hub) -> None:
        """Nothing to listen to: every event is this process's own."""

    def publish_many(self, events: list[Event]) -> None:
        hub().deliver_many(events)
