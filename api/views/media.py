"""Media (docs.joinmastodon.org/methods/media): a photo uploaded before the
status that shows it, checked, re-encoded and stored as the composer's
photo is (feeds/services/photos.py), with its alt text (`description`)
(docs/api.md#media)."""

from django.http import Http404, HttpRequest

from api import selectors
from api.entities.media import media_entity
from api.http import ApiError, api_view
from api.params import Params
from api.services import media_create, media_describe
from feeds.forms import ALT_MAX
from feeds.services import photos
from socialsite.ids import parse_object_id
from socialsite.text import strip_controls

#: An upload counts as the composer's photo post does.
MEDIA_LIMIT = ("post", "RATELIMIT_POST")


def _description(value: str | None) -> str:
    text = strip_controls(value or "").replace("\r\n", "\n").strip()
    if len(text) > ALT_MAX:
        raise ApiError(422, f"Validation failed: Description is at most {ALT_MAX} characters")
    return text


def _entity(upload: dict) -> dict:
    """An upload before a status takes it has no address of its own (as
    Mastodon's `url: null` while it processes one); the status's photo has."""
    detail = upload.get("detail") or {}
    width, height = detail.get("width"), detail.get("height")
    meta = (
        {"original": {"width": width, "height": height, "size": f"{width}x{height}"}}
        if width and height
        else {}
    )
    return media_entity(
        media_id=str(upload["_id"]),
        url=None,
        preview_url=None,
        description=upload.get("description") or None,
        meta=meta,
    )


@api_view(["POST"], scope="write:media", user=True, limit=MEDIA_LIMIT)
def upload(request: HttpRequest, params: Params) -> dict:
    """`file` (JPEG, PNG or WebP: the composer's rules) and `description`."""
    sent = request.FILES.get("file")
    if sent is None:
        raise ApiError(422, "Validation failed: File is missing")
    description = _description(params.get("description"))
    try:
        processed = photos.process_upload(sent)
    except photos.PhotoError as exc:
        raise ApiError(422, f"Validation failed: {exc.message}") from exc
    detail = photos.store(processed, request.user.handle)
    created = media_create(owner=request.user.handle, detail=detail, description=description)
    return _entity(created.to_mongo().to_dict())


def _own(request: HttpRequest, media_id: str) -> dict:
    oid = parse_object_id(media_id)
    found = selectors.media_of(oid, request.user.handle) if oid is not None else None
    if found is None:
        raise Http404
    return found


@api_view(["GET", "PUT"], scope="write:media", user=True)
def detail(request: HttpRequest, params: Params, media_id: str) -> dict:
    """One's own upload; PUT changes its `description` until a status takes it."""
    found = _own(request, media_id)
    if request.method == "PUT":
        description = _description(params.get("description"))
        if not media_describe(
            media_id=found["_id"], owner=request.user.handle, description=description
        ):
            raise ApiError(422, "Validation failed: a status has this media already")
        found = {**found, "description": description}
    return _entity(found)
