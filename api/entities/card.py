"""The PreviewCard entity (docs.joinmastodon.org/entities/PreviewCard): a
link post's link (docs/api.md#statuses)."""


def preview_card(post: dict) -> dict | None:
    """A link post's link as a PreviewCard (we fetch nothing from it)."""
    detail = post.get("detail") or {}
    if post.get("type") != "link" or not detail.get("url"):
        return None
    return {
        "url": detail["url"],
        "title": detail.get("title") or detail["url"],
        "description": "",
        "type": "link",
        "authors": [],
        "author_name": "",
        "author_url": "",
        "provider_name": "",
        "provider_url": "",
        "html": "",
        "width": 0,
        "height": 0,
        "image": None,
        "embed_url": "",
        "blurhash": None,
    }
