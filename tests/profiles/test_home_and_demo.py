"""The demo's calendar: people join over the demo's weeks, before anything
they post. (The landing page's posts and people: tests/feeds/test_discovery.py.)"""

from datetime import timedelta

from django.conf import settings

from feeds import demo as feeds_demo
from feeds.documents import Post
from profiles import demo
from profiles.documents import FollowingEdge, User
from socialsite.clock import aware, now
from timelines import demo as timelines_demo


def test_demo_users_join_over_weeks_before_their_posts():
    handles = demo.seed(users=40, maxfollows=8, seed=7)
    feeds_demo.seed_more(handles=handles, seed=7, posts_per_user=1.0)
    timelines_demo.deliver_pending()
    t = now()
    users = {u.handle: u for u in User.objects(handle__in=handles)}
    joined = [aware(users[h].created) for h in handles]
    # Oldest first, as the graph assumes, and over weeks, not one instant.
    assert joined == sorted(joined)
    assert joined[-1] - joined[0] > timedelta(days=14)
    assert len({d.date() for d in joined}) > 10
    first_post = {}
    for post in Post.objects.only("by", "ts"):
        author = post.by.id
        first_post[author] = min(aware(post.ts), first_post.get(author, aware(post.ts)))
    assert first_post
    for handle, ts in first_post.items():
        assert aware(users[handle].created) <= ts, handle
    for user in users.values():
        # Seen lately: everyone still receives fan-out (FEED_ACTIVE_DAYS).
        seen = aware(user.last_seen)
        assert aware(user.created) < seen <= t
        assert t - seen < timedelta(days=settings.FEED_ACTIVE_DAYS)
    for edge in FollowingEdge.objects:
        since = aware(edge.since)
        assert since >= aware(users[edge.follower].created)
        assert since >= aware(users[edge.followee].created)
        assert since <= min(first_post.values())
