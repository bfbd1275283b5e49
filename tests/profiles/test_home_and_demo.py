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


def test_demo_users_are_the_documents_mongoengine_writes():
    """The demo writes its users from one MongoEngine-made template: each
    stored user is what MongoEngine makes of its own values, every field in
    its place (no default missing, none extra), and their profiles differ."""
    handles = demo.seed(users=30, maxfollows=8, seed=7)
    stored = list(User._get_collection().find({"_id": {"$in": handles}}))
    assert len(stored) == 30
    for doc in stored:
        again = User._from_son(doc).to_mongo().to_dict()
        assert list(again.items()) == list(doc.items()), doc["_id"]
        assert doc["email"] == demo.demo_email(doc["_id"]) and doc["email_verified"]
    assert len({doc["profile"]["bio"] for doc in stored}) > 1
    assert len({tuple(doc["profile"]["interests"]) for doc in stored}) > 1
