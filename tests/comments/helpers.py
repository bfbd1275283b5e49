"""Discussions for the comment-store tests."""

import random
from datetime import UTC, datetime, timedelta

from bson import ObjectId

from comments.stores import slugs
from feeds.documents import PUBLIC, Author, Post

BASE = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
ALICE = {"id": "alice", "name": "Alice"}


def new_discussion() -> ObjectId:
    post = Post(
        by=Author(id="alice", name="Alice"), circles=[PUBLIC], type="status", detail={"text": "x"}
    ).save()
    return post.id


def texts(comments) -> list[str]:
    return [c.text for c in comments]


def walk(fetch, limit: int) -> list:
    """Every comment, following `next` cursors from the first page."""
    found, cursor = [], None
    while True:
        page = fetch(after=cursor, limit=limit)
        found += page.comments
        if page.next is None:
            return found
        cursor = page.next


def read_all(store, discussion_id, order: str, limit: int = 7) -> list:
    """A whole discussion in `order`, page by page."""
    return walk(
        lambda after, limit: store.page(discussion_id, order=order, after=after, limit=limit),
        limit,
    )


def random_discussion(n: int, seed: int) -> tuple[list[int | None], list[int]]:
    """(parent index of each comment or None, the expected threaded order).

    Comment i is posted at BASE + i seconds, so posting order is time order."""
    rng = random.Random(seed)
    parents: list[int | None] = []
    for i in range(n):
        parents.append(None if i == 0 or rng.random() < 0.3 else rng.randrange(i))
    children: dict[int | None, list[int]] = {}
    for i, p in enumerate(parents):
        children.setdefault(p, []).append(i)

    def preorder(node):
        for child in children.get(node, []):
            yield child
            yield from preorder(child)

    return parents, list(preorder(None))


def post_discussion(store, discussion_id, parents: list[int | None]) -> list:
    made = []
    for i, p in enumerate(parents):
        made.append(
            store.post(
                discussion_id,
                author=ALICE,
                text=f"c{i}",
                parent_slug=None if p is None else made[p].slug,
                posted=BASE + timedelta(seconds=i),
            )
        )
    return made


def stored_comment(i: int, parent: dict | None = None, *, posted=None) -> dict:
    """A comment in stored form, with a slug unique by construction."""
    posted = posted or BASE + timedelta(seconds=i)
    part = "".join(slugs.ALPHABET[(i // 36**k) % 36] for k in range(3, -1, -1))
    return slugs.new_comment(
        part=part, posted=posted, parent=parent, author=ALICE, text=f"c{i}", oid=ObjectId()
    )
