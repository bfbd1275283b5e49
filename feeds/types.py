"""The shape of a post as it leaves `feeds`: what timelines store and page
through, what cards and templates read (docs/architecture.md#the-typed-seam).

A post travels as the raw MongoDB document its read projected (cheap: no
document objects on a page of 20), typed here so that the apps above name
its fields rather than guess them. `total=False`: a projection reads a
subset, and old posts lack fields added since.
"""

from datetime import datetime
from typing import Any, TypedDict

from bson import ObjectId

# The key of an entry (and then of its post) that holds what a page's
# lookups found beside it (feeds/selectors/lookups.py): the reader's like,
# vote, and edges, so the page asks no query of its own for them.
FOUND = "_found"
# The key of a post on a news page read from a pulled author's posts rather
# than the stored timeline (timelines/selectors/pulled.py): its card says so.
PULLED_IN = "_pulled_in"


class AuthorRef(TypedDict):
    """`by`: the author, as *Storing Updates and Profiles* embeds them."""

    id: str
    name: str


class RemovalNote(TypedDict, total=False):
    by: str
    ts: datetime
    reason: str


class DeliveryState(TypedDict, total=False):
    """`delivery`: where the post's fan-out stands (timelines/delivery/fanout.py)."""

    state: str
    queued: datetime
    started: datetime
    finished: datetime
    attempts: int
    readers: int
    failed: datetime
    error: str


class PostDict(TypedDict, total=False):
    """A `post` document as a card reads it (`CARD_FIELDS`)."""

    _id: ObjectId
    by: AuthorRef
    to: str | None
    circles: list[str]
    type: str
    ts: datetime
    detail: dict[str, Any]
    mentions: list[str] | None
    tags: list[str] | None
    edited: datetime | None
    comments_count: int
    comments_shown: list[dict[str, Any]]
    likes_count: int
    reposts_count: int
    counts_v: int
    delivery: DeliveryState
    removed: RemovalNote | None
    author_suspended: bool
