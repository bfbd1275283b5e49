"""Demo conversations for alice (docs/messages.md): a one-to-one with a
long history (several buckets, pages back in time), a group of four, and
a new one she has not read yet. Written straight into this app's
collections, backdated, in full buckets as the append would leave them;
her header count is set to what she has unread."""

import random
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bson import ObjectId
from django.conf import settings

from messaging.documents import Conversation, ConversationKey, MessageBucket
from messaging.services import key_of
from profiles import selectors as people
from profiles.services import standing
from socialsite.clock import now
from socialsite.demo import Seeding

if TYPE_CHECKING:
    from django.core.management.base import OutputWrapper

LINES = [
    "Are you coming on Saturday?",
    "Yes! I'll bring the bread.",
    "Did you see the talk on bucketing?",
    "Buckets of 100 and a race-safe rollover. Nice.",
    "Can you send me the slides?",
    "Sure, give me a minute.",
    "Thanks, that helped a lot.",
    "Coffee tomorrow?",
    "Only if it's before ten.",
    "Deal.",
]


def _conversation(
    rng: random.Random, members: list[dict], lines: int, start: datetime, behind: list[str]
) -> list[str]:
    """One conversation of `lines` messages by its members, oldest first.

    Those in `behind` last read it when they last wrote in it, the others
    after its newest message; so it is unread for whoever of `behind` did
    not write that message, as a client would show it. The newest is by
    someone else than the first of `behind`, so that one has something new
    to read. Returns who has it unread."""
    conversation_id = ObjectId.from_datetime(start)
    step = (now() - start) / (lines + 1)  # the newest a step before now
    messages = []
    for i in range(lines):
        author = members[i % len(members)] if rng.random() < 0.7 else rng.choice(members)
        if i == lines - 1 and behind and author["h"] == behind[0]:
            author = rng.choice([m for m in members if m["h"] != behind[0]])
        messages.append(
            {
                "_id": ObjectId(),
                "by": author["h"],
                "name": author["name"],
                "text": rng.choice(LINES),
                "ts": start + step * (i + 1),
            }
        )
    size = settings.MESSAGES_BUCKET_SIZE
    buckets = [
        {
            "conversation": conversation_id,
            "bucket": n,
            "count": len(chunk),
            "bytes": 0,
            "messages": chunk,
        }
        for n, chunk in enumerate(messages[i : i + size] for i in range(0, len(messages), size))
    ]
    last = messages[-1]
    read = {m["h"]: last["ts"] for m in members}
    for handle in behind:
        mine = [m["ts"] for m in messages if m["by"] == handle]
        read[handle] = mine[-1] if mine else start
    unread = [h for h in behind if read[h] < last["ts"]]
    number = len(buckets) - 1 + (1 if buckets[-1]["count"] >= size else 0)
    Conversation._get_collection().insert_one(
        {
            "_id": conversation_id,
            "members": [{**m, "joined": start, "read": read[m["h"]]} for m in members],
            "everyone": [m["h"] for m in members],
            "active": [m["h"] for m in members],
            "unread": unread,
            "started_by": members[0]["h"],
            "started": start,
            "ts": last["ts"],
            "count": len(messages),
            "num_buckets": number,
            "last": {
                "id": last["_id"],
                "by": last["by"],
                "name": last["name"],
                "text": last["text"],
                "ts": last["ts"],
            },
        }
    )
    MessageBucket._get_collection().insert_many(buckets)
    ConversationKey._get_collection().insert_one(
        {"_id": key_of(m["h"] for m in members), "conversation": conversation_id}
    )
    return unread


def seed_more(*, handles: list[str], seed: int, stdout: "OutputWrapper | None" = None) -> None:
    if "alice" not in handles:
        return
    rng = random.Random(seed + 7)
    others = [h for h in people.followed_by("alice") if h in set(handles)]
    others = sorted(others)[:6] or [h for h in handles if h != "alice"][:6]
    if len(others) < 4:
        return
    names = {
        row["_id"]: row.get("name") or row["_id"]
        for row in people.users_read(["alice", *others], {"name": 1})
    }

    def member(handle: str) -> dict[str, str]:
        return {"h": handle, "name": names.get(handle, handle)}

    moment = now()
    newest = others[4] if len(others) > 4 else others[3]
    unread = [
        _conversation(
            rng, [member("alice"), member(others[0])], 240, moment - timedelta(days=20), []
        ),
        _conversation(
            rng,
            [member(h) for h in ("alice", *others[1:4])],
            40,
            moment - timedelta(days=3),
            ["alice"],
        ),
        _conversation(
            rng, [member(newest), member("alice")], 3, moment - timedelta(hours=2), ["alice"]
        ),
    ]
    count = sum("alice" in behind for behind in unread)
    standing.messages_unread_set(handle="alice", unread=count)
    if stdout:
        stdout.write(f"  3 conversations for alice, {240 + 40 + 3} messages ({count} unread)")


def seed_stage(seeding: Seeding) -> None:
    """seed_demo's stage for this app (socialsite/demo.py)."""
    seed_more(handles=seeding.handles, seed=seeding.seed, stdout=seeding.stdout)
