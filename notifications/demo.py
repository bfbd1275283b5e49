"""Demo notifications: the demo graph is bulk-inserted (no follow events), so
alice, who is signed in first, hears of her newest followers. Posts on walls
already told their owners through `post_create`."""

from typing import TYPE_CHECKING

from notifications.services import notify
from profiles.selectors import followers_since
from socialsite.demo import Seeding

if TYPE_CHECKING:
    from django.core.management.base import OutputWrapper

NEWEST_FOLLOWERS = 8


def seed_more(*, handles: list[str], seed: int, stdout: "OutputWrapper | None" = None) -> None:
    if "alice" not in handles:
        return
    rows = followers_since("alice")
    by_time = sorted(rows, key=lambda row: (row.get("since") is not None, row.get("since")))
    followers = [row["_t"] for row in by_time][-NEWEST_FOLLOWERS:]
    for follower in followers:  # oldest first, so the newest is on top
        notify(recipient="alice", kind="follow", actor=follower)
    if stdout:
        stdout.write(f"  {len(followers)} follow notifications for alice")


def seed_stage(seeding: Seeding) -> None:
    """seed_demo's stage for this app (socialsite/demo.py)."""
    seed_more(handles=seeding.handles, seed=seeding.seed, stdout=seeding.stdout)
