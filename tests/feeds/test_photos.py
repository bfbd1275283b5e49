"""Photo uploads: real images made in memory, re-encoded without metadata."""

import io
import os
import struct
import zlib

import pytest
from bson import ObjectId
from django.core.files.uploadedfile import SimpleUploadedFile
from mongoengine.connection import get_db
from PIL import Image, ImageFile, PngImagePlugin

from feeds.services import photos
from feeds.services.photos import PhotoError, process_upload

ORIENTATION, MAKE, GPS_IFD = 0x0112, 0x010F, 0x8825


@pytest.fixture(autouse=True)
def _empty_bucket():
    # GridFS collections are not MongoEngine documents: conftest doesn't clear them.
    db = get_db()
    for name in ("photos.files", "photos.chunks"):
        db[name].delete_many({})


def upload(image, fmt, name="photo.bin", **save_args):
    buf = io.BytesIO()
    image.save(buf, fmt, **save_args)
    return SimpleUploadedFile(name, buf.getvalue())


def opened(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def halves(size, first="red", second="blue"):
    """Left half `first`, right half `second`: orientation shows in the pixels."""
    image = Image.new("RGB", size, first)
    image.paste(second, (size[0] // 2, 0, size[0], size[1]))
    return image


def near(pixel, colour, tolerance=40):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


def test_jpeg_is_turned_upright_scaled_and_stripped_of_exif():
    exif = Image.Exif()
    exif[ORIENTATION] = 6  # stored sideways: display rotated 90° clockwise
    exif[MAKE] = "SpyCam"
    exif.get_ifd(GPS_IFD)[2] = (48.0, 12.0, 30.0)  # GPSLatitude
    original = upload(halves((3000, 1200)), "JPEG", exif=exif.tobytes(), comment=b"secret")

    result = process_upload(original)

    assert result.content_type == "image/jpeg"
    assert (result.width, result.height) == (819, 2048)  # upright, longest side 2048
    image = opened(result.image)
    assert image.format == "JPEG"
    assert image.size == (819, 2048)
    assert not image.getexif()
    assert "exif" not in image.info and "comment" not in image.info
    for blob in (result.image, result.thumb):
        assert b"Exif" not in blob and b"SpyCam" not in blob and b"secret" not in blob
    # The stored left half (red) is on top once turned clockwise.
    assert near(image.getpixel((409, 200)), (255, 0, 0))
    assert near(image.getpixel((409, 1850)), (0, 0, 255))

    thumb = opened(result.thumb)
    assert thumb.format == "JPEG"
    assert max(thumb.size) <= 480 and thumb.size == (192, 480)
    assert not thumb.getexif()
    assert near(thumb.getpixel((96, 40)), (255, 0, 0))


def test_small_images_are_not_enlarged():
    result = process_upload(upload(halves((300, 200)), "JPEG"))
    assert (result.width, result.height) == (300, 200)
    assert opened(result.thumb).size == (300, 200)


def test_png_stays_png_with_transparency_and_without_text_chunks():
    image = Image.new("RGBA", (600, 300), (10, 200, 30, 128))
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "where I live")
    result = process_upload(upload(image, "PNG", pnginfo=info))
    assert result.content_type == "image/png"
    out = opened(result.image)
    assert (out.format, out.mode, out.size) == ("PNG", "RGBA", (600, 300))
    assert "Comment" not in out.info and b"where I live" not in result.image
    assert out.getpixel((5, 5))[3] == 128
    thumb = opened(result.thumb)
    assert (thumb.format, thumb.size) == ("PNG", (480, 240))


def test_webp_stays_webp():
    result = process_upload(upload(halves((1000, 500)), "WEBP"))
    assert result.content_type == "image/webp"
    assert opened(result.image).format == "WEBP"
    assert opened(result.thumb).size == (480, 240)


def test_a_6_mb_file_is_refused():
    noise = Image.frombytes("RGB", (1500, 1400), os.urandom(1500 * 1400 * 3))
    big = upload(noise, "PNG", compress_level=0)
    assert big.size > 6 * 1024 * 1024
    with pytest.raises(PhotoError, match="too large"):
        process_upload(big)


def test_the_size_limit_is_a_setting(settings):
    settings.PHOTO_MAX_BYTES = 1000
    with pytest.raises(PhotoError, match="too large"):
        process_upload(upload(Image.effect_noise((100, 100), 50), "PNG"))


def test_a_text_file_named_jpg_is_refused():
    fake = SimpleUploadedFile("cat.jpg", b"#!/bin/sh\nrm -rf /\n" * 50, content_type="image/jpeg")
    with pytest.raises(PhotoError, match="JPEG, PNG or WebP"):
        process_upload(fake)


def test_a_gif_is_refused():
    with pytest.raises(PhotoError, match="JPEG, PNG or WebP"):
        process_upload(upload(Image.new("P", (20, 20)), "GIF", name="anim.gif"))


def test_a_truncated_jpeg_is_refused():
    whole = upload(Image.effect_noise((400, 400), 80).convert("RGB"), "JPEG").read()
    with pytest.raises(PhotoError):
        process_upload(SimpleUploadedFile("half.jpg", whole[: len(whole) // 2]))


def test_an_empty_file_is_refused():
    with pytest.raises(PhotoError, match="empty"):
        process_upload(SimpleUploadedFile("e.png", b""))


def png_claiming(width, height):
    """A tiny PNG whose header declares a huge canvas: a decompression bomb."""
    buf = io.BytesIO()
    Image.new("L", (1, 1)).save(buf, "PNG")
    data = bytearray(buf.getvalue())
    ihdr = bytes(data[12:16]) + struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(ihdr))
    return SimpleUploadedFile("bomb.png", bytes(data))


@pytest.mark.parametrize("size", [(100_000, 100_000), (8_000, 6_000)])
def test_a_decompression_bomb_is_refused(size):
    bomb = png_claiming(*size)
    assert bomb.size < 100
    with pytest.raises(PhotoError, match="too many pixels"):
        process_upload(bomb)


@pytest.mark.parametrize(("fmt", "mode"), [("PNG", "1"), ("JPEG", "L")])
def test_a_real_36_megapixel_image_is_refused_before_any_pixel_is_decoded(monkeypatch, fmt, mode):
    # One colour: 6000 x 6000 pixels that compress to a few kilobytes, well
    # under the byte limit; only the pixel limit (25 MP by default) stops it.
    big = upload(Image.new(mode, (6000, 6000)), fmt)
    assert big.size < 1024 * 1024
    loaded = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda image: loaded.append(image))
    with pytest.raises(PhotoError, match="too many pixels: the limit is 25 megapixels"):
        process_upload(big)
    assert loaded == []


def test_the_pixel_limit_is_a_setting(settings):
    settings.PHOTO_MAX_PIXELS = 10_000
    assert process_upload(upload(Image.new("RGB", (100, 100)), "PNG")).width == 100
    with pytest.raises(PhotoError, match="too many pixels"):
        process_upload(upload(Image.new("RGB", (101, 100)), "PNG"))


def test_store_open_and_delete_round_trip():
    result = process_upload(upload(halves((800, 600)), "JPEG"))
    detail = photos.store(result, "ada")
    assert detail["content_type"] == "image/jpeg"
    assert (detail["width"], detail["height"]) == (800, 600)

    stored = photos.open_file(detail["photo"])
    assert stored.read() == result.image
    assert stored.metadata == {"owner": "ada", "content_type": "image/jpeg", "kind": "photo"}
    assert stored.upload_date is not None
    thumb = photos.open_file(str(detail["thumb"]))  # a string id from a URL works too
    assert thumb.read() == result.thumb
    assert thumb.metadata["kind"] == "thumb"

    photos.delete(detail)
    assert photos.open_file(detail["photo"]) is None
    assert photos.open_file(detail["thumb"]) is None
    assert get_db()["photos.chunks"].count_documents({}) == 0
    photos.delete(detail)  # deleting again is harmless


@pytest.mark.parametrize("file_id", [ObjectId(), "nope", '{"$ne": 1}', None, 42])
def test_open_file_of_unknown_or_malformed_ids_is_none(file_id):
    assert photos.open_file(file_id) is None
