"""Demo users, profiles, circles and a Socialite-style Zipf follower graph."""

import functools
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.management.base import OutputWrapper
from mongoengine.errors import NotUniqueError
from pymongo.errors import DuplicateKeyError

from profiles.documents import FollowerEdge, FollowingEdge, Profile, User
from profiles.services import HandleTaken, name_terms
from socialsite import events
from socialsite.clock import now
from socialsite.demo import Seeding
from socialsite.zipf import Zipf

DEMO_PASSWORD = "socialsite-demo"

FIRST = (
    "Ada Alan Grace Linus Barbara Ken Margaret Dennis Frances Edsger Radia Tim Hedy "
    "Donald Katherine John Annie Guido Shafi Vint Sophie Bjarne Karen Niklaus Jean "
    "Leslie Lynn Mary Yukihiro Anita Brian Ida Rasmus Evelyn Whitfield Joan Larry "
    "Adele Fran Bob"
).split()
LAST = (
    "Lovelace Turing Hopper Torvalds Liskov Thompson Hamilton Ritchie Allen Dijkstra "
    "Perlman Berners Lamarr Knuth Johnson Backus Easley Rossum Goldwasser Cerf Wilson "
    "Stroustrup Jones Wirth Sammet Lamport Conway Keller Matsumoto Borg Kernighan "
    "Rhodes Lerdorf Boyd Diffie Clarke Wall Goldberg Bernstein Metcalfe"
).split()
PLACES = (
    "Lisbon, Portugal|Osaka, Japan|Nairobi, Kenya|Montréal, Canada|Berlin, Germany|"
    "São Paulo, Brazil|Melbourne, Australia|Austin, USA|Dublin, Ireland|"
    "Seoul, South Korea"
).split("|")
INTERESTS = (
    "databases|hiking|jazz|typography|climbing|baking|chess|cycling|photography|"
    "poetry|gardening|astronomy|running|open source|film|board games|coffee|sailing"
).split("|")
BIOS = (
    "Building things with data. Opinions are my cat's.",
    "Coffee first, schema later.",
    "I write about distributed systems and bake sourdough.",
    "Weekend climber, weekday debugger.",
    "Collecting good ideas and better fonts.",
    "Here for the long threads.",
    "Making computers slightly kinder.",
)
CIRCLES = ("friends", "family", "work", "book club")
# The demo's calendar. People join over four weeks, oldest first, and then
# post over the last three (feeds/demo.py spreads posts over 21 days): nobody
# posts before they joined, and the moderation pages show real join dates.
JOINED_FROM_DAYS_AGO = 49
JOINED_UNTIL_DAYS_AGO = 22
LAST_SEEN_WITHIN_HOURS = 20  # everyone is active (FEED_ACTIVE_DAYS) and gets fan-out


def demo_password_hash() -> str:
    """The demo password, hashed once per process (and hasher setting) and
    shared by every demo account: a PBKDF2 hash costs most of a second, and
    the demo seeds on start."""
    return _hashed(DEMO_PASSWORD, tuple(settings.PASSWORD_HASHERS))


@functools.cache
def _hashed(password: str, hashers: tuple) -> str:
    return make_password(password)


def demo_email(handle: str) -> str:
    return f"{handle.replace('_', '.')}@example.org"


def demo_account(*, handle: str, name: str, role: str) -> User:
    """A demo staff or advertiser account with the demo password, written as
    `user_create` writes a user (the document, then `user_created`, which
    gives it its timelines) but with the shared hash. HandleTaken when the
    handle exists already."""
    user = User(
        handle=handle,
        name=name,
        name_terms=name_terms(name),
        password=demo_password_hash(),
        role=role,
        profile=Profile(),
        email=demo_email(handle),
        email_verified=True,
    )
    try:
        user.save(force_insert=True)
    except (DuplicateKeyError, NotUniqueError) as exc:
        raise HandleTaken(handle) from exc
    events.user_created.send(sender=User, handle=handle)
    return user


def demo_follows(follower: str, followees: list[str]) -> None:
    """Edges from `follower`, written as the seeded graph's are (both edge
    collections and the counters, in bulk): the demo's delivery stage then
    builds the timelines from the whole graph. `follow_create` would backfill
    each follow, and the delivery would find timelines already written and
    go post by post."""
    t = now()
    others = [handle for handle in dict.fromkeys(followees) if handle != follower]
    if not others:
        return
    edge = {"_g": [], "state": "active", "since": t, "changed": t}
    FollowingEdge._get_collection().insert_many(
        [{"_f": follower, "_t": handle, **edge} for handle in others]
    )
    FollowerEdge._get_collection().insert_many(
        [{"_f": handle, "_t": follower, "since": t} for handle in others]
    )
    users = User._get_collection()
    users.update_one({"_id": follower}, {"$inc": {"following_count": len(others)}})
    users.update_many({"_id": {"$in": others}}, {"$inc": {"followers_count": 1}})


def join_dates(n: int, t: datetime, rng: random.Random) -> list[datetime]:
    """n sign-up times, ascending, spread over the joining weeks."""
    start = t - timedelta(days=JOINED_FROM_DAYS_AGO)
    span = (JOINED_FROM_DAYS_AGO - JOINED_UNTIL_DAYS_AGO) * 86400
    return sorted(start + timedelta(seconds=rng.uniform(0, span)) for _ in range(n))


def _after(moment: datetime, rng: random.Random, t: datetime) -> datetime:
    """A moment within a few days after `moment`, before the posting starts."""
    latest = t - timedelta(days=JOINED_UNTIL_DAYS_AGO - 1)
    return min(moment + timedelta(seconds=rng.uniform(60, 3 * 86400)), latest)


def demo_people(n: int, rng: random.Random) -> list[tuple[str, str]]:
    """n distinct (handle, name) pairs; the first is always alice."""
    people = [("alice", "Alice Example")]
    seen = {"alice"}
    while len(people) < n:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        handle = f"{first}_{last}".lower()[:26]
        if handle in seen:
            handle = f"{handle[:24]}{len(people)}"
        seen.add(handle)
        people.append((handle, f"{first} {last}"))
    return people


def _user_template(password: str, t: datetime) -> dict:
    """A demo user's document as MongoEngine writes it (its defaults, field
    order and conversions), for `seed` to copy and fill in: making each of
    thousands of users a User document was a third of the stage's CPU.
    tests/profiles/test_home_and_demo.py holds the seeded users to what
    MongoEngine makes of them. Every demo person has a verified address at
    example.org (a domain that receives no mail), so "Forgot your
    password?" works on the demo at once: the mail is printed and listed on
    /dev/mail/."""
    user = User(
        handle="template",
        name="Template",
        password=password,
        profile=Profile(),
        created=t,
        last_seen=t,
        email=demo_email("template"),
        email_verified=True,
    )
    return user.to_mongo().to_dict()


def _copy_of(document: dict) -> dict:
    """Its own lists and sub-documents, one level down (the template's are
    all empty or flat)."""
    return {k: v.copy() if isinstance(v, list | dict) else v for k, v in document.items()}


def seed(
    *, users: int, maxfollows: int, seed: int = 42, stdout: OutputWrapper | None = None
) -> list[str]:
    """Create `users` users and a follower graph; returns the handles, oldest first.

    The graph is generated the way Socialite's load generator does it: each new
    user follows a Zipf-distributed number of accounts (theta 0.99, at most
    `maxfollows`), picked Zipf-wise among the users who joined before, so the
    early users become the popular ones.
    """
    rng = random.Random(seed)
    people = demo_people(users, rng)
    password = demo_password_hash()
    t = now()
    # Its own generator: the calendar leaves the people and the graph as they were.
    calendar = random.Random(seed + 1000)
    joined = join_dates(len(people), t, calendar)
    user_docs = []
    template = _user_template(password, t)
    for k, (handle, name) in enumerate(people):
        circles = [c for c in CIRCLES if rng.random() < 0.6] or ["friends"]
        profile = {
            "bio": rng.choice(BIOS),
            "location": rng.choice(PLACES),
            "interests": rng.sample(INTERESTS, rng.randint(1, 4)),
            "website": f"https://{handle.replace('_', '')}.example.org"
            if rng.random() < 0.4
            else "",
        }
        user_docs.append(
            _copy_of(template)
            | {
                "_id": handle,
                "name": name,
                "name_terms": name_terms(name),
                "profile": template["profile"] | profile,
                "circles": circles,
                "created": joined[k],
                # alice is the one signed in right now.
                "last_seen": t
                if k == 0
                else t - timedelta(seconds=calendar.uniform(0, LAST_SEEN_WITHIN_HOURS * 3600)),
                "email": demo_email(handle),
            }
        )

    follows_zipf = Zipf(max(1, maxfollows), rng=rng)
    target_zipf = Zipf(users, rng=rng)
    following_docs, follower_docs = [], []
    following_count = [0] * users
    followers_count = [0] * users
    for i in range(1, users):
        wanted = follows_zipf.rank()
        for rank in target_zipf.distinct(wanted, within=i):
            j = rank - 1
            follower, followee = people[i][0], people[j][0]
            circles = [c for c in user_docs[i]["circles"] if rng.random() < 0.35]
            since = _after(joined[i], calendar, t)
            following_docs.append(
                {
                    "_f": follower,
                    "_t": followee,
                    "_g": circles,
                    "state": "active",
                    "since": since,
                    "changed": since,
                }
            )
            follower_docs.append({"_f": followee, "_t": follower, "since": since})
            following_count[i] += 1
            followers_count[j] += 1
    # Early users follow some of the newer ones back, so everyone has a feed.
    # alice, who is signed in, also follows the next most followed two, so that
    # her feed shows the posts of authors pulled rather than pushed
    # (docs/performance.md#celebrities-are-pulled) beside pushed ones.
    for i in range(min(users, 12)):
        picked = rng.sample(range(i + 1, users), min(users - i - 1, 6))
        if i == 0:
            picked += [j for j in (1, 2) if j < users and j not in picked]
        for j in picked:
            follower, followee = people[i][0], people[j][0]
            since = _after(joined[j], calendar, t)  # j joined after i
            following_docs.append(
                {
                    "_f": follower,
                    "_t": followee,
                    "_g": [user_docs[i]["circles"][0]],
                    "state": "active",
                    "since": since,
                    "changed": since,
                }
            )
            follower_docs.append({"_f": followee, "_t": follower, "since": since})
            following_count[i] += 1
            followers_count[j] += 1
    # Each user is written once, counts included, and each edge collection in
    # one insert_many: a bulk insert on a server, and a single unique-index
    # pass in the demo database (a bulk_write of InsertOne checks per document).
    for k, doc in enumerate(user_docs):
        doc["following_count"] = following_count[k]
        doc["followers_count"] = followers_count[k]
    User._get_collection().insert_many(user_docs, ordered=False)
    if following_docs:
        FollowingEdge._get_collection().insert_many(following_docs, ordered=False)
        FollowerEdge._get_collection().insert_many(follower_docs, ordered=False)
    if stdout:
        stdout.write(f"  {users} users, {len(following_docs)} follow edges")
    return [h for h, _ in people]


def seed_stage(seeding: Seeding) -> None:
    """seed_demo's first stage (socialsite/demo.py): the people and their graph."""
    seeding.handles = seed(
        users=seeding.users,
        maxfollows=seeding.maxfollows,
        seed=seeding.seed,
        stdout=seeding.stdout,
    )
    seeding.greeting = (
        f"Demo ready. Log in as alice (or any user) with password '{DEMO_PASSWORD}'."
    )


def seeded() -> bool:
    """Whether the database has users already (seed_demo seeds an empty one)."""
    return bool(User.objects.limit(1).count(with_limit_and_skip=True))
