"""Demo moderation data: a moderator and an admin account (README, "Logging
in to the demo"), a few open reports from several users on posts, a comment
and a user, and one past action, so the queue, the dashboard and the log
have something to show."""

import random
from typing import TYPE_CHECKING, Any

from comments import services as comments
from comments.stores import get_store
from feeds.selectors.posts import recent_public_posts
from moderation import services
from moderation.targets import Target, resolve_target
from profiles import selectors as people
from profiles.demo import demo_account, demo_follows
from profiles.documents import User
from profiles.services import HandleTaken
from socialsite.demo import Seeding

if TYPE_CHECKING:
    from django.core.management.base import OutputWrapper

ACCOUNTS = (
    ("moderator", "Morgan Moderator", "moderator"),
    ("admin", "Adrian Admin", "admin"),
)
NOTES = [
    "",
    "Looks like an ad.",
    "Same message posted everywhere.",
    "This is rude.",
    "Please take a look.",
]
COMMENT = "Click here for cheap followers!!! best deals"


# The admin follows the most followed few (the demo's first users), so that
# the developer's lens (/dev/compare/?path=/feed/) has a feed to compare, with
# pulled authors' posts and pushed ones (docs/performance.md#celebrities-are-pulled).
ADMIN_FOLLOWS = 6


def _accounts(handles: list[str]) -> User:
    for handle, name, role in ACCOUNTS:
        try:
            demo_account(handle=handle, name=name, role=role)
        except HandleTaken:
            services.role_set(actor=None, handle=handle, role=role)
    demo_follows("admin", handles[:ADMIN_FOLLOWS])
    return User.objects.get(handle="moderator")


def _report(rng: random.Random, target: Target, reporters: list[User], reason: str) -> int:
    made = 0
    for reporter in reporters:
        try:
            services.report_create(
                reporter=reporter, target=target, reason=reason, note=rng.choice(NOTES)
            )
        except services.ModerationError:
            continue
        made += 1
    return made


# The comment is the comments app's Comment, not imported from that app for
# its name alone (the demo only passes it on and reads its slug and author).
def _a_comment(rng: random.Random, posts: list[dict], users: list[str]) -> tuple[dict, Any]:
    """A comment on one of `posts` (the comments demo may have made some)."""
    store = get_store()
    for post in posts:
        found = store.page(post["_id"], order="oldest", limit=5).comments
        live = [c for c in found if not c.deleted]
        if live:
            return post, live[0]
    post = posts[0]
    author = rng.choice([h for h in users if h != post["by"]["id"]])
    return post, comments.comment_create(
        post=post, author=User.objects.get(handle=author), text=COMMENT
    )


def seed_more(*, handles: list[str], seed: int, stdout: "OutputWrapper | None" = None) -> None:
    rng = random.Random(seed + 7)
    moderator = _accounts(handles)
    # The users' handles, in the order `user` holds them; only the few drawn
    # to report are read whole (thousands of accounts made into documents
    # were most of this stage's CPU at 15,000 users).
    rows = people.users_read(handles, {"role": 1})
    users = [row["_id"] for row in rows if row.get("role") == "user"]
    posts = recent_public_posts(40, fields={"by": 1, "detail": 1}, on_walls=False)
    if len(users) < 6 or len(posts) < 4:
        return  # too small a demo to report on

    def others(author: str, n: int) -> list[User]:
        drawn = rng.sample([h for h in users if h != author], n)
        return [User.objects.get(handle=handle) for handle in drawn]

    *open_posts, dismissed = rng.sample(posts, 4)
    reported = 0
    for post, (count, reason) in zip(
        open_posts, [(4, "spam"), (2, "harassment"), (1, "other")], strict=True
    ):
        target = resolve_target(f"post:{post['_id']}")
        assert target is not None  # one of the posts just read
        reported += _report(rng, target, others(post["by"]["id"], count), reason)
    post, comment = _a_comment(rng, rng.sample(posts, len(posts)), users)
    target = resolve_target(f"comment:{post['_id']}/{comment.slug}")
    assert target is not None  # the comment just read or made
    reported += _report(rng, target, others(comment.author["id"], 3), "spam")
    suspect = rng.choice(users[len(users) // 2 :])
    target = resolve_target(f"user:{suspect}")
    assert target is not None  # one of the users just read
    reported += _report(rng, target, others(suspect, 2), "harassment")
    # One report already handled, so the audit log is not empty.
    target = resolve_target(f"post:{dismissed['_id']}")
    assert target is not None  # one of the posts just read
    if _report(rng, target, others(dismissed["by"]["id"], 1), "other"):
        services.report_dismiss(
            moderator=moderator, target=target, reason="Not against the rules."
        )
    if stdout:
        stdout.write(
            f"  moderation: accounts moderator and admin, {reported} open reports, 1 dismissed"
        )


def seed_stage(seeding: Seeding) -> None:
    """seed_demo's stage for this app (socialsite/demo.py)."""
    seed_more(handles=seeding.handles, seed=seeding.seed, stdout=seeding.stdout)
