"""The Poll entity (docs.joinmastodon.org/entities/Poll): a poll post's
poll, its id the post's, shown as the post page shows it (docs/api.md#polls)."""

from api.entities.dates import iso
from feeds.selectors import polls


def poll_entity(post: dict, choice: int | None, viewer_handle: str | None) -> dict:
    """The Poll of a poll post (its id: the post's), as `viewer_handle` may
    see it: counts only where the page shows them (feeds/selectors/polls.py)."""
    results = polls.poll_results(post, viewer_handle, choice=choice)
    return {
        "id": str(post["_id"]),
        "expires_at": iso(results["expires"]),
        "expired": results["expired"],
        "multiple": False,
        "votes_count": results["total"],
        "voters_count": results["total"],
        "options": [
            {"title": option["label"], "votes_count": option.get("count")}
            for option in results["options"]
        ],
        "emojis": [],
        "voted": results["voted"] if viewer_handle else None,
        "own_votes": [results["choice"]] if results["choice"] is not None else [],
    }
