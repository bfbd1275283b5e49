"""Demo posts of every type, spread over the last weeks.

Two paths build the same data. `one_by_one` is the site's own: each post
through `services.post_create`, delivered as a real post is. `in_bulk` (the
default) writes the posts in one insert and leaves them pending, for the
timelines' demo stage to deliver in bulk (timelines/demo.py).
tests/test_seed_bulk.py builds a small world both ways and compares them.
"""

import io
import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw
from pymongo import UpdateOne

from feeds import demo_marks, demo_texts, mentions, words
from feeds.documents import ALL_CIRCLES, PUBLIC, Author, Delivery, Post, PostRepost
from feeds.services import counts as marks
from feeds.services import photos, polls
from feeds.services import posts as services
from profiles import selectors as people
from profiles.documents import User
from profiles.services import pins as pin_services
from profiles.services import standing
from socialsite import events
from socialsite.clock import aware, now, to_millis
from socialsite.sampling import Population

PLACES = [
    ("Blue Bottle Coffee", 37.7763, -122.4232),
    ("Tate Modern", 51.5076, -0.0994),
    ("Shibuya Crossing", 35.6595, 139.7005),
    ("Parque del Retiro", 40.4153, -3.6844),
]
# The demo's login: the marks on her posts reach her notifications.
ANNOUNCED = {"alice"}
COLOURS = [(109, 92, 246), (22, 163, 160), (240, 140, 60), (220, 70, 110)]


def _photo(rng: random.Random, made: dict) -> photos.ProcessedPhoto:
    """A gradient photo; one encoding per colour pair (`made` keeps them)."""
    a, b = rng.sample(COLOURS, 2)
    if (a, b) in made:
        return made[a, b]
    image = Image.new("RGB", (640, 420), a)
    draw = ImageDraw.Draw(image)
    for i in range(0, 420, 6):
        mix = i / 420
        draw.line(
            [(0, i), (640, i)], fill=tuple(int(a[k] * (1 - mix) + b[k] * mix) for k in range(3))
        )
    draw.ellipse((380, 60, 560, 240), fill=(255, 255, 255))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=85)
    upload = SimpleUploadedFile("demo.jpg", buffer.getvalue(), content_type="image/jpeg")
    made[a, b] = photos.process_upload(upload)
    return made[a, b]


def _ballots(post: Post, voters: list[str], rng: random.Random) -> list[tuple]:
    """Demo votes in one poll, `(poll, voter, option)`: the crowd leans to
    an option or two, as people do."""
    leaning = [rng.expovariate(1) for _ in post.detail["options"]]
    options = range(len(leaning))
    return [(post.id, voter, rng.choices(options, leaning)[0]) for voter in voters]


def _vote(ballots: list[tuple], *, bulk: bool) -> None:
    """The votes through the site's `poll_vote` one by one, or in bulk
    (`polls_seed`, which refuses what it refuses: a block between the two)."""
    if bulk:
        polls.polls_seed(votes=ballots)
        return
    for post_id, voter, option in ballots:
        try:
            polls.poll_vote(post_id=post_id, voter=voter, option=option)
        except polls.PollError:
            continue  # refused, as for anyone: e.g. a block between the two


def _poll_voters(
    planned: list[dict],
    spread: demo_marks.Marks,
    handles: list[str],
    users: dict,
    placed: dict,
    seed: int,
) -> dict[int, list[str]]:
    """Each demo poll's voters by planned post: the marks plan's (its likers
    and a few more), topped up from the people who may see it to a Zipf-ish
    count, from a few dozen for the best-liked poll to 3 for the tail
    (docs/features.md#the-demo): only they may mark it, never across a
    block (demo_marks' rules)."""
    rng = random.Random(f"{seed}:poll voters")
    barred: dict[str, set[str]] = {}
    for handle, user in users.items():
        for other in user.blocked or ():
            barred.setdefault(handle, set()).add(other)
            barred.setdefault(other, set()).add(handle)
    everyone = Population(handles)
    found = [i for i, kwargs in enumerate(planned) if kwargs["type"] == "poll"]
    order = sorted(found, key=lambda i: (-len(spread.voters.get(i, ())), rng.random()))
    top = min(40, max(6, len(handles) // 6))
    voters = {}
    for rank, i in enumerate(order, start=1):
        chosen = list(spread.voters.get(i, []))
        wanted = 3 + int((top - 3) / rank**0.9)
        if len(chosen) < wanted:
            seers = demo_marks._seers(planned[i], everyone, barred, placed)
            extra = demo_marks._besides(seers, chosen)
            chosen += rng.sample(extra, min(len(extra), wanted - len(chosen)))
        voters[i] = chosen
    return voters


def _end_polls(made: list[Post], rng: random.Random) -> None:
    """Each demo poll's end (`detail.expires`), set once its demo votes are in
    (a vote after the end is refused). Every other poll, newest first, is
    still open: one of the composer's durations from its own time when that
    is still ahead, else from now (a longer poll, as the client API allows);
    the rest ended one of those durations after they were posted. So the
    demo always shows both. One write for all of them."""
    moment, writes = now(), []
    durations = [timedelta(seconds=d) for d in polls.DURATIONS]
    newest_first = sorted(made, key=lambda post: aware(post.ts), reverse=True)
    for rank, post in enumerate(newest_first):
        ts = aware(post.ts)
        closed = [d for d in durations if ts + d <= moment]
        if rank % 2 == 0 or not closed:
            ahead = [d for d in durations if ts + d > moment]
            ends = ts + rng.choice(ahead) if ahead else moment + rng.choice(durations)
        else:
            ends = ts + rng.choice(closed)
        post.detail["expires"] = to_millis(ends)
        writes.append(UpdateOne({"_id": post.id}, {"$set": {"detail.expires": to_millis(ends)}}))
    if writes:
        Post._get_collection().bulk_write(writes, ordered=False)


@dataclass(frozen=True)
class _Author:
    """What the bulk path reads of a user: all `in_bulk` and the plans ask
    (a User document each was a tenth of this stage's CPU at 15,000 users)."""

    handle: str
    name: str
    circles: list[str]
    blocked: list[str]
    followers_count: int


def _authors(handles: list[str]) -> dict[str, _Author]:
    """The users among `handles`, by handle (one read)."""
    fields = {"name": 1, "circles": 1, "blocked": 1, "followers_count": 1}
    return {
        row["_id"]: _Author(
            handle=row["_id"],
            name=row["name"],
            circles=row.get("circles") or [],
            blocked=row.get("blocked") or [],
            followers_count=row.get("followers_count") or 0,
        )
        for row in people.users_read(handles, fields)
    }


def _plan(handles: list[str], users: dict, rng: random.Random, count: int) -> list[dict]:
    """The posts to make, oldest first: post_create's keyword arguments."""
    start = now() - timedelta(days=21)
    # Posts arrive in time order, as they would on a live site; the early,
    # popular users post more.
    # To the millisecond, as MongoDB stores them (docs/performance.md).
    times = sorted(
        to_millis(start + timedelta(seconds=rng.uniform(0, 21 * 86400))) for _ in range(count)
    )
    weights = [1 / (i + 1) ** 0.6 for i in range(len(handles))]
    authors = rng.choices(handles, weights=weights, k=count)
    photos_made: dict = {}
    # Its own generator, so the words can grow without moving the rest.
    texts = demo_texts.Words(random.Random(rng.getrandbits(64)))
    planned = []
    for ts, handle in zip(times, authors, strict=True):
        author = users[handle]
        kind = rng.choices(["status", "link", "photo", "checkin", "poll"], [6, 2, 1, 1, 1])[0]
        circles = [PUBLIC]
        if author.circles and rng.random() < 0.25:
            circles = [ALL_CIRCLES] if rng.random() < 0.4 else [rng.choice(author.circles)]
        if kind == "poll":
            circles = [PUBLIC]  # a poll asks many: a small circle would leave it empty
        to = None
        if rng.random() < 0.08:
            to = rng.choice(handles)
        photo = None
        detail: dict[str, Any]
        if kind == "status":
            # Mentions name someone else: nobody @mentions themselves.
            others = [h for h in rng.sample(handles, min(len(handles), 3)) if h != handle]
            detail = {"text": texts.status(others)}
        elif kind == "link":
            detail = texts.link()
        elif kind == "photo":
            detail, photo = {"text": texts.photo()}, _photo(rng, photos_made)
        elif kind == "checkin":
            place, lat, lng = rng.choice(PLACES)
            detail = {"place": place, "lat": lat, "lng": lng, "text": texts.checkin()}
        else:
            question, options = texts.poll()
            detail = {"question": question, "options": options, "votes": [0] * len(options)}
        planned.append(
            {"author": author, "type": kind, "detail": detail, "circles": circles, "to": to}
            | {"photo": photo, "ts": ts}
        )
    return planned


def one_by_one(planned: list[dict], reposts: list | None = None) -> list:
    """Each post through `post_create`, delivered by its task as it is made;
    each of `reposts` (demo_marks' rows) delivered in its turn, by the site's
    fan-out, as if it were happening then."""
    made: list = []
    by_index: dict = {}
    waiting = sorted(reposts or [], key=lambda row: row[2])

    def repost_until(moment: datetime | None) -> None:
        while waiting and (moment is None or waiting[0][2] <= moment):
            rows = _mark_rows([waiting.pop(0)], by_index)
            marks.marks_seed(likes=[], reposts=rows, announce=ANNOUNCED)
            for row in rows:
                events.repost_delivery_due.send(
                    sender=PostRepost, post_id=row["post"], reposter=row["by"]
                )

    for i, kwargs in enumerate(planned):
        repost_until(kwargs["ts"])
        try:
            made.append(services.post_create(**kwargs))
        except services.PostError:
            continue
        by_index[i] = made[-1]
    repost_until(None)
    return made


def _made_index(planned: list[dict], made: list) -> dict[int, Post]:
    """The post made of each planned one, by its index in the plan."""
    found = {(post.by.id, aware(post.ts)): post for post in made}
    keys = ((kwargs["author"].handle, aware(kwargs["ts"])) for kwargs in planned)
    return {i: found[key] for i, key in enumerate(keys) if key in found}


def _mark_rows(rows: list, by_index: dict) -> list[dict]:
    """demo_marks' (plan index, who, when) as marks of the posts made."""
    return [
        {"post": by_index[i].id, "by": by, "ts": ts, "author": by_index[i].by.id}
        for i, by, ts in rows
        if i in by_index
    ]


def _allowed(kwargs: dict, users: dict) -> bool:
    """post_create's refusals that demo posts can meet: a wall across a block."""
    to, author = kwargs["to"], kwargs["author"]
    if to is None or to == author.handle:
        return True
    target = users.get(to)
    return target is not None and author.handle not in target.blocked and to not in author.blocked


def in_bulk(planned: list[dict], users: dict) -> list:
    """The posts as `post_create` writes them, in one insert; their counts and
    notifications as it makes them. Delivery follows, in `_fan_out`."""
    docs, made = [], []
    # Who the texts name, asked once for all of them (post_create asks per post).
    texts = [kwargs["detail"].get(k) for kwargs in planned for k in ("text", "question")]
    people_now = set(mentions.people_named(*texts))
    for kwargs in planned:
        if not _allowed(kwargs, users):
            continue
        author, detail = kwargs["author"], dict(kwargs["detail"])
        named = mentions.handles_in(detail.get("text")) | mentions.handles_in(
            detail.get("question")
        )
        to = None if kwargs["to"] == author.handle else kwargs["to"]
        if kwargs["photo"] is not None:
            detail.update(photos.store(kwargs["photo"], author.handle))
        post = Post(
            by=Author(id=author.handle, name=author.name),
            to=to,
            circles=list(kwargs["circles"]),
            type=kwargs["type"],
            detail=detail,
            mentions=sorted(named & people_now),
            **words.searchable(detail),
            ts=to_millis(aware(kwargs["ts"])),
            delivery=Delivery(state="pending", queued=now()),
        )
        docs.append(post.to_mongo().to_dict())
        made.append(post)
    if not docs:
        return []
    inserted = Post._get_collection().insert_many(docs).inserted_ids
    for post, post_id in zip(made, inserted, strict=True):
        post.id = post_id
        # Its receivers record what post_create's would (tag uses, mentions).
        events.post_created.send(sender=Post, post=post)
    counts = Counter(post.by.id for post in made)
    standing.posts_counts_add(dict(counts))
    return made


def _pin(made: list, users: dict, rng: random.Random) -> int:
    """Some people pin a public post or two to their wall: alice always, so
    her wall shows pins (docs/discovery.md#pins). Returns how many pins."""
    public: dict[str, list] = {}
    for post in made:
        if PUBLIC in post.circles and not post.to:
            public.setdefault(post.by.id, []).append(post)
    pins = 0
    for handle, posts in sorted(public.items()):
        if handle != "alice" and rng.random() > 0.1:
            continue
        for post in rng.sample(posts, min(len(posts), 2 if handle == "alice" else 1)):
            if pin_services.pin_add(handle=handle, post_id=post.id):
                pins += 1
    return pins


def seed_more(
    *,
    handles: list[str],
    seed: int,
    stdout: Any = None,
    posts_per_user: float = 1.5,
    bulk: bool = True,
) -> None:
    """`bulk=False` makes every post through the site's own per-post path,
    delivered as it is made. In bulk the posts are left pending for the
    timelines' `deliver_pending` (timelines/demo.py), which seed_demo runs
    last: the other demos' comments and votes are then in the posts before
    they are copied into timelines, rather than refreshed in every copy
    afterwards."""
    rng = random.Random(seed + 1)
    users = _authors(handles) if bulk else {u.handle: u for u in User.objects(handle__in=handles)}
    planned = _plan(handles, users, rng, int(len(handles) * posts_per_user))
    placed = people.placements_all()
    spread = demo_marks.plan(planned, handles, users, placed, seed)
    made = in_bulk(planned, users) if bulk else one_by_one(planned, spread.reposts)
    by_index = _made_index(planned, made)
    index_of = {post.id: i for i, post in by_index.items()}
    polls_made = [post for post in made if post.type == "poll"]
    # Their own generator, so more or fewer votes move nothing else.
    voters = _poll_voters(planned, spread, handles, users, placed, seed)
    voting = random.Random(f"{seed}:votes")
    ballots = [
        ballot
        for post in polls_made
        for ballot in _ballots(post, voters.get(index_of.get(post.id, -1), []), voting)
    ]
    _vote(ballots, bulk=bulk)
    liked = _mark_rows(spread.likes, by_index)
    reposted = _mark_rows(spread.reposts, by_index) if bulk else []
    marks.marks_seed(likes=liked, reposts=reposted, announce=ANNOUNCED)
    # In bulk, delivered after: the copies the delivery makes carry the
    # counts, and it says so (timelines/demo.py).
    all_reposts = reposted if bulk else _mark_rows(spread.reposts, by_index)
    marked = marks.counts_seed(likes=liked, reposts=all_reposts, copied=False)
    # Its own generator: the rest of the demo stays as it was before polls ended.
    _end_polls(polls_made, random.Random(f"{seed}:poll ends"))
    pins_made = _pin(made, users, rng)
    if not bulk:
        for post in polls_made:  # copies refreshed once per poll rather than per vote
            events.post_changed.send(
                sender=Post, post_id=post.id, fields=["detail"], at_once=False
            )
        for post_id in marked:
            events.post_counts_changed.send(sender=Post, post_id=post_id)
    if stdout:
        state = "delivered" if not bulk else "waiting for delivery"
        stdout.write(
            f"  {len(made)} posts {state} ({Post.objects.count()} in all; {pins_made} pinned; "
            f"{len(liked)} likes, {len(spread.reposts)} reposts)"
        )


def seed_stage(seeding: Any) -> None:
    """seed_demo's stage (socialsite/demo.py): the posts, left pending for
    `delivery_stage`, which runs after every other app's demo."""
    seed_more(handles=seeding.handles, seed=seeding.seed, stdout=seeding.stdout)
