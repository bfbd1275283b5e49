"""Demo discussions: a few long ones (over 300 comments, several pages), a few
deep ones (replies more than 10 levels down, past COMMENTS_MAX_DEPTH), and
small ones under many posts, written through the configured comment store,
then each post's count and last comments refreshed for the feed cards. The
long ones get votes, so Best and Top rank them.

Comments go only on public posts, by people the post's author has not
blocked, at times between the post and now. Alice (the demo login) sees the
long and deep discussions in her feed: they are on posts of people she
follows where there are such posts.
"""

import random
from datetime import timedelta
from typing import Any

from django.core.management.base import OutputWrapper

from comments import summaries, votes
from comments.stores import get_store, shadows
from comments.stores.base import Comment, CommentStore
from feeds.selectors.posts import recent_public_posts
from profiles import selectors as profile_selectors
from socialsite.clock import aware, now
from socialsite.demo import Seeding
from socialsite.sampling import Population

LINES = [
    "Great point.",
    "I had the same experience last year.",
    "Not sure I agree, but I see where you're coming from.",
    "Do you have a source for that?",
    "Here's one: https://www.mongodb.com/docs/manual/data-modeling/",
    "Ha, this made my day.",
    "Saving this for later.",
    "Which version were you on?",
    "Same here, @alice knows the details.",
    "That's the trade-off: embed for reads, link for writes.",
    "Could you say more about how that worked out?",
    "Thanks for sharing!",
    "Strong disagree, respectfully.",
    "Seed 004 covers exactly this case.",
    "We tried buckets of 100 and never looked back.",
    "+1",
]
LONG = (2, 310, 360)  # discussions, fewest and most comments
DEEP = (2, 12, 15)  # discussions, shallowest and deepest chain
SMALL = (60, 1, 8)  # at most this many posts, fewest and most comments
RECENT_POSTS = 120  # the recent public posts that get discussions


def _candidates(alice: str | None) -> tuple[list[dict], set[str]]:
    """Recent public posts, newest first, and whom `alice` follows."""
    posts = recent_public_posts(RECENT_POSTS, fields={"by": 1, "ts": 1})
    followed: set[str] = set()
    if alice:
        followed = profile_selectors.followed_by(alice) | {alice}
    return posts, followed


def _times(rng: random.Random, post: dict, n: int) -> list:
    start, end = aware(post["ts"]), now() - timedelta(minutes=1)
    span = max(60.0, (end - start).total_seconds())
    return sorted(start + timedelta(seconds=rng.uniform(30, span)) for _ in range(n))


def _discuss(
    store: CommentStore,
    rng: random.Random,
    post: dict[str, Any],
    people: list[dict[str, str]],
    blocked: dict[str, set[str]],
    n: int,
    *,
    deep: int = 0,
) -> tuple[int, int]:
    """Post `n` comments under `post`; with `deep`, first a chain that deep.
    Returns (comments, deepest depth)."""
    author = post["by"]["id"]
    voices = [p for p in people if p["id"] not in blocked.get(author, ())]
    made: list[Comment] = []
    for i, ts in enumerate(_times(rng, post, n)):
        parent = None
        if deep and i <= deep:
            parent = made[-1] if made else None  # the chain: each replies to the last
        elif made and rng.random() < 0.55:
            # Replies favour the recent comments, so threads grow a few levels.
            parent = made[max(0, len(made) - 1 - int(rng.expovariate(1 / 6)))]
        voice, text = rng.choice(voices), rng.choice(LINES)
        while f"@{voice['id']}" in text:  # nobody mentions themselves
            text = rng.choice(LINES)
        made.append(
            store.post(
                post["_id"],
                author=voice,
                text=text,
                parent_slug=parent.slug if parent else None,
                posted=ts,
            )
        )
    if len(made) > 3:  # a deleted comment whose replies stay, and an edited one
        gone = made[1]
        store.soft_delete(post["_id"], gone.slug, by="author")
        store.edit(post["_id"], made[2].slug, text=made[2].text + " (edit: typo)")
    return len(made), max((c.depth for c in made), default=0)


def _vote(
    store: CommentStore,
    rng: random.Random,
    post: dict[str, Any],
    people: list[dict[str, str]],
    blocked: dict[str, set[str]],
) -> int:
    """Votes on a long discussion, so Best and Top have something to rank:
    most comments get a few, some many, and a few are voted far down
    (folded). Nobody votes on their own comment or across a block."""
    comments = store.page(post["_id"], order="oldest", limit=1000).comments
    owner = post["by"]["id"]
    # Everyone less the few a block bars, as a view (socialsite/sampling.py):
    # a list of everyone per comment would cost the whole world per comment.
    everyone = Population([p["id"] for p in people])
    blockers: dict[str, set[str]] = {}
    for handle, theirs in blocked.items():
        for other in theirs:
            blockers.setdefault(other, set()).add(handle)
    ballots: dict[str, list[tuple[str, int]]] = {}
    for c in comments:
        if c.deleted or not c.author.get("id"):
            continue
        author = c.author["id"]
        eligible = everyone.without(
            {author}
            | blockers.get(author, set())
            | blockers.get(owner, set())
            | blocked.get(author, set())
            | blocked.get(owner, set())
        )
        if rng.random() < 0.06:
            ups, downs = rng.randint(0, 1), rng.randint(5, 9)  # a comment people disliked
        else:
            ups = min(int(rng.paretovariate(1.3)) - 1, 40)
            downs = rng.randint(0, max(1, ups // 3)) if rng.random() < 0.4 else 0
        voters = rng.sample(eligible, min(len(eligible), ups + downs))
        ballots[c.slug] = [(v, 1 if i < ups else -1) for i, v in enumerate(voters)]
    ballots = {slug: cast for slug, cast in ballots.items() if cast}
    return votes.votes_seed(post["_id"], ballots, now())


def seed_more(*, handles: list[str], seed: int, stdout: OutputWrapper | None = None) -> None:
    rng = random.Random(seed + 2)
    store = get_store()
    users = profile_selectors.users_read(handles, {"name": 1, "blocked": 1})
    people, blocked = [], {}
    for u in users:
        people.append({"id": u["_id"], "name": u["name"]})
        blocked[u["_id"]] = set(u.get("blocked") or ())
    people.sort(key=lambda p: p["id"])
    alice = "alice" if "alice" in handles else None
    posts, followed = _candidates(alice)
    if not posts or not people:
        return
    # Long and deep discussions on recent posts Alice sees, the rest small.
    preferred = [p for p in posts if p["by"]["id"] in followed] or posts
    featured = preferred[: LONG[0] + DEEP[0]]
    others = [p for p in posts if p not in featured]
    total, deepest, longest, touched, voted = 0, 0, 0, [], 0
    for i, post in enumerate(featured):
        if i < LONG[0]:
            n, depth = _discuss(store, rng, post, people, blocked, rng.randint(*LONG[1:]))
            voted += _vote(store, rng, post, people, blocked)
        else:
            chain = rng.randint(*DEEP[1:])
            n, depth = _discuss(
                store, rng, post, people, blocked, chain + rng.randint(10, 30), deep=chain
            )
        total, deepest, longest = total + n, max(deepest, depth), max(longest, n)
        touched.append(post["_id"])
    for post in rng.sample(others, min(SMALL[0], len(others))):
        n, depth = _discuss(store, rng, post, people, blocked, rng.randint(*SMALL[1:]))
        total, deepest, longest = total + n, max(deepest, depth), max(longest, n)
        touched.append(post["_id"])
    for post_id in touched:
        summaries.summary_refresh(post_id)
    # The threads went straight into the store of record (backdated): copy
    # them into the shadow stores (COMMENTS_SHADOW_STORES, on in the demo),
    # as `convert_comments` would, so /dev/ can read them under every store.
    # Only the threads just written, in `_id` order as it goes: it would walk
    # every post to find them (docs/benchmarks.md#seeding).
    for shadow in shadows.shadow_stores():
        shadows.convert_threads(source=store, target=shadow, post_ids=sorted(set(touched)))
    if stdout:
        stdout.write(
            f"  {total} comments on {len(touched)} posts ({store.name} store; "
            f"the longest discussion {longest}, the deepest reply at depth {deepest}; "
            f"{voted} votes on the long ones)"
        )


def seed_stage(seeding: Seeding) -> None:
    """seed_demo's stage for this app (socialsite/demo.py)."""
    seed_more(handles=seeding.handles, seed=seeding.seed, stdout=seeding.stdout)
