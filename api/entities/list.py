"""The List entity (docs.joinmastodon.org/entities/List): one of the
reader's circles (docs/api.md#lists)."""


def list_entity(list_id: str, circle: str) -> dict:
    """A circle as a List. A circle shows its members' posts to the owner
    with no reply rules of its own, and never hides them from home:
    `replies_policy` is `list` and `exclusive` false."""
    return {"id": list_id, "title": circle, "replies_policy": "list", "exclusive": False}
