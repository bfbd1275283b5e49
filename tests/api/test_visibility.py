"""The visibility rules (docs/privacy.md) through the client API's
timelines (docs/api.md#timelines), beside tests/feeds/test_visibility.py,
which checks the pages: a circle post, a former circle member, a blocked
and a muted author, a removed post and a filtered word, on the home, list,
public and tag timelines, and an app's own token on the public one."""

from feeds.documents import PUBLIC
from feeds.services import posts as post_services
from moderation import services as moderation
from moderation.targets import Target
from profiles import services as graph
from profiles.documents import User
from profiles.services import filters
from tests.api.conftest import logged_in
from tests.conftest import login_client

SECRET = "secret plans"


def _post(text: str, circles: list[str]) -> str:
    ada = User.objects.get(handle="ada")
    detail = {"text": text}
    post = post_services.post_create(author=ada, type="status", detail=detail, circles=circles)
    return str(post.id)


def test_timelines_through_the_api_apply_the_pages_rules(make_user, app_api):
    ada = make_user("ada")
    for handle in ("pal", "fan", "hater", "quiet", "picky"):
        make_user(handle)
        graph.follow_create(follower=User.objects.get(handle=handle), followee="ada", circles=[])
    graph.circle_create(owner=ada, name=SECRET)
    graph.follow_create(follower=ada, followee="pal", circles=[SECRET])
    clients = {
        h: logged_in(login_client(User.objects.get(handle=h)))
        for h in ("pal", "fan", "hater", "quiet", "picky")
    }
    # Every reader keeps ada in a circle of their own: her list timeline.
    lists = {}
    for handle, api in clients.items():
        lists[handle] = api.list_create("ada").id
        api.list_accounts_add(lists[handle], ["ada"])
    public = _post("public #news", [PUBLIC])
    circle = _post("circle #news", [SECRET])
    spoiler = _post("the ending #news", [PUBLIC])
    graph.block_create(blocker=User.objects.get(handle="hater"), blocked="ada")
    graph.mute_create(user=User.objects.get(handle="quiet"), handle="ada")
    filters.keyword_filter_create(
        user=User.objects.get(handle="picky"),
        phrase="ending",
        contexts=["home", "public"],
        action="hide",
        expires_in=None,
    )
    filters.keyword_filter_create(
        user=User.objects.get(handle="picky"),
        phrase="public",
        contexts=["home", "public"],
        action="warn",
        expires_in=None,
    )

    def seen(handle: str) -> dict[str, set[str]]:
        api = clients[handle]
        read = {
            "home": api.timeline_home(),
            "public": api.timeline_public(),
            "tag": api.timeline_hashtag("news"),
        }
        if handle != "hater":  # the block took ada out of hater's circle (the follow went)
            read["list"] = api.timeline_list(lists[handle])
        return {name: {s.id for s in statuses} for name, statuses in read.items()}

    everything = {public, spoiler}
    pal = seen("pal")
    assert pal["home"] == pal["list"] == {public, circle, spoiler}
    assert pal["public"] == pal["tag"] == everything  # a circle post is never public
    fan = seen("fan")
    assert fan["home"] == fan["list"] == everything
    assert fan["public"] == fan["tag"] == everything
    assert set().union(*seen("hater").values()) == set()
    quiet = seen("quiet")
    assert quiet["home"] == quiet["list"] == quiet["public"] == quiet["tag"] == set()
    picky = seen("picky")
    assert picky["home"] == picky["list"] == picky["public"] == picky["tag"] == {public}
    # A "warn" filter's match is shown with Mastodon's `filtered`, as the page folds it.
    for status in [*clients["picky"].timeline_home(), *clients["picky"].timeline_public()]:
        assert [f.filter.filter_action for f in status.filtered] == ["warn"]
        assert status.filtered[0].keyword_matches == ["public"]
    assert all(s.filtered == [] for s in clients["fan"].timeline_home())
    # An app's own token: the public posts only.
    assert {s.id for s in app_api.timeline_public()} == everything

    # A former circle member loses the circle post at once; a removed post
    # leaves every timeline.
    graph.circle_remove_member(owner=User.objects.get(handle="ada"), name=SECRET, member="pal")
    moderator = make_user("mod", role="moderator")
    moderation.post_remove(moderator=moderator, target=Target("post", spoiler))
    pal = seen("pal")
    assert pal["home"] == pal["list"] == pal["public"] == pal["tag"] == {public}
    assert {s.id for s in app_api.timeline_public()} == {public}
