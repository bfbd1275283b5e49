"""Media and polls through Mastodon.py (docs/api.md#media, #polls): a photo
uploaded with its alt text and then posted, checked and stored as the
composer's photo is; a poll posted, read and voted in as on the post page."""

import io
from datetime import timedelta

import pytest
from mastodon import MastodonAPIError, MastodonNotFoundError
from PIL import Image

from api.documents import MediaUpload
from api.entities import checks
from api.services import media_sweep
from feeds.documents import PollVote, Post
from feeds.services import photos
from socialsite import periodic
from socialsite.clock import now
from tests.api.conftest import BASE, logged_in, raw
from tests.conftest import login_client


def _png(width: int = 64, height: int = 48) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def test_a_photo_with_alt_text_then_a_status_with_it(ann_api, bob):
    media = ann_api.media_post(io.BytesIO(_png()), mime_type="image/png", description="A red box")
    assert media.type == "image" and media.description == "A red box"
    assert media.meta.original.width == 64
    upload = MediaUpload.objects.get(id=media.id)
    assert upload.owner == "ann" and upload.post is None and upload.expire is not None
    changed = ann_api.media_update(media.id, description="A red rectangle")
    assert changed.description == "A red rectangle"
    assert (
        checks.problems(
            raw(ann_api, "GET", f"/api/v1/media/{media.id}").json(), checks.MEDIA_ATTACHMENT
        )
        == []
    )

    posted = ann_api.status_post("Look", media_ids=[media.id], spoiler_text="red")
    attachment = posted.media_attachments[0]
    assert attachment.description == "A red rectangle"
    assert attachment.url == f"{BASE}/posts/{posted.id}/photo/"
    stored = Post.objects.get(id=posted.id)
    assert stored.type == "photo" and stored.detail["alt"] == "A red rectangle"
    assert stored.detail["cw"] == "red" and stored.detail["text"] == "Look"
    photo = ann_api.session.get(attachment.url)  # the post page's own photo route
    assert photo.status_code == 200 and photo.headers["Content-Type"] == "image/png"
    assert MediaUpload.objects.get(id=media.id).post == stored.id
    # Taken once: another status cannot have it, nor may its alt text change.
    again = raw(ann_api, "POST", "/api/v1/statuses", data={"status": "x", "media_ids[]": media.id})
    assert again.status_code == 422
    assert (
        raw(ann_api, "PUT", f"/api/v1/media/{media.id}", data={"description": "y"}).status_code
        == 422
    )
    # Someone else's upload is unknown to them.
    bob_api = logged_in(login_client(bob))
    with pytest.raises(MastodonNotFoundError):
        bob_api.media(media.id)


def test_uploads_no_status_took_are_swept_with_their_files(ann_api):
    taken = ann_api.media_post(io.BytesIO(_png()), mime_type="image/png")
    left = ann_api.media_post(io.BytesIO(_png()), mime_type="image/png")
    ann_api.status_post("", media_ids=[taken.id])
    files = MediaUpload.objects.get(id=left.id).detail
    MediaUpload.objects(id__in=[taken.id, left.id]).update(set__expire=now() - timedelta(days=2))
    MediaUpload.objects(id=taken.id).update(unset__expire=True)  # as a status takes it
    assert media_sweep() == 1 and media_sweep() == 0
    assert [str(m.id) for m in MediaUpload.objects] == [str(taken.id)]
    assert photos.open_file(files["photo"]) is None and photos.open_file(files["thumb"]) is None
    assert "api.media" in {job.name for job in periodic.jobs()}


def test_uploads_are_checked_as_the_composers(ann_api, settings):
    for body, mime in ((b"not an image", "image/png"), (b"", "image/png")):
        with pytest.raises(MastodonAPIError) as refused:
            ann_api.media_post(io.BytesIO(body), mime_type=mime)
        assert refused.value.args[1] == 422
    settings.PHOTO_MAX_BYTES = 100
    with pytest.raises(MastodonAPIError):
        ann_api.media_post(io.BytesIO(_png()), mime_type="image/png")
    missing = raw(ann_api, "POST", "/api/v2/media", data={"description": "nothing"})
    assert missing.status_code == 422 and "error" in missing.json()
    long = raw(
        ann_api,
        "POST",
        "/api/v2/media",
        files={"file": ("a.png", _png())},
        data={"description": "x" * 1501},
    )
    assert long.status_code == 422
    assert MediaUpload.objects.count() == 0
    for path in ("/api/v1/media/nothex", "/api/v1/media/" + "0" * 24):
        assert raw(ann_api, "GET", path).status_code == 404


def test_a_poll_posted_read_and_voted(ann_api, bob):
    poll = ann_api.make_poll(["Tea", "Coffee"], expires_in=600)
    posted = ann_api.status_post("Which?", poll=poll)
    data = raw(ann_api, "GET", f"/api/v1/polls/{posted.id}").json()
    assert checks.problems(data, checks.POLL) == []
    assert all(checks.problems(o, checks.POLL_OPTION) == [] for o in data["options"])
    stored = Post.objects.get(id=posted.id)
    assert stored.type == "poll" and stored.detail["options"] == ["Tea", "Coffee"]
    assert posted.poll.id == posted.id and posted.poll.multiple is False
    assert posted.content == "<p>Which?</p>"

    bob_api = logged_in(login_client(bob))
    before = bob_api.poll(posted.id)
    assert before.voted is False and [o.votes_count for o in before.options] == [None, None]
    voted = bob_api.poll_vote(posted.id, [1])
    assert voted.voted is True and voted.own_votes == [1]
    assert [o.votes_count for o in voted.options] == [0, 1] and voted.votes_count == 1
    assert PollVote.objects.get(post=stored.id).voter == "bob"
    assert bob_api.status(posted.id).poll.own_votes == [1]
    for choices in ([], [0, 1], [7], ["x"]):
        answer = raw(
            bob_api, "POST", f"/api/v1/polls/{posted.id}/votes", data={"choices[]": choices}
        )
        assert answer.status_code == 422, choices
    # A status that is no poll, and ids of nothing, are unknown polls.
    plain = ann_api.status_post("no poll")
    for poll_id in (plain.id, "0" * 24, "junk"):
        assert raw(bob_api, "GET", f"/api/v1/polls/{poll_id}").status_code == 404
    # Voting needs a person and the write scope.
    reader = logged_in(login_client(bob), scopes=["read"])
    assert (
        raw(
            reader, "POST", f"/api/v1/polls/{posted.id}/votes", data={"choices[]": "0"}
        ).status_code
        == 403
    )
    nobody = bob_api.session.post(
        f"{BASE}/api/v1/polls/{posted.id}/votes", data={"choices[]": "0"}
    )
    assert nobody.status_code == 401
