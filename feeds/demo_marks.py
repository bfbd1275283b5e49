"""Who likes, reposts and votes in the demo's posts (docs/features.md#the-demo).

Attention follows a Zipf law, as Socialite's load generator draws it: the
posts are ranked (the better followed an author, the likelier their post
ranks high) and the post at rank k gets about `top / k**0.9` likes, on top
of a like or two that most posts get anyway. So a few posts are popular, a
long tail is not, and almost none is left at zero. About one liker in five
of a public post also reposts it; a poll's voters follow its likes.

Only people who may see a post mark it (anyone for a public post, the
author's circle members for a limited one), never its author, never across
a block; each mark is timed between its post and now, most soon after the
post. The plan is made from the posts' plan, before they are written, so
both of feeds/demo.py's paths make the same marks.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from feeds.documents import ALL_CIRCLES, PUBLIC
from socialsite.clock import now, to_millis
from socialsite.sampling import Excluding, Population

THETA = 0.9


@dataclass
class Marks:
    """Rows by planned post (its index in the plan)."""

    likes: list[tuple[int, str, datetime]] = field(default_factory=list)
    reposts: list[tuple[int, str, datetime]] = field(default_factory=list)
    voters: dict[int, list[str]] = field(default_factory=dict)


def _seers(kwargs: dict, everyone: Population, barred: dict, placed: dict) -> Sequence[str]:
    """Who may see and mark the planned post: not its author, no block between.
    A public post's are everyone less a few, a view rather than a list
    (socialsite/sampling.py): one list per post would cost the whole world
    per post."""
    author = kwargs["author"].handle
    circles = kwargs["circles"]
    out = barred.get(author, set()) | {author}
    if PUBLIC in circles:
        return everyone.without(out)
    wanted = None if ALL_CIRCLES in circles else set(circles)
    pool = sorted(
        m for m, named in placed.get(author, []) if named and (not wanted or named & wanted)
    )
    return [h for h in pool if h not in out]


def _besides(seers: Sequence[str], taken: list[str]) -> Sequence[str]:
    """`seers` less `taken`, in order (a view stays a view)."""
    if isinstance(seers, Excluding):
        return seers.without(taken)
    left_out = set(taken)
    return [h for h in seers if h not in left_out]


def _when(rng: random.Random, posted: datetime, moment: datetime) -> datetime:
    """A time after the post, most within hours, never in the future."""
    latest = moment - timedelta(minutes=1)
    later = posted + timedelta(seconds=60 + rng.expovariate(1 / (8 * 3600)))
    return to_millis(min(later, latest) if latest > posted else posted)


def plan(planned: list[dict], handles: list[str], users: dict, placed: dict, seed: int) -> Marks:
    rng = random.Random(f"{seed}:marks")
    moment = now()
    top = max(6, len(handles) // 5)
    # Rank: a draw weighted by the author's following, so the popular post more hits.
    score = [
        rng.random() * (1 + (kwargs["author"].followers_count or 0)) ** 0.5 for kwargs in planned
    ]
    order = sorted(range(len(planned)), key=lambda i: -score[i])
    # Who is barred from whose posts: blocks, both ways, read once.
    barred: dict[str, set[str]] = {}
    for handle, user in users.items():
        for other in user.blocked or ():
            barred.setdefault(handle, set()).add(other)
            barred.setdefault(other, set()).add(handle)
    marks = Marks()
    everyone = Population(handles)
    for rank, i in enumerate(order, start=1):
        kwargs = planned[i]
        seers = _seers(kwargs, everyone, barred, placed)
        wanted = int(top / rank**THETA) + rng.choices([0, 1, 2, 3], [2, 4, 3, 1])[0]
        likers = rng.sample(seers, min(len(seers), wanted))
        posted = kwargs["ts"]
        marks.likes += [(i, h, _when(rng, posted, moment)) for h in likers]
        if PUBLIC in kwargs["circles"] and likers:
            reposters = likers[: int(len(likers) * rng.uniform(0.1, 0.3))]
            marks.reposts += [(i, h, _when(rng, posted, moment)) for h in reposters]
        if kwargs["type"] == "poll":
            extra = _besides(seers, likers)
            more = rng.sample(extra, min(len(extra), rng.randint(1, 5)))
            marks.voters[i] = likers + more
    return marks
