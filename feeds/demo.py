"""Demo posts of every type, spread over the last weeks, delivered through
the normal fan-out path (the same tasks a real post goes through)."""

import io
import random
from datetime import timedelta

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw

from feeds import photos, polls, services, tasks
from feeds.documents import ALL_CIRCLES, PUBLIC, Post
from feeds.timelines import get_store
from profiles.documents import User
from socialsite.clock import now, to_millis

STATUSES = [
    "Shipped the new release today. Thanks everyone who tested it!",
    "Reading seed 000 again: load the fewest documents per page. Still good advice.",
    "Anyone up for a climb on Saturday? @alice you in?",
    "Sourdough attempt #14 went better than #13.",
    "Today I learned that $slice works inside $push. Capped arrays for free.",
    "Coffee, then schema design, then more coffee.",
    "Hot take: most feeds should be cached, not computed.",
    "Finally finished that book. The ending!",
]
LINKS = [
    ("https://www.mongodb.com/docs/manual/", "The MongoDB manual", "Bookmarking this."),
    ("https://docs.djangoproject.com/", "Django documentation", "Still the best docs around."),
    (
        "https://en.wikipedia.org/wiki/Zipf%27s_law",
        "Zipf's law",
        "Why a few accounts get most followers.",
    ),
]
PLACES = [
    ("Blue Bottle Coffee", 37.7763, -122.4232),
    ("Tate Modern", 51.5076, -0.0994),
    ("Shibuya Crossing", 35.6595, 139.7005),
    ("Parque del Retiro", 40.4153, -3.6844),
]
POLLS = [
    ("Tabs or spaces?", ["Tabs", "Spaces", "Whatever the formatter says"]),
    ("Best time to post?", ["Morning", "Lunch", "Evening", "3 a.m."]),
]
COLOURS = [(109, 92, 246), (22, 163, 160), (240, 140, 60), (220, 70, 110)]


def _photo(rng: random.Random) -> photos.ProcessedPhoto:
    a, b = rng.sample(COLOURS, 2)
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
    return photos.process_upload(upload)


def _vote(post: Post, voters: list[str], rng: random.Random) -> None:
    """Demo votes in one poll. They are written as `services.poll_vote` writes
    a vote, and, as it does, the poll's embedded copies in timelines are
    refreshed (FEED_EMBED): once per poll rather than once per vote."""
    for voter in voters:
        option = rng.randrange(len(post.detail["options"]))
        try:
            polls.poll_vote(post_id=post.id, voter=voter, option=option)
        except polls.PollError:
            continue  # refused, as for anyone: e.g. a block between the two
    tasks.refresh_copies.enqueue(str(post.id), ["detail"])


def seed_more(*, handles: list[str], seed: int, stdout=None, posts_per_user: float = 1.5) -> None:
    rng = random.Random(seed + 1)
    get_store().ensure_owner(handles)
    users = {u.handle: u for u in User.objects(handle__in=handles)}
    count = int(len(handles) * posts_per_user)
    start = now() - timedelta(days=21)
    # Posts arrive in time order, as they would on a live site; the early,
    # popular users post more.
    # To the millisecond, as MongoDB stores them (DESIGN.md §6).
    times = sorted(
        to_millis(start + timedelta(seconds=rng.uniform(0, 21 * 86400))) for _ in range(count)
    )
    weights = [1 / (i + 1) ** 0.6 for i in range(len(handles))]
    authors = rng.choices(handles, weights=weights, k=count)
    made = []
    for ts, handle in zip(times, authors, strict=True):
        author = users[handle]
        kind = rng.choices(["status", "link", "photo", "checkin", "poll"], [6, 2, 1, 1, 1])[0]
        circles = [PUBLIC]
        if author.circles and rng.random() < 0.25:
            circles = [ALL_CIRCLES] if rng.random() < 0.4 else [rng.choice(author.circles)]
        to = None
        if rng.random() < 0.08:
            to = rng.choice(handles)
        photo = None
        if kind == "status":
            detail = {"text": rng.choice(STATUSES)}
        elif kind == "link":
            url, title, text = rng.choice(LINKS)
            detail = {"url": url, "title": title, "text": text}
        elif kind == "photo":
            detail, photo = {"text": "Today's colours."}, _photo(rng)
        elif kind == "checkin":
            place, lat, lng = rng.choice(PLACES)
            detail = {"place": place, "lat": lat, "lng": lng, "text": "Here now."}
        else:
            question, options = rng.choice(POLLS)
            detail = {"question": question, "options": options, "votes": [0] * len(options)}
        try:
            post = services.post_create(
                author=author, type=kind, detail=detail, circles=circles, to=to, photo=photo, ts=ts
            )
        except services.PostError:
            continue
        made.append(post)
    for post in made:
        if post.type == "poll":
            _vote(post, rng.sample(handles, min(len(handles), 12)), rng)
    if stdout:
        stdout.write(f"  {len(made)} posts delivered ({Post.objects.count()} in all)")
