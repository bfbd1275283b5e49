"""The MediaAttachment entity (docs.joinmastodon.org/entities/MediaAttachment):
a photo post's photo, or an upload before a status takes it (docs/api.md#media)."""

from django.urls import reverse


def media_attachment(post: dict, base: str) -> dict:
    """A photo post's photo as a MediaAttachment (its id: the post's)."""
    detail = post.get("detail") or {}
    post_hex = str(post["_id"])
    width, height = detail.get("width"), detail.get("height")
    original = (
        {"width": width, "height": height, "size": f"{width}x{height}", "aspect": width / height}
        if width and height
        else {}
    )
    return media_entity(
        media_id=post_hex,
        url=base + reverse("feeds:photo", args=[post_hex]),
        preview_url=base + reverse("feeds:thumb", args=[post_hex]),
        description=detail.get("alt") or None,
        meta={"original": original} if original else {},
    )


def media_entity(
    *, media_id: str, url: str | None, preview_url: str | None, description: str | None, meta: dict
) -> dict:
    return {
        "id": media_id,
        "type": "image",
        "url": url,
        "preview_url": preview_url,
        "remote_url": None,
        "meta": meta,
        "description": description,
        "blurhash": None,
    }
