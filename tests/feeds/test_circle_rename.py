"""A circle rename keeps its posts in sight of its members (docs/privacy.md).

Visibility is decided on the circles a page's post carries; with FEED_EMBED
those are the copies in the timelines, so the rename must reach them too."""

from feeds.services import posts as services
from profiles import services as graph
from profiles.documents import User
from timelines.selectors import pages as selectors


def test_members_still_see_a_renamed_circles_posts(model, make_user):
    ada, pal = make_user("ada"), make_user("pal")
    graph.follow_create(follower=pal, followee="ada")
    graph.circle_create(owner=ada, name="friends")
    graph.follow_create(
        follower=User.objects.get(handle="ada"), followee="pal", circles=["friends"]
    )
    ada = User.objects.get(handle="ada")
    post = services.post_create(
        author=ada, type="status", detail={"text": "tea at mine"}, circles=["friends"]
    )
    pal = User.objects.get(handle="pal")
    assert [p["_id"] for p in selectors.news_page(pal).posts] == [post.id]

    graph.circle_rename(owner=ada, old="friends", new="close friends")

    page = selectors.news_page(User.objects.get(handle="pal"))
    assert [p["_id"] for p in page.posts] == [post.id]
    assert page.posts[0]["circles"] == ["close friends"]
