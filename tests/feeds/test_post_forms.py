"""The post form: a valid post of every type, and a field error for each bad input."""

import io
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import QueryDict
from PIL import Image

from feeds.forms import PostForm
from feeds.services.photos import ProcessedPhoto
from socialsite.clock import now


def form(data=None, files=None, circles=("family", "work")):
    return PostForm(data or {}, files or {}, owner_circles=list(circles))


def valid(data, files=None, **kwargs):
    f = form(data, files, **kwargs)
    assert f.is_valid(), f.errors
    return f.cleaned_data


def errors(data, files=None, **kwargs):
    f = form(data, files, **kwargs)
    assert not f.is_valid()
    return f.errors


def jpeg_upload(name="p.jpg"):
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), "teal").save(buf, "JPEG")
    return SimpleUploadedFile(name, buf.getvalue(), content_type="image/jpeg")


# --- valid posts ---------------------------------------------------------------


def test_status_is_the_default_type():
    data = valid({"text": "  hello world  "})
    assert data["type"] == "status"
    assert data["detail"] == {"text": "hello world"}
    assert data["circles"] == ["*public*"]
    assert data["to"] is None
    assert data["photo"] is None


def test_status_of_2000_chars_with_crlf_line_breaks():
    text = "a" * 999 + "\r\n" + "b" * 1000  # 2000 characters as the browser counts
    assert valid({"text": text})["detail"]["text"] == "a" * 999 + "\n" + "b" * 1000


def test_link():
    data = valid(
        {"type": "link", "url": "https://example.com/a?b=1", "title": "Ex", "text": "look"}
    )
    assert data["detail"] == {"url": "https://example.com/a?b=1", "title": "Ex", "text": "look"}


def test_link_without_scheme_gets_https():
    assert valid({"type": "link", "url": "example.com/x"})["detail"]["url"] == (
        "https://example.com/x"
    )


def test_photo_keeps_processed_bytes_for_the_service():
    data = valid({"type": "photo", "text": "sunset"}, {"photo": jpeg_upload()})
    assert data["detail"] == {"text": "sunset"}
    assert isinstance(data["photo"], ProcessedPhoto)
    assert data["photo"].content_type == "image/jpeg"


def test_checkin():
    data = valid(
        {"type": "checkin", "place": " Café  Central ", "lat": "48.2104", "lng": "16.3656"}
    )
    assert data["detail"] == {"place": "Café Central", "lat": 48.2104, "lng": 16.3656, "text": ""}


def test_checkin_bounds_are_inclusive():
    data = valid({"type": "checkin", "place": "Pole", "lat": "-90", "lng": "180"})
    assert (data["detail"]["lat"], data["detail"]["lng"]) == (-90.0, 180.0)


def test_poll_from_textarea():
    data = valid(
        {"type": "poll", "text": "Lunch?", "options": "Pizza\r\n\r\n  Sushi \r\nSalad\r\n"}
    )
    # No "Poll ends in" given: a day (tests/feeds/test_polls.py has the choices).
    assert timedelta(hours=23) < data["detail"].pop("expires") - now() <= timedelta(days=1)
    assert data["detail"] == {
        "question": "Lunch?",
        "options": ["Pizza", "Sushi", "Salad"],
        "votes": [0, 0, 0],
    }


def test_poll_from_repeated_field():
    qd = QueryDict(mutable=True)
    qd.update({"type": "poll", "text": "Tea or coffee?"})
    qd.setlist("options", ["Tea", "Coffee"])
    assert valid(qd)["detail"]["options"] == ["Tea", "Coffee"]


def test_named_circles_and_wall_owner():
    qd = QueryDict(mutable=True)
    qd.update({"text": "hi", "to": "  Bob_1 "})
    qd.setlist("circles", ["family", "work", "family"])
    data = valid(qd)
    assert data["circles"] == ["family", "work"]
    assert data["to"] == "bob_1"


def test_all_circles_alone():
    assert valid({"text": "hi", "circles": ["*circles*"]})["circles"] == ["*circles*"]


def test_inputs_of_other_types_are_ignored():
    data = valid({"type": "status", "text": "hi", "lat": "999", "url": "javascript:x"})
    assert data["detail"] == {"text": "hi"}


# --- each bad input is a field error ---------------------------------------------


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 2001}, "text"),
        ({"type": "video", "text": "hi"}, "type"),
        ({"type": "link", "url": ""}, "url"),
        ({"type": "link", "url": "javascript:alert(1)"}, "url"),
        ({"type": "link", "url": "JavaScript:alert(1)//http://x.com"}, "url"),
        ({"type": "link", "url": "ftp://example.com/file"}, "url"),
        ({"type": "link", "url": "data:text/html,<script>alert(1)</script>"}, "url"),
        ({"type": "link", "url": "https://exa mple.com"}, "url"),
        ({"type": "link", "url": "https://example.com/" + "a" * 2000}, "url"),
        ({"type": "link", "url": "https://example.com", "title": "t" * 201}, "title"),
        ({"type": "link", "url": "https://example.com", "text": "c" * 2001}, "text"),
        ({"type": "photo"}, "photo"),
        ({"type": "checkin", "lat": "1", "lng": "1"}, "place"),
        ({"type": "checkin", "place": "p" * 121, "lat": "1", "lng": "1"}, "place"),
        ({"type": "checkin", "place": "X", "lat": "91", "lng": "0"}, "lat"),
        ({"type": "checkin", "place": "X", "lat": "0", "lng": "-181"}, "lng"),
        ({"type": "checkin", "place": "X", "lat": "nan", "lng": "0"}, "lat"),
        ({"type": "checkin", "place": "X", "lat": "0", "lng": "inf"}, "lng"),
        ({"type": "checkin", "place": "X", "lat": "north", "lng": "0"}, "lat"),
        ({"type": "checkin", "place": "X", "lng": "0"}, "lat"),
        ({"type": "checkin", "place": "X", "lat": "0"}, "lng"),
        ({"type": "poll", "text": "Q?", "options": "only one"}, "options"),
        ({"type": "poll", "text": "Q?", "options": "\n".join("1234567")}, "options"),
        ({"type": "poll", "text": "Q?", "options": "Yes\nNo\nyes"}, "options"),
        ({"type": "poll", "text": "Q?", "options": "ok\n" + "o" * 101}, "options"),
        ({"type": "poll", "text": "", "options": "a\nb"}, "text"),
        ({"type": "poll", "text": "q" * 301, "options": "a\nb"}, "text"),
        ({"text": "hi", "to": '{"$ne": 1}'}, "to"),
        ({"text": "hi", "to": "$where"}, "to"),
        ({"text": "hi", "to": "ab"}, "to"),
        ({"text": "hi", "circles": ["*public*", "family"]}, "circles"),
        ({"text": "hi", "circles": ["*public*", "*circles*"]}, "circles"),
        ({"text": "hi", "circles": ["*circles*", "work"]}, "circles"),
        ({"text": "hi", "circles": ["strangers"]}, "circles"),
    ],
)
def test_field_error(data, field):
    errs = errors(data)
    assert field in errs, errs
    assert "__all__" not in errs
    assert 'class="errorlist' in str(errs[field])


def test_only_the_posters_circles_are_choices():
    assert "circles" in errors({"text": "hi", "circles": ["family"]}, circles=["work"])


def test_an_unreadable_photo_is_a_field_error():
    fake = SimpleUploadedFile("cat.jpg", b"definitely not a jpeg", content_type="image/jpeg")
    errs = errors({"type": "photo"}, {"photo": fake})
    assert errs["photo"] == ["Upload a JPEG, PNG or WebP image."]


def test_an_empty_photo_is_a_field_error():
    errs = errors({"type": "photo"}, {"photo": SimpleUploadedFile("e.jpg", b"")})
    assert list(errs) == ["photo"]


def test_a_photo_on_another_type_is_not_processed():
    data = valid({"type": "status", "text": "hi"}, {"photo": jpeg_upload()})
    assert data["photo"] is None


def test_the_composer_refuses_an_empty_audience_and_warns_of_an_empty_circle(make_user, login):
    from feeds.documents import Post

    ada = make_user("ada", circles=["friends", "bakers"])
    client = login(ada)
    # Every box unticked in the composer (its hidden `audience` says the boxes were there).
    refused = client.post("/posts/", {"type": "status", "text": "hello", "audience": "chosen"})
    assert refused.status_code == 400
    assert "Choose who can see this post" in refused.content.decode()
    assert Post.objects.count() == 0
    posted = client.post(
        "/posts/",
        {"type": "status", "text": "tea?", "audience": "chosen", "circles": ["friends"]},
        follow=True,
    )
    assert "Nobody is in friends yet: only you can see this post" in posted.content.decode()
    assert Post.objects.count() == 1


def test_a_post_sent_after_the_session_ended_keeps_its_words_through_the_login(make_user):
    from django.test import Client

    from feeds.documents import Post
    from tests.conftest import PASSWORD

    make_user("ada")
    client = Client()  # the session has ended: no one is signed in
    sent = client.post(
        "/posts/",
        {"type": "status", "text": "Words I typed for ten minutes", "circles": ["*public*"]},
        HTTP_REFERER="http://testserver/feed/",
    )
    assert sent.status_code == 302 and sent["Location"] == "/accounts/login/?next=%2Ffeed%2F"
    assert Post.objects.count() == 0
    logged_in = client.post(
        "/accounts/login/?next=/feed/", {"username": "ada", "password": PASSWORD}
    )
    assert logged_in["Location"] == "/feed/"
    page = client.get("/feed/").content.decode()
    assert ">Words I typed for ten minutes</textarea>" in page
    # Taken once: the next visit's composer is empty again.
    assert "Words I typed for ten minutes" not in client.get("/feed/").content.decode()


def test_the_composers_one_time_key_makes_one_post_of_two_sends(make_user, login):
    import re

    from feeds.documents import Post
    from feeds.services import posts
    from socialsite import once

    ada = make_user("ada")
    client = login(ada)
    page = client.get("/feed/").content.decode()
    key = re.search(r'data-once="([^"]+)"', page).group(1)
    assert key not in client.get("/feed/").content.decode()  # a fresh key per page
    sent = {"type": "status", "text": "only once", "circles": ["*public*"], "once": key}
    client.post("/posts/", sent, HTTP_REFERER="http://testserver/feed/")
    again = client.post("/posts/", sent, HTTP_REFERER="http://testserver/feed/", follow=True)
    assert "That was posted already." in again.content.decode()
    assert Post.objects(by__id="ada").count() == 1
    # The key is the person's: the same key from someone else is a new post,
    # and the insert itself refuses a second post under a claimed id.
    claimed = once.claim(scope="post", owner="ada", key=key)
    assert claimed == Post.objects.get(by__id="ada").id
    assert once.claim(scope="post", owner="bob", key=key) != claimed
    with pytest.raises(posts.AlreadyPosted):
        posts.post_create(
            author=ada, type="status", detail={"text": "x"}, circles=[], post_id=claimed
        )
    assert Post.objects.count() == 1
