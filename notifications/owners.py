"""Notifications in the owner registry (socialsite/owners.py)."""

from notifications import selectors, services
from socialsite import owners

APP = "notifications"

owners.owned(
    "notification_buckets",
    app=APP,
    fields=("owner", "items.actor", "items.actors", "items.actor_name"),
    erase=services.notifications_erase,
)
owners.exported("notifications", app=APP, export=selectors.notifications_export)
