"""Photo uploads: validate, re-encode and store in GridFS.

Uploads are untrusted bytes. We never store or serve them as sent: each one is
decoded by Pillow (only the JPEG, PNG and WebP decoders are allowed to look at
it), checked against size and pixel limits before it is decoded, turned
upright from its EXIF orientation, scaled down and encoded afresh. Re-encoding
drops every piece of metadata (EXIF with GPS position, XMP, comments) and any
payload smuggled after the image data.

The processed image and its thumbnail go to GridFS (bucket "photos") so that
photos live in the same database as the posts that link to them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gridfs
from bson import ObjectId
from django.conf import settings
from mongoengine.connection import get_db
from PIL import Image, ImageCms, ImageOps

from socialsite.documents import orphan_chunks_delete

# Pillow format name -> the content type we serve it with.
FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
MAX_SIDE = 2048
THUMB_SIDE = 480
JPEG_QUALITY = 85
WEBP_QUALITY = 85
BUCKET = "photos"
# 25 megapixels (PHOTO_MAX_PIXELS): more than a phone camera's usual output,
# and a bound on the memory one upload can make us allocate: a decoded RGB
# canvas costs 3 bytes a pixel, and a decompression bomb is a small file that
# declares a huge one. Checked on the header, before any pixel is decoded.
DEFAULT_MAX_PIXELS = 25_000_000
DEFAULT_MAX_BYTES = 5 * 1024 * 1024


class PhotoError(ValueError):
    """An upload we refuse; the message is shown to the user as a form error."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ProcessedPhoto:
    image: bytes
    thumb: bytes
    content_type: str
    width: int
    height: int


def max_bytes() -> int:
    return getattr(settings, "PHOTO_MAX_BYTES", DEFAULT_MAX_BYTES)


def process_upload(uploaded_file: Any) -> ProcessedPhoto:
    """Validate an uploaded file and return the re-encoded image and thumbnail."""
    data = _read_capped(uploaded_file, max_bytes())
    fmt = _verify(data)
    image = _decode(data, fmt)
    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    thumb = image.copy()
    thumb.thumbnail((THUMB_SIDE, THUMB_SIDE), Image.Resampling.LANCZOS)
    return ProcessedPhoto(
        image=_encode(image, fmt),
        thumb=_encode(thumb, fmt),
        content_type=FORMATS[fmt],
        width=image.width,
        height=image.height,
    )


def _read_capped(uploaded_file: Any, limit: int) -> bytes:
    # Django tells us the size up front; reading one byte past the limit
    # covers file objects that don't, without reading a huge file whole.
    size = getattr(uploaded_file, "size", None)
    if size is not None and size > limit:
        raise PhotoError(_too_big(limit))
    if hasattr(uploaded_file, "seek"):
        uploaded_file.seek(0)
    data = uploaded_file.read(limit + 1)
    if len(data) > limit:
        raise PhotoError(_too_big(limit))
    if not data:
        raise PhotoError("The file is empty.")
    return data


def _too_big(limit: int) -> str:
    return f"The photo is too large: the limit is {limit // (1024 * 1024)} MB."


_NOT_AN_IMAGE = "Upload a JPEG, PNG or WebP image."
_BROKEN = "The image could not be read; it may be damaged."


def max_pixels() -> int:
    return getattr(settings, "PHOTO_MAX_PIXELS", DEFAULT_MAX_PIXELS)


def _check_pixels(image: Image.Image) -> None:
    """Refuse a canvas over the limit from its header dimensions alone."""
    limit = max_pixels()
    if image.width * image.height > limit:
        raise PhotoError(
            f"The image has too many pixels: the limit is {limit / 1_000_000:g} megapixels."
        )


def _verify(data: bytes) -> str:
    """The file's format, after a structural check of the whole file."""
    try:
        with Image.open(io.BytesIO(data), formats=list(FORMATS)) as probe:
            fmt = probe.format
            # Image.open reads only the header: reject huge canvases before
            # any pixel is decoded.
            _check_pixels(probe)
            probe.verify()
    except PhotoError:
        raise
    except Image.DecompressionBombError as exc:
        raise PhotoError("The image has too many pixels.") from exc
    except Image.UnidentifiedImageError as exc:
        raise PhotoError(_NOT_AN_IMAGE) from exc
    # Decoders of hostile input fail in many ways (OSError, SyntaxError,
    # struct.error, ValueError...); each means "not a usable image".
    except Exception as exc:
        raise PhotoError(_BROKEN) from exc
    if fmt not in FORMATS:
        raise PhotoError(_NOT_AN_IMAGE)
    return fmt


def _decode(data: bytes, fmt: str) -> Image.Image:
    """Decode (verify() leaves the image unusable, so this opens it again)."""
    try:
        image: Image.Image = Image.open(io.BytesIO(data), formats=[fmt])
        _check_pixels(image)
        if fmt == "JPEG":
            # Let libjpeg decode at 1/2, 1/4 or 1/8 scale when the result is
            # still at least MAX_SIDE: far less memory and time for big photos.
            image.draft(image.mode, (MAX_SIDE, MAX_SIDE))
        image.load()
        image = ImageOps.exif_transpose(image)
        image = _to_srgb(image)
        image = _output_mode(image, fmt)
    except PhotoError:
        raise
    except Image.DecompressionBombError as exc:
        raise PhotoError("The image has too many pixels.") from exc
    except Exception as exc:
        raise PhotoError(_BROKEN) from exc
    # Nothing from the upload's metadata may reach the encoder.
    image.info = {}
    return image


def _to_srgb(image: Image.Image) -> Image.Image:
    """Bake an embedded colour profile into sRGB pixels, as we drop the profile.

    Phone photos are often Display P3; dropping the profile without converting
    would wash their colours out.
    """
    icc = image.info.get("icc_profile")
    if not icc or image.mode not in ("RGB", "RGBA"):
        return image
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        converted = ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"))
    except (ImageCms.PyCMSError, OSError, ValueError):
        return image  # an unusable profile: keep the pixels as they are
    return converted or image


def _output_mode(image: Image.Image, fmt: str) -> Image.Image:
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    if fmt == "JPEG":
        return image if image.mode in ("RGB", "L") else image.convert("RGB")
    if fmt == "PNG" and image.mode in ("1", "L", "LA", "RGB", "RGBA"):
        return image
    if fmt == "WEBP" and image.mode in ("RGB", "RGBA"):
        return image
    return image.convert("RGBA" if has_alpha else "RGB")


def _encode(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True, progressive=True)
    elif fmt == "WEBP":
        image.save(out, "WEBP", quality=WEBP_QUALITY)
    else:
        image.save(out, "PNG", optimize=True)
    return out.getvalue()


# --- storage -------------------------------------------------------------------


def _fs() -> gridfs.GridFS:
    return gridfs.GridFS(get_db(), collection=BUCKET)


def store(processed: ProcessedPhoto, owner_handle: str) -> dict:
    """Save the image and its thumbnail; returns what goes into Post.detail."""
    fs = _fs()
    meta = {"owner": owner_handle, "content_type": processed.content_type}
    photo_id = fs.put(processed.image, metadata={**meta, "kind": "photo"})
    try:
        thumb_id = fs.put(processed.thumb, metadata={**meta, "kind": "thumb"})
    except Exception:
        fs.delete(photo_id)  # no orphan half-photo
        raise
    return {
        "photo": photo_id,
        "thumb": thumb_id,
        "width": processed.width,
        "height": processed.height,
        "content_type": processed.content_type,
    }


def open_file(file_id: ObjectId | str) -> gridfs.GridOut | None:
    """The stored file (read it, or stream it in chunks), or None.

    The content type is `grid_out.metadata["content_type"]`; the upload date is
    `grid_out.upload_date`, for Last-Modified.
    """
    oid: ObjectId | None = None
    if not isinstance(file_id, str):
        oid = file_id
    elif ObjectId.is_valid(file_id):
        oid = ObjectId(file_id)
    if not isinstance(oid, ObjectId):
        return None
    try:
        return _fs().get(oid)
    except gridfs.NoFile:
        return None


def delete(detail: Mapping[str, Any]) -> None:
    """Remove a photo post's files; missing files are not an error."""
    fs = _fs()
    for key in ("photo", "thumb"):
        file_id = detail.get(key)
        if isinstance(file_id, ObjectId):
            fs.delete(file_id)


def owner_erase(handle: str, limit: int) -> int:
    """Erasure: the files still naming `handle` (`metadata.owner`, indexed by
    feeds.documents.PhotoFile); a photo post's files went with the post."""
    fs = _fs()
    files = get_db()[f"{BUCKET}.files"].find({"metadata.owner": handle}, {"_id": 1}).limit(limit)
    ids = [row["_id"] for row in files]
    for file_id in ids:
        fs.delete(file_id)
    # Chunks of an upload that died before its files document (socialsite/documents.py).
    return len(ids) + orphan_chunks_delete(BUCKET)
