"""The profile evolves (*Storing Updates and Profiles*): fields this code does not know, written by
a newer release or another tool, render and survive an edit."""

from profiles.documents import User
from tests.conftest import PASSWORD


def _insert_evolved_user():
    """Raw, as another program would write it: fields the documents don't declare."""
    User._get_collection().insert_one(
        {
            "_id": "ada",
            "name": "Ada Lovelace",
            "name_terms": ["ada", "ada lovelace", "lovelace"],
            "password": User.objects.get(handle="seed").password,
            "role": "user",
            "status": "active",
            "profile": {
                "bio": "First programmer",
                "location": "London",
                "interests": ["engines"],
                "website": "",
                "pronouns": "she/her",
                "languages": ["en", "fr"],
                "relationship": {"status": "married", "since": 1835},
            },
            "followers_count": 0,
            "following_count": 0,
            "posts_count": 0,
            "badges": ["early"],  # a top-level field from the future, too
        }
    )


def test_a_profile_with_unknown_fields_renders_and_edits_keep_them(make_user, login, client):
    make_user("seed")  # only to borrow a password hash
    _insert_evolved_user()
    assert client.get("/u/ada/").status_code == 200
    ada = User.objects.get(handle="ada")
    signed_in = login(ada, PASSWORD)
    assert signed_in.get("/u/ada/").status_code == 200
    page = signed_in.get("/settings/profile/")
    assert page.status_code == 200
    assert "First programmer" in page.content.decode()
    assert client.get("/search/?q=ada").status_code == 200

    response = signed_in.post(
        "/settings/profile/",
        {"name": "Ada King", "bio": "Countess", "location": "", "interests": "poetry"},
    )
    assert response.status_code == 302
    stored = User._get_collection().find_one({"_id": "ada"})
    assert stored["name"] == "Ada King"
    assert stored["profile"]["bio"] == "Countess"
    assert stored["profile"]["interests"] == ["poetry"]
    assert stored["profile"]["pronouns"] == "she/her"
    assert stored["profile"]["languages"] == ["en", "fr"]
    assert stored["profile"]["relationship"] == {"status": "married", "since": 1835}
    assert stored["badges"] == ["early"]
    assert "Countess" in signed_in.get("/u/ada/").content.decode()
