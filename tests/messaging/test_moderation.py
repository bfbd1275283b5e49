"""Reporting a direct message and what moderators do with it
(docs/moderation.md#direct-messages): only a member reports it, the queue
shows the message and nothing else of its conversation, and removing,
restoring and dismissing it are audited like the actions on comments."""

import re
from types import SimpleNamespace

import pytest
from bson import ObjectId

from messaging import selectors as messaging_selectors
from messaging import services as messaging
from moderation import services
from moderation.documents import AuditEntry, Report, ReportedItem
from moderation.targets import resolve_target
from profiles import services as graph
from profiles.documents import User
from profiles.services import erasure

REMOVED = "[removed by a moderator]"


@pytest.fixture
def chat(make_user):
    """Ann, Bob and Cyd in one conversation; Dan in none; Mo moderates."""
    ann, bob, cyd = make_user("ann"), make_user("bob"), make_user("cyd")
    dan, mod = make_user("dan"), make_user("mod", "Mo Derator", role="moderator")
    conversation = messaging.conversation_start(
        sender=ann, to=["bob", "cyd"], text="the secret plans for saturday"
    )
    rude = messaging.message_send(
        conversation_id=conversation, sender=bob, text="buy cheap watches"
    )
    kind = messaging.message_send(conversation_id=conversation, sender=cyd, text="see you there")
    return SimpleNamespace(
        ann=ann,
        bob=bob,
        cyd=cyd,
        dan=dan,
        mod=mod,
        conversation=conversation,
        page=f"/messages/{conversation}/",
        rude=rude,
        kind=kind,
        key=f"message:{conversation}/{rude['_id']}",
    )


def fresh(handle) -> User:
    return User.objects.get(handle=handle)


def report(client, target, reason="spam", note=""):
    return client.post("/report/", {"target": target, "reason": reason, "note": note})


def report_form(client, target):
    """The report page a message's Report link leads to without a script."""
    return client.get("/report/", {"target": target})


def row_of(html: str, key: str) -> str:
    found = re.search(rf'<tr class="report-item" data-key="{re.escape(key)}".*?</tr>', html, re.S)
    assert found, f"no queue row for {key}"
    return found.group(0)


def shown_texts(client, page) -> list[str]:
    html = client.get(page).content.decode()
    return re.findall(r'<p class="dm__text[^"]*">([^<]*)</p>', html)


def test_a_member_reports_a_message_and_the_queue_shows_only_that_message(chat, login):
    cyd = login(chat.cyd)
    # The control is under the others' messages, not under one's own: a link
    # to the report page, which the page's one report dialog stands in for.
    html = cyd.get(chat.page).content.decode()
    targets = re.findall(r'<a class="report-control" href="/report/\?target=([^"]+)"', html)
    assert chat.key in targets
    assert f"message:{chat.conversation}/{chat.kind['_id']}" not in targets
    assert html.count('<dialog class="report-dialog"') == 1
    assert 'name="target" value=""' in html  # the dialog's, aimed by the link (site.js)
    # Without a script the link leads to the report form for that message.
    form = cyd.get(f"/report/?target={chat.key}").content.decode()
    assert f'name="target" value="{chat.key}"' in form
    assert "a message by @bob" in form and "buy cheap watches" in form
    assert f'name="next" value="{chat.page}"' in form

    response = report(cyd, chat.key, "spam", "he does this a lot")
    assert response.status_code == 302
    assert response["Location"] == chat.page  # back to the conversation (no `next`)
    assert "A moderator will look at it" in cyd.get(chat.page).content.decode()
    item = ReportedItem.objects.get(key=chat.key)
    assert (item.target_type, item.author, item.excerpt, item.link, item.reporters) == (
        "message",
        "bob",
        "buy cheap watches",
        "",
        1,
    )

    mod = login(chat.mod)
    html = mod.get("/mod/reports/").content.decode()
    row = row_of(html, chat.key)
    assert "buy cheap watches" in row and "@bob" in row and "a direct message" in row
    assert "<q>he does this a lot</q>" in row  # the note, without naming its reporter
    assert 'href=""' not in row  # no link to a conversation the moderator is not in
    # Nothing else of the conversation: not its other messages, not its members.
    for elsewhere in ("the secret plans", "see you there", "@ann", "@cyd", str(chat.conversation)):
        assert elsewhere not in html.replace(chat.key, ""), elsewhere
    assert row_of(mod.get("/mod/reports/?type=message").content.decode(), chat.key)
    assert 'data-key="' not in mod.get("/mod/reports/?type=comment").content.decode()
    # The author's moderation page lists it, unlinked, and nothing else of it.
    person = mod.get("/mod/users/bob/").content.decode()
    assert "buy cheap watches" in person and 'href=""' not in person
    assert "the secret plans" not in person
    # And the moderator still cannot open the conversation.
    assert mod.get(chat.page).status_code == 404


@pytest.mark.parametrize(
    "target",
    [
        "message:",
        "message:{conversation}",
        "message:{conversation}/",
        "message:/{message}",
        "message:{conversation}/{message}/",
        "message:{conversation}/{message}/x",
        "message:{conversation}/not-an-id",
        "message:nothex/{message}",
        'message:{"$ne": 1}',
        "message:{conversation}/{other}",  # no such message
        "message:{other}/{message}",  # no such conversation
        "message:{conversation}/{elsewhere}",  # a real message, of another conversation
        "message:{conversation}:{message}",
        "message",
    ],
)
def test_malformed_or_unknown_message_keys_are_404(target, chat, login):
    aside = messaging.conversation_start(sender=chat.cyd, to=["dan"], text="hi dan")
    [elsewhere] = messaging_selectors.conversation_page(aside, fresh("cyd")).messages
    values = {
        "{conversation}": str(chat.conversation),
        "{message}": str(chat.rude["_id"]),
        "{other}": str(ObjectId()),
        "{elsewhere}": elsewhere.id,
    }
    key = target
    for name, value in values.items():
        key = key.replace(name, value)
    assert resolve_target(key) is None
    assert report(login(chat.cyd), key).status_code == 404
    assert Report.objects.count() == 0 and ReportedItem.objects.count() == 0


def test_a_key_in_capitals_names_the_same_message(chat, login):
    shouting = f"message:{str(chat.conversation).upper()}/{str(chat.rude['_id']).upper()}"
    assert report(login(chat.cyd), shouting).status_code == 302
    assert [i.key for i in ReportedItem.objects] == [chat.key]


def test_only_a_member_in_it_now_may_report(chat, login):
    # Dan was never in it: as if it did not exist, its report page too.
    assert report(login(chat.dan), chat.key).status_code == 404
    assert report_form(login(chat.dan), chat.key).status_code == 404
    # Nor a moderator who is not in it.
    assert report(login(chat.mod), chat.key).status_code == 404
    assert report_form(login(chat.mod), chat.key).status_code == 404
    # Cyd leaves: from then on it is closed to them, reports too.
    assert report_form(login(chat.cyd), chat.key).status_code == 200
    messaging.conversation_leave(conversation_id=chat.conversation, member=chat.cyd)
    assert report(login(chat.cyd), chat.key).status_code == 404
    assert report_form(login(chat.cyd), chat.key).status_code == 404
    assert Report.objects.count() == 0
    # The line saying Cyd left is nobody's words: not reportable.
    left = [
        m
        for m in messaging_selectors.conversation_page(chat.conversation, fresh("ann")).messages
        if m.kind == "left"
    ]
    assert len(left) == 1
    line = f"message:{chat.conversation}/{left[0].id}"
    assert resolve_target(line) is None
    assert report(login(chat.ann), line).status_code == 404
    # Ann is still in it: her report goes through.
    assert report(login(chat.ann), chat.key).status_code == 302
    assert [(r.reporter, r.target_type) for r in Report.objects] == [("ann", "message")]


def test_a_message_across_a_block_is_not_reportable_from_either_side(chat, login):
    graph.block_create(blocker=chat.cyd, blocked="bob")
    assert report(login(chat.cyd), chat.key).status_code == 404  # Cyd blocked Bob
    assert report_form(login(chat.cyd), chat.key).status_code == 404
    bobs_view = f"message:{chat.conversation}/{chat.kind['_id']}"
    assert report(login(chat.bob), bobs_view).status_code == 404  # Cyd blocked him
    assert Report.objects.count() == 0


def test_reporting_your_own_message_is_refused(chat, login):
    bob = login(chat.bob)
    assert report_form(bob, chat.key).status_code == 404  # no Report link leads there
    response = report(bob, chat.key)
    assert response.status_code == 302
    assert (
        "You can&#x27;t report your own content." in bob.get(response["Location"]).content.decode()
    )
    assert Report.objects.count() == 0 and ReportedItem.objects.count() == 0


def test_a_moderator_removes_and_restores_a_message(chat, login):
    report(login(chat.cyd), chat.key, "spam")
    report(login(chat.ann), chat.key, "harassment")
    mod = login(chat.mod)
    response = mod.post("/mod/act/", {"key": chat.key, "action": "remove", "reason": "spam"})
    assert response.status_code == 302
    assert "Removed: message buy cheap watches" in mod.get(response["Location"]).content.decode()

    # Every member sees the placeholder where the words were, the others' stay.
    for member in (chat.ann, chat.cyd, chat.bob):
        texts = shown_texts(login(member), chat.page)
        assert REMOVED in texts and "buy cheap watches" not in texts
        assert "see you there" in texts
    stored = messaging_selectors.message_of(chat.conversation, chat.rude["_id"])
    assert (stored["text"], stored["removed_by"]) == ("", "moderator")
    # The audit log keeps the words, for the restore; the reports are resolved.
    [entry] = AuditEntry.objects(action="message.remove")
    assert (entry.moderator, entry.target_type, entry.target_id, entry.reason) == (
        "mod",
        "message",
        chat.key.split(":", 1)[1],
        "spam",
    )
    assert entry.details["text"] == "buy cheap watches"
    assert ReportedItem.objects.get(key=chat.key).status == "resolved"
    assert {r.status for r in Report.objects} == {"resolved"}
    log = mod.get("/mod/log/?target=message").content.decode()
    assert 'data-action="message.remove"' in log

    # Twice is refused and logs nothing; nobody can report it any more.
    response = mod.post("/mod/act/", {"key": chat.key, "action": "remove"})
    assert "already gone" in mod.get(response["Location"]).content.decode()
    cyd = login(chat.cyd)
    response = report(cyd, chat.key, "other")
    assert "removed already" in cyd.get(response["Location"]).content.decode()
    assert Report.objects(status="open").count() == 0

    mod.post("/mod/act/", {"key": chat.key, "action": "restore", "reason": "appeal"})
    assert "buy cheap watches" in shown_texts(login(chat.ann), chat.page)
    assert REMOVED not in shown_texts(login(chat.ann), chat.page)
    response = mod.post("/mod/act/", {"key": chat.key, "action": "restore"})
    assert "Only a message a moderator removed" in mod.get(response["Location"]).content.decode()
    assert [(e.action, e.reason) for e in AuditEntry.objects.order_by("ts")] == [
        ("message.remove", "spam"),
        ("message.restore", "appeal"),
    ]


def test_dismissing_closes_the_reports_and_leaves_the_message(chat, login):
    report(login(chat.cyd), chat.key)
    mod = login(chat.mod)
    mod.post("/mod/act/", {"key": chat.key, "action": "dismiss", "reason": "banter"})
    assert ReportedItem.objects.get(key=chat.key).status == "dismissed"
    assert [(e.action, e.target_type) for e in AuditEntry.objects] == [
        ("report.dismiss", "message")
    ]
    assert "buy cheap watches" in shown_texts(login(chat.ann), chat.page)
    response = mod.post("/mod/act/", {"key": chat.key, "action": "dismiss"})
    assert "no open reports" in mod.get(response["Location"]).content.decode()
    assert AuditEntry.objects.count() == 1


def test_the_queue_acts_on_several_messages_at_once(chat, login):
    other = f"message:{chat.conversation}/{chat.kind['_id']}"
    report(login(chat.ann), chat.key)
    report(login(chat.ann), other)
    mod = login(chat.mod)
    response = mod.post(
        "/mod/bulk/", {"keys": [chat.key, other], "action": "remove", "reason": "spam"}
    )
    assert "Removed: 2 items." in mod.get(response["Location"]).content.decode()
    assert shown_texts(login(chat.ann), chat.page).count(REMOVED) == 2
    assert sorted(e.target_id for e in AuditEntry.objects(action="message.remove")) == sorted(
        k.split(":", 1)[1] for k in (chat.key, other)
    )


def test_a_suspended_authors_messages_show_as_removed(chat, login):
    services.user_suspend(moderator=chat.mod, target=resolve_target("user:bob"), reason="spam")
    texts = shown_texts(login(chat.ann), chat.page)
    assert "[removed: the account is suspended]" in texts and "buy cheap watches" not in texts
    services.user_unsuspend(moderator=chat.mod, target=resolve_target("user:bob"))
    assert "buy cheap watches" in shown_texts(login(chat.ann), chat.page)


def test_an_erased_authors_message_leaves_the_queue_and_is_never_restored(chat, login):
    report(login(chat.cyd), chat.key)
    services.message_remove(moderator=chat.mod, target=resolve_target(chat.key))
    erasure.erasure_begin(user=fresh("bob"))  # the walk runs at once under the tests' tasks
    # The queue item about Bob's message went with its reports; the audit log stays.
    assert ReportedItem.objects.count() == 0 and Report.objects.count() == 0
    assert [e.action for e in AuditEntry.objects] == ["message.remove"]
    target = resolve_target(chat.key)
    assert target is not None and target.gone and target.author is None
    with pytest.raises(services.ModerationError):
        services.message_restore(moderator=chat.mod, target=target)
    stored = messaging_selectors.message_of(chat.conversation, chat.rude["_id"])
    assert (stored["by"], stored["text"]) == ("", "")
    assert AuditEntry.objects.count() == 1
    # And nobody can report what is left of it.
    assert (
        "removed already"
        in login(chat.ann)
        .post("/report/", {"target": chat.key, "reason": "spam"}, follow=True)
        .content.decode()
    )
    assert Report.objects.count() == 0
