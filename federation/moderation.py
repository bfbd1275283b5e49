"""Whole servers, for moderators and for each person (docs/federation.md#moderation-and-safety).

A moderator's `block` refuses everything from the domain (its inbox
requests get 403, nothing is fetched from it or sent to it) and suspends
each of its people known here, so their posts leave every page; `silence`
lets its people reach only those who follow them: a post, reply, like or
repost by one of them that nobody here follows is taken and dropped
(federation/inbox.py), so strangers there neither fill the public
timelines nor notify anyone. A person's own domain block
blocks each of that server's people they know, and each one met later.
"""

from pymongo.errors import DuplicateKeyError

from federation.documents import Delivery, DomainRule
from moderation.services.base import audit
from moderation.services.users import user_suspend, user_unsuspend
from moderation.targets import Target
from profiles.documents import User
from profiles.services import graph, remote
from socialsite.clock import now

# The people of a blocked domain suspended in one moderator's request; a
# bigger server's rest is suspended as its people are met (`person_met`).
SUSPEND_BATCH = 1000


class DomainError(Exception):
    """A domain rule that is refused, with a message for the moderator."""


def clean_domain(value: object) -> str:
    if not isinstance(value, str):
        raise DomainError("Write a domain, such as social.example.")
    domain = value.strip().lower().removeprefix("https://").removeprefix("http://").strip("/")
    if (
        not domain
        or len(domain) > 253
        or any(c not in "abcdefghijklmnopqrstuvwxyz0123456789.-:" for c in domain)
    ):
        raise DomainError("Write a domain, such as social.example.")
    return domain


def rule_of(domain: str) -> str | None:
    found = DomainRule.objects(domain=domain).only("level").first()
    return found.level if found else None


def is_blocked(domain: str) -> bool:
    return rule_of(domain) == "block"


def rules() -> list[DomainRule]:
    return list(DomainRule.objects.order_by("domain").limit(1000))


def domain_rule_set(*, moderator: User, domain: str, level: str, reason: str = "") -> int:
    """Block or silence a domain; returns how many of its people were suspended."""
    domain = clean_domain(domain)
    if level not in ("block", "silence"):
        raise DomainError("Choose block or silence.")
    rule = {"level": level, "reason": reason[:500], "by": moderator.handle, "ts": now()}
    try:
        DomainRule._get_collection().update_one({"_id": domain}, {"$set": rule}, upsert=True)
    except DuplicateKeyError:  # two moderators at once: the other inserted it
        DomainRule._get_collection().update_one({"_id": domain}, {"$set": rule})
    audit(
        moderator=moderator.handle,
        action=f"domain.{level}",
        target=Target(type="domain", id=domain),
        reason=reason,
    )
    if level != "block":
        return 0
    Delivery._get_collection().delete_many({"domain": domain, "state": "pending"})
    people = User.objects(domain=domain, status="active").only("handle").limit(SUSPEND_BATCH)
    for person in people:
        user_suspend(
            moderator=moderator,
            target=Target(type="user", id=person.handle),
            reason=reason or f"Domain {domain} blocked",
        )
    return len(people)


def domain_rule_delete(*, moderator: User, domain: str) -> None:
    domain = clean_domain(domain)
    DomainRule._get_collection().delete_one({"_id": domain})
    audit(
        moderator=moderator.handle, action="domain.lift", target=Target(type="domain", id=domain)
    )
    for person in (
        User.objects(domain=domain, status="suspended").only("handle").limit(SUSPEND_BATCH)
    ):
        user_unsuspend(moderator=moderator, target=Target(type="user", id=person.handle))


def person_met(user: User) -> None:
    """A remote person stored or refreshed: the domain rules reach them too."""
    if not user.domain:
        return
    blockers = User.objects(blocked_domains=user.domain).only("handle", "blocked").limit(10_000)
    for blocker in blockers:
        if user.handle not in blocker.blocked:
            graph.block_create(blocker=blocker, blocked=user.handle)


def person_blocks_domain(*, user: User, domain: str) -> int:
    """A person hides a server for themselves: each of its people they know
    is blocked (follows both ways end); returns how many."""
    domain = clean_domain(domain)
    remote.domain_block_add(user=user, domain=domain)
    count = 0
    for person in User.objects(domain=domain).only("handle").limit(10_000):
        if person.handle not in user.blocked:
            graph.block_create(blocker=user, blocked=person.handle)
            count += 1
    return count
