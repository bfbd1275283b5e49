"""People and posts of other servers on our pages (docs/federation.md): the
search box finds `@name@domain`, their profile says where they live, their
posts link back to their server and their media is linked, not fetched."""

from profiles.services.graph import block_create
from tests.conftest import user
from tests.federation.test_inbox import note


def test_search_finds_a_person_of_another_server(remote, make_user, login):
    remote.person("ada")
    client = login(make_user("alice"))
    page = client.get("/search/", {"q": "@ada@remote.example"}).content.decode()
    assert "On another server" in page and 'href="/u/ada@remote.example/"' in page
    assert user("ada@remote.example").actor["inbox"] == remote.actor_id("ada") + "/inbox"
    missing = client.get("/search/", {"q": "@nobody@remote.example"}).content.decode()
    assert "could not be found" in missing


def test_search_hides_a_person_across_a_block_and_asks_visitors_to_sign_in(
    remote, make_user, login, client
):
    remote.person("ada")
    alice = make_user("alice")
    signed_in = login(alice)
    signed_in.get("/search/", {"q": "@ada@remote.example"})
    block_create(blocker=alice, blocked="ada@remote.example")
    page = signed_in.get("/search/", {"q": "@ada@remote.example"}).content.decode()
    assert 'href="/u/ada@remote.example/"' not in page
    anonymous = client.get("/search/", {"q": "@ada@remote.example"}).content.decode()
    assert "to look up @ada@remote.example" in anonymous
    assert remote.fetched.count(remote.actor_id("ada")) == 1  # a visitor fetches nothing


def test_a_remote_profile_and_post_link_to_their_server(remote, make_user, login):
    alice = make_user("alice")
    activity = note(remote, "ada", 1)
    activity["object"]["attachment"] = [
        {
            "type": "Document",
            "mediaType": "image/png",
            "url": "https://remote.example/m/1.png",
            "name": "A red kite",
        }
    ]
    assert remote.deliver("ada", activity).status_code == 202
    client = login(alice)
    profile = client.get("/u/ada@remote.example/").content.decode()
    assert "On another server, remote.example" in profile
    assert 'href="https://remote.example/@ada"' in profile
    assert "data-message-link" not in profile  # messages stay on this server
    assert "via remote.example" in profile and 'href="https://remote.example/@ada/1"' in profile
    assert 'href="https://remote.example/m/1.png"' in profile and "A red kite" in profile
    assert "<script>" not in profile


def test_a_follow_is_requested_until_their_server_accepts(remote, make_user):
    from federation.resolve import actor_by_uri
    from tests.api.conftest import logged_in
    from tests.conftest import login_client

    remote.person("ada")
    actor_by_uri(remote.actor_id("ada"))
    api = logged_in(login_client(make_user("alice")))
    asked = api.account_follow("ada@remote.example")
    assert asked["requested"] and not asked["following"]
    (follow,) = remote.sent("Follow")
    assert follow["object"] == remote.actor_id("ada")
    accept = {
        "id": remote.url("/a1"),
        "type": "Accept",
        "actor": remote.actor_id("ada"),
        "object": follow,
    }
    assert remote.deliver("ada", accept).status_code == 202
    (now,) = api.account_relationships(["ada@remote.example"])
    assert now["following"] and not now["requested"]


def test_the_profile_says_requested_until_their_server_accepts(remote, make_user, login):
    from federation.resolve import actor_by_uri

    remote.person("ada")
    actor_by_uri(remote.actor_id("ada"))
    client = login(make_user("alice"))
    client.post("/u/ada@remote.example/follow/")
    assert ">Requested</button>" in client.get("/u/ada@remote.example/").content.decode()
    (follow,) = remote.sent("Follow")
    accept = {
        "id": remote.url("/a2"),
        "type": "Accept",
        "actor": remote.actor_id("ada"),
        "object": follow,
    }
    remote.deliver("ada", accept)
    assert ">Unfollow</button>" in client.get("/u/ada@remote.example/").content.decode()
