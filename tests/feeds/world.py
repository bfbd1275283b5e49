"""A small generated social world for feed tests: a graph with circles and
blocks, posts of every audience, wall posts, unfollows, circle changes and
deletions, all through the services (so through the fan-out path)."""

import random
from datetime import UTC, datetime, timedelta

from feeds.documents import ALL_CIRCLES, PUBLIC
from feeds.services import posts as feeds
from profiles import services as graph
from profiles.documents import User
from socialsite.cursors import EPOCH
from timelines.delivery import pulled as pulling

PASSWORD = "correct horse battery"


def build(
    n_users: int = 30, n_posts: int = 120, seed: int = 7, pulled: tuple[str, ...] = ()
) -> list[str]:
    """`pulled`: authors pulled from the start (docs/performance.md#celebrities-are-pulled),
    whose public posts the stored models merge when read."""
    rng = random.Random(seed)
    handles = [f"user{i:02d}" for i in range(n_users)]
    for h in handles:
        graph.user_create(handle=h, name=h.title(), password=PASSWORD)
    for h in pulled:
        pulling.mark(h, since=EPOCH)
    users = {u.handle: u for u in User.objects}
    for h in handles:
        for circle in rng.sample(["friends", "work", "family"], rng.randint(0, 2)):
            graph.circle_create(owner=users[h], name=circle)
    for h in handles:
        for other in rng.sample(handles, 8):
            if other == h:
                continue
            circles = [c for c in users[h].circles if rng.random() < 0.5]
            graph.follow_create(follower=users[h], followee=other, circles=circles)
    # Fixed times (spanning two months, for the `month` model) so that worlds
    # built at different moments compare equal.
    base = datetime(2025, 6, 20, tzinfo=UTC)
    posts = []
    for i in range(n_posts):
        author = users[rng.choice(handles)]
        roll = rng.random()
        if roll < 0.55 or not author.circles:
            circles = [PUBLIC]
        elif roll < 0.75:
            circles = [ALL_CIRCLES]
        else:
            circles = [rng.choice(author.circles)]
        to = rng.choice(handles) if rng.random() < 0.15 else None
        try:
            post = feeds.post_create(
                author=author,
                type="status",
                detail={"text": f"post {i} by {author.handle}"},
                circles=circles,
                to=to,
                ts=base + timedelta(hours=7 * i),
            )
        except feeds.PostError:
            continue
        posts.append(post)
    # The graph moves on after the posts: unfollows, circle changes, blocks.
    for h in rng.sample(handles, 6):
        followed = [e for e in handles if e != h]
        graph.follow_delete(follower=h, followee=rng.choice(followed))
    for h in rng.sample(handles, 5):
        owner = User.objects.get(handle=h)
        if owner.circles:
            graph.circle_delete(owner=owner, name=owner.circles[0])
    for h in rng.sample(handles, 4):
        blocker = User.objects.get(handle=h)
        graph.block_create(blocker=blocker, blocked=rng.choice([x for x in handles if x != h]))
    for post in rng.sample(posts, 10):
        author = User.objects.get(handle=post.by.id)
        feeds.post_delete(post_id=post.id, actor=author)
    return handles
