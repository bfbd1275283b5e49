"""Moderation's collections in the owner registry (socialsite/owners.py)."""

from moderation import selectors
from moderation.services import erasure
from socialsite import owners

APP = "moderation"

owners.owned("report", app=APP, fields=("reporter", "target_id"), erase=erasure.reports_erase)
owners.owned(
    "report_item",
    app=APP,
    fields=("author", "target_id", "resolved_by", "excerpt", "mentions"),
    why="erased with `report`: items follow their reports",
)
owners.owned(
    "audit_log",
    app=APP,
    fields=("moderator", "target_id"),
    why="kept: the moderation record outlives the accounts it names",
)
owners.exported("reports", app=APP, export=selectors.reports_export)
