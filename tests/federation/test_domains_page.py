"""The moderators' /mod/domains/ and a person's own domain blocks, through
the test client: what each form stores, who it reaches, and what it refuses."""

import re
from datetime import timedelta

import pytest
from bson import ObjectId
from django.test import Client

from federation import delivery
from federation.documents import Delivery, DomainRule
from moderation.documents import AuditEntry
from profiles.documents import User
from profiles.services import remote
from socialsite.clock import now

PAGE = "/mod/domains/"


def remote_person(name: str, domain: str) -> User:
    handle = f"{name}@{domain}"
    actor = {
        "id": f"https://{domain}/u/{name}",
        "inbox": f"https://{domain}/inbox",
        "key_id": f"https://{domain}/u/{name}#k",
        "public_key": "...",
    }
    user, _ = remote.remote_user_upsert(
        handle=handle, domain=domain, name=name.title(), bio="", actor=actor
    )
    return user


def a_delivery(domain: str, *, state: str = "pending", error: str = "") -> None:
    Delivery._get_collection().insert_one(
        {
            "_id": ObjectId(),
            "activity": {"type": "Create", "id": f"https://ours.example/a/{ObjectId()}"},
            "inbox": f"https://{domain}/inbox",
            "domain": domain,
            "signer": "ada",
            "state": state,
            "attempts": 16 if state == "failed" else 0,
            "due": now() + timedelta(hours=1),
            "created": now(),
            "error": error,
        }
    )


def status_of(handle: str) -> str:
    return User._get_collection().find_one({"_id": handle}, {"status": 1})["status"]


@pytest.fixture
def mod(make_user, login):
    return login(make_user("mod", "Mo Derator", role="moderator"))


def test_the_page_has_its_heading_form_and_a_link_from_the_moderators_nav(mod):
    page = mod.get(PAGE)
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(r"<h1>\s*Domains\s*</h1>", html)
    for label in ('<label for="id_domain">Domain</label>', "<legend>Level</legend>", "Reason"):
        assert label in html, label
    assert 'name="csrfmiddlewaretoken"' in html
    assert f'href="{PAGE}" aria-current="page"' in html
    assert f'href="{PAGE}"' in mod.get("/mod/").content.decode()


def test_a_block_lists_the_rule_suspends_its_people_and_drops_its_pending_deliveries(mod):
    remote_person("x", "bad.example")
    remote_person("y", "bad.example")
    remote_person("z", "fine.example")
    a_delivery("bad.example")
    a_delivery("bad.example", state="failed", error="timed out")
    a_delivery("fine.example")
    sent = mod.post(PAGE, {"domain": " HTTPS://Bad.Example/ ", "level": "block", "reason": "spam"})
    assert sent.status_code == 302 and sent.url == PAGE
    rule = DomainRule.objects.get(domain="bad.example")
    assert (rule.level, rule.reason, rule.by) == ("block", "spam", "mod")
    assert [status_of(h) for h in ("x@bad.example", "y@bad.example", "z@fine.example")] == [
        "suspended",
        "suspended",
        "active",
    ]
    # Its pending delivery is gone; its failed one stays listed; another's stays.
    assert delivery.backlog() == {
        "bad.example": {"pending": 0, "failed": 1},
        "fine.example": {"pending": 1, "failed": 0},
    }
    html = mod.get(PAGE).content.decode()
    assert "bad.example is blocked. 2 of its people suspended." in html
    row = re.search(r'<tr data-domain-rule="bad.example" data-level="block">.*?</tr>', html, re.S)
    assert row and "spam" in row[0] and "@mod" in row[0] and "Lift" in row[0]
    assert 'action="/mod/domains/bad.example/lift/"' in row[0]
    assert AuditEntry.objects(action="domain.block", target_id="bad.example").count() == 1
    # Nothing is sent to a blocked server: its failed deliveries stay failed.
    mod.post("/mod/domains/bad.example/retry/")
    assert delivery.backlog()["bad.example"] == {"pending": 0, "failed": 1}
    assert "bad.example is blocked: nothing is sent to it." in mod.get(PAGE).content.decode()


def test_silence_suspends_nobody_and_lift_ends_a_blocks_suspensions(mod):
    remote_person("x", "loud.example")
    remote_person("x", "bad.example")
    a_delivery("loud.example")
    mod.post(PAGE, {"domain": "loud.example", "level": "silence", "reason": ""})
    assert DomainRule.objects.get(domain="loud.example").level == "silence"
    assert status_of("x@loud.example") == "active"
    assert delivery.backlog()["loud.example"]["pending"] == 1  # still sent to
    assert 'data-domain-rule="loud.example" data-level="silence"' in mod.get(PAGE).content.decode()

    mod.post(PAGE, {"domain": "bad.example", "level": "block", "reason": "abuse"})
    assert status_of("x@bad.example") == "suspended"
    lifted = mod.post("/mod/domains/bad.example/lift/")
    assert lifted.status_code == 302 and lifted.url == PAGE
    assert not DomainRule.objects(domain="bad.example")
    assert status_of("x@bad.example") == "active"
    assert "The rule on bad.example is lifted." in mod.get(PAGE).content.decode()


def test_lifting_a_domain_without_a_rule_unsuspends_nobody(mod):
    """A person suspended on their own stays so: only a rule's lift ends
    the suspensions it made."""
    person = remote_person("x", "quiet.example")
    User.objects(handle=person.handle).update_one(set__status="suspended")
    mod.post("/mod/domains/quiet.example/lift/")
    assert status_of("x@quiet.example") == "suspended"
    assert "quiet.example has no rule to lift." in mod.get(PAGE).content.decode()
    assert mod.post("/mod/domains/not%20a%20domain!/lift/").status_code == 404


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({"domain": "not a domain!", "level": "block"}, "Write a domain, such as social.example."),
        ({"domain": "a..b", "level": "block"}, "Write a domain, such as social.example."),
        ({"domain": "", "level": "block"}, "This field is required."),
        ({"domain": "ok.example", "level": "nuke"}, "Select a valid choice."),
        ({"domain": ["x"] * 3, "level": ""}, "This field is required."),
    ],
)
def test_bad_input_is_a_400_with_the_error_and_stores_nothing(mod, form, error):
    remote_person("x", "ok.example")
    page = mod.post(PAGE, {"reason": "why", **form})
    assert page.status_code == 400
    html = page.content.decode()
    assert error in html
    assert 'class="field field--error"' in html
    assert DomainRule.objects.count() == 0
    assert AuditEntry.objects(action__startswith="domain.").count() == 0
    assert status_of("x@ok.example") == "active"


def test_our_own_domain_takes_no_rule(mod, settings):
    settings.SITE_URL = "https://ours.example"
    page = mod.post(PAGE, {"domain": "ours.example", "level": "block"})
    assert page.status_code == 400
    assert "That is this server&#x27;s own domain." in page.content.decode()
    assert DomainRule.objects.count() == 0


def test_backlog_lists_failed_deliveries_and_retry_queues_them_again(mod, monkeypatch):
    queued: list[list[str]] = []
    # What a retry queues, not sent: the send itself is test_delivery.py's.
    monkeypatch.setattr(delivery, "_queue", lambda docs: queued.append([d["_id"] for d in docs]))
    a_delivery("down.example", state="failed", error="connection refused")
    a_delivery("down.example", state="failed", error="connection refused")
    a_delivery("up.example")
    html = mod.get(PAGE).content.decode()
    row = re.search(r'<tr data-backlog-domain="down.example">.*?</tr>', html, re.S)[0]
    assert '<td data-count="pending">0</td>' in row and '<td data-count="failed">2</td>' in row
    assert 'action="/mod/domains/down.example/retry/"' in row and "Retry failed" in row
    up = re.search(r'<tr data-backlog-domain="up.example">.*?</tr>', html, re.S)[0]
    assert "Retry failed" not in up
    assert html.count('data-failed-delivery="https://down.example/inbox"') == 2
    assert "connection refused" in html

    retried = mod.post("/mod/domains/down.example/retry/")
    assert retried.status_code == 302
    assert delivery.backlog()["down.example"] == {"pending": 2, "failed": 0}
    assert len(queued) == 1 and len(queued[0]) == 2
    assert "2 failed deliveries to down.example queued again." in mod.get(PAGE).content.decode()


def test_a_plain_user_is_refused_and_a_visitor_sent_to_log_in(make_user, login):
    plain = login(make_user("ada"))
    assert plain.get(PAGE).status_code == 403
    assert plain.post(PAGE, {"domain": "bad.example", "level": "block"}).status_code == 403
    assert plain.post("/mod/domains/bad.example/retry/").status_code == 403
    DomainRule(domain="bad.example", level="block", by="mod").save()
    assert plain.post("/mod/domains/bad.example/lift/").status_code == 403
    assert DomainRule.objects(domain="bad.example").count() == 1
    visitor = Client().get(PAGE)
    assert visitor.status_code == 302 and visitor.url.startswith("/accounts/login/")


def test_the_page_reads_in_a_fixed_number_of_round_trips(mod, round_trips):
    def trips() -> int:
        with round_trips() as c:
            assert mod.get(PAGE).status_code == 200
        return c.total

    few = trips()
    for i in range(30):
        DomainRule(domain=f"d{i}.example", level="silence", by="mod").save()
        a_delivery(f"d{i}.example")
        a_delivery(f"d{i}.example", state="failed")
    many = trips()
    assert few == many
    assert many <= 4  # the session with its user, the rules, the backlog, the failed ones


def test_a_person_blocks_a_domain_and_its_known_people(make_user, login):
    ada = make_user("ada")
    client = login(ada)
    remote_person("x", "rude.example")
    remote_person("y", "rude.example")
    remote_person("z", "nice.example")
    sent = client.post("/settings/domains/block/", {"domain": "Rude.Example"})
    assert sent.status_code == 302 and sent.url == "/circles/#blocked-domains"
    ada.reload()
    assert ada.blocked_domains == ["rude.example"]
    assert sorted(ada.blocked) == ["x@rude.example", "y@rude.example"]
    html = client.get("/circles/").content.decode()
    assert "You blocked rude.example. 2 of its people you knew are blocked." in html
    assert 'data-blocked-domain="rude.example"' in html
    assert 'action="/settings/domains/unblock/"' in html and "Block a server" in html

    bad = client.post("/settings/domains/block/", {"domain": "no way"})
    assert bad.status_code == 302
    assert "Write a domain, such as social.example." in client.get("/circles/").content.decode()

    client.post("/settings/domains/unblock/", {"domain": "rude.example"})
    ada.reload()
    assert not ada.blocked_domains
    html = client.get("/circles/").content.decode()
    assert "You unblocked rude.example." in html
    assert 'data-blocked-domain="rude.example"' not in html


def test_the_person_domain_block_needs_a_session(make_user):
    remote_person("x", "rude.example")
    response = Client().post("/settings/domains/block/", {"domain": "rude.example"})
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")
    assert not User.objects(blocked_domains="rude.example")
