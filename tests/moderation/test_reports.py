"""Reporting posts, comments and users, and the queue moderators work from."""

import re

import pytest
from bson import ObjectId

from feeds.services import posts as feeds
from moderation import services
from moderation.documents import Report, ReportedItem
from moderation.targets import resolve_target
from profiles import services as graph
from tests.moderation.conftest import audit_rows, new_comment, new_post


def report(client, target, reason="spam", note=""):
    return client.post("/report/", {"target": target, "reason": reason, "note": note})


def queue_keys(client, **filters) -> list[str]:
    html = client.get("/mod/reports/", filters).content.decode()
    return re.findall(r'<tr class="report-item" data-key="([^"]+)"', html)


def test_the_report_control_is_on_others_items_only(cast, login):
    post = new_post(cast.ada, "ada's post")
    theirs = new_comment(cast.cyd, post.id, "cyd's comment")
    mine = new_comment(cast.bob, post.id, "bob's comment")
    html = login(cast.bob).get(f"/posts/{post.id}/").content.decode()
    targets = re.findall(r'name="target" value="([^"]+)"', html)
    assert targets == [f"post:{post.id}", f"comment:{post.id}/{theirs.slug}"]
    assert f"comment:{post.id}/{mine.slug}" not in html
    assert "<summary>Report</summary>" in html
    profile = login(cast.ada).get("/u/bob/").content.decode()
    assert 'name="target" value="user:bob"' in profile
    assert "user:ada" not in login(cast.ada).get("/u/ada/").content.decode()


def test_a_second_report_by_the_same_person_updates_the_first(cast, login):
    post = new_post(cast.ada)
    key = f"post:{post.id}"
    bob = login(cast.bob)
    response = report(bob, key, "spam", "first note")
    assert response.status_code == 302
    report(bob, key, "harassment", "second note")
    [only] = Report.objects(reporter="bob")
    assert (only.reason, only.note, only.status) == ("harassment", "second note", "open")
    item = ReportedItem.objects.get(key=key)
    assert item.reporters == 1
    assert item.reasons == ["harassment"]  # nobody gives "spam" any more
    report(login(cast.cyd), key, "spam")
    item.reload()
    assert item.reporters == 2 and sorted(item.reasons) == ["harassment", "spam"]
    assert Report.objects.count() == 2


def test_reports_of_each_kind_record_the_item_in_context(cast, login):
    post = new_post(cast.ada, "a post about sourdough")
    comment = new_comment(cast.cyd, post.id, "buy cheap watches")
    bob = login(cast.bob)
    report(bob, f"post:{post.id}", "other", "why")
    report(bob, f"comment:{post.id}/{comment.slug}", "spam")
    report(bob, "user:cyd", "harassment")
    items = {i.key: i for i in ReportedItem.objects}
    c = items[f"comment:{post.id}/{comment.slug}"]
    assert (c.author, c.excerpt, c.link) == (
        "cyd",
        "buy cheap watches",
        f"/posts/{post.id}/c/{comment.slug}/",
    )
    p = items[f"post:{post.id}"]
    assert (p.author, p.excerpt, p.link) == ("ada", "a post about sourdough", f"/posts/{post.id}/")
    u = items["user:cyd"]
    assert (u.author, u.link) == ("cyd", "/u/cyd/")
    html = login(cast.mod).get("/mod/reports/").content.decode()
    row = re.search(
        rf'<tr class="report-item" data-key="comment:{post.id}/{comment.slug}".*?</tr>', html, re.S
    ).group(0)
    assert "buy cheap watches" in row and "@cyd" in row
    assert f'href="/posts/{post.id}/c/{comment.slug}/"' in row


def test_reporting_your_own_content_is_refused(cast, login):
    post = new_post(cast.ada)
    ada = login(cast.ada)
    response = report(ada, f"post:{post.id}")
    assert response.status_code == 302
    assert (
        "You can&#x27;t report your own content." in ada.get(response["Location"]).content.decode()
    )
    report(ada, "user:ada")
    with pytest.raises(services.ModerationError):
        services.report_create(
            reporter=cast.ada, target=resolve_target(f"post:{post.id}"), reason="spam"
        )
    assert Report.objects.count() == 0 and ReportedItem.objects.count() == 0


@pytest.mark.parametrize(
    "target",
    [
        "post:" + str(ObjectId()),
        "post:not-an-id",
        "post:",
        'post:{"$ne": 1}',
        "comment:{post}",
        "comment:{post}/",
        "comment:{post}/zzzz",
        "comment:{post}/../x",
        "comment:nothex/abcd",
        "user:nobody",
        "user:$ne",
        "user:",
        "group:1",
        "post",
        "",
    ],
)
def test_unknown_or_malformed_targets_are_404(target, cast, login):
    post = new_post(cast.ada)
    new_comment(cast.cyd, post.id)
    response = report(login(cast.bob), target.replace("{post}", str(post.id)))
    assert response.status_code == 404
    assert Report.objects.count() == 0


def test_a_missing_target_field_is_404(cast, login):
    assert login(cast.bob).post("/report/", {"reason": "spam"}).status_code == 404


def test_a_bad_reason_is_refused(cast, login):
    post = new_post(cast.ada)
    bob = login(cast.bob)
    for reason in ("bogus", ""):
        assert report(bob, f"post:{post.id}", reason).status_code == 302
    assert Report.objects.count() == 0


def test_what_the_reporter_cannot_see_is_404(cast, login, make_user):
    graph.circle_create(owner=cast.ada, name="friends")
    graph.follow_create(follower=cast.ada, followee="bob", circles=["friends"])
    cast.ada.reload()
    secret = feeds.post_create(
        author=cast.ada, type="status", detail={"text": "friends only"}, circles=["friends"]
    )
    reply = new_comment(cast.bob, secret.id, "bob replies")
    cyd = login(cast.cyd)  # follows Ada, but is in none of her circles
    assert report(cyd, f"post:{secret.id}").status_code == 404
    assert report(cyd, f"comment:{secret.id}/{reply.slug}").status_code == 404
    # Nor does the report page show it (its words, who wrote it).
    for key in (f"post:{secret.id}", f"comment:{secret.id}/{reply.slug}"):
        assert cyd.get("/report/", {"target": key}).status_code == 404
    # Blocks hide too: Cyd blocked Ada.
    graph.block_create(blocker=cast.cyd, blocked="ada")
    public = new_post(cast.ada, "public")
    assert report(cyd, f"post:{public.id}").status_code == 404
    # A suspended author's posts are hidden: nothing to report.
    services.user_suspend(moderator=cast.mod, target=resolve_target("user:ada"), reason="x")
    assert report(login(cast.bob), f"post:{public.id}").status_code == 404
    assert Report.objects.count() == 0


def test_removed_content_cannot_be_reported_again(cast, login):
    post = new_post(cast.ada)
    comment = new_comment(cast.cyd, post.id)
    for key in (f"post:{post.id}", f"comment:{post.id}/{comment.slug}"):
        services.ACTIONS[(key.split(":")[0], "remove")](
            moderator=cast.mod, target=resolve_target(key)
        )
        report(login(cast.bob), key)
    assert Report.objects.count() == 0


def test_the_queue_puts_most_reporters_first_and_filters(cast, login, make_user):
    readers = [make_user(f"reader{i}") for i in range(3)]
    post = new_post(cast.ada, "reported by three")
    comment = new_comment(cast.cyd, post.id, "reported by two")
    keys = {
        "post": f"post:{post.id}",
        "comment": f"comment:{post.id}/{comment.slug}",
        "user": "user:cyd",
    }
    for reader in readers:
        report(login(reader), keys["post"], "spam")
    for reader in readers[:2]:
        report(login(reader), keys["comment"], "harassment")
    report(login(cast.bob), keys["user"], "other")

    mod = login(cast.mod)
    assert queue_keys(mod) == [keys["post"], keys["comment"], keys["user"]]
    assert queue_keys(mod, type="comment") == [keys["comment"]]
    assert queue_keys(mod, reason="other") == [keys["user"]]
    assert queue_keys(mod, reason="spam", type="post") == [keys["post"]]
    assert queue_keys(mod, reason="spam", type="user") == []
    assert queue_keys(mod, status="resolved") == []
    # A new reporter moves the user item up to the top.
    for reader in readers:
        report(login(reader), keys["user"], "other")
    assert queue_keys(mod)[0] == keys["user"]
    # Filters reject junk quietly: an unknown value means "any" (status: open).
    assert queue_keys(mod, status="$ne", type="nope", reason="x") == queue_keys(mod)


def test_resolving_an_item_resolves_all_its_open_reports(cast, login, make_user):
    post = new_post(cast.ada)
    key = f"post:{post.id}"
    for handle in ("bob", "cyd"):
        report(login(getattr(cast, handle)), key)
    other = new_post(cast.ada, "another post")
    report(login(cast.bob), f"post:{other.id}")
    mod = login(cast.mod)
    response = mod.post("/mod/act/", {"key": key, "action": "remove", "reason": "spam"})
    assert response.status_code == 302
    assert {r.status for r in Report.objects(target_id=str(post.id))} == {"resolved"}
    item = ReportedItem.objects.get(key=key)
    assert (item.status, item.resolved_by) == ("resolved", "mod")
    assert ReportedItem.objects.get(key=f"post:{other.id}").status == "open"
    assert Report.objects.get(target_id=str(other.id)).status == "open"
    assert queue_keys(mod, status="resolved") == [key]
    assert queue_keys(mod) == [f"post:{other.id}"]


def test_dismissing_a_report_leaves_the_item_alone(cast, login):
    post = new_post(cast.ada)
    key = f"post:{post.id}"
    report(login(cast.bob), key)
    report(login(cast.cyd), key, "other")
    mod = login(cast.mod)
    mod.post("/mod/act/", {"key": key, "action": "dismiss", "reason": "fine"})
    assert {r.status for r in Report.objects} == {"dismissed"}
    assert ReportedItem.objects.get(key=key).status == "dismissed"
    html = login(cast.bob).get(f"/posts/{post.id}/").content.decode()
    assert "hello world" in html and "[removed by a moderator]" not in html
    # Dismissing again does nothing and logs nothing.
    response = mod.post("/mod/act/", {"key": key, "action": "dismiss"})
    assert "no open reports" in mod.get(response["Location"]).content.decode()
    assert [e["action"] for e in audit_rows()] == ["report.dismiss"]
    assert queue_keys(mod, status="dismissed") == [key]
    # A later report opens the item again.
    report(login(cast.mod), key, "illegal")
    assert ReportedItem.objects.get(key=key).status == "open"
    assert queue_keys(mod) == [key]


def test_unknown_actions_and_targets_on_act_are_404(cast, login):
    post = new_post(cast.ada)
    mod = login(cast.mod)
    for data in (
        {"key": f"post:{post.id}", "action": "explode"},
        {"key": "user:cyd", "action": "remove"},
        {"key": f"post:{ObjectId()}", "action": "remove"},
        {"key": "nonsense", "action": "dismiss"},
        {},
    ):
        assert mod.post("/mod/act/", data).status_code == 404
    assert audit_rows() == []


def test_moderators_read_what_each_reporter_wrote_on_the_queue(cast, login):
    post, other = new_post(cast.ada, "buy followers here"), new_post(cast.ada, "fine")
    report(login(cast.bob), f"post:{post.id}", note="Spam links <b>every</b> day")
    report(login(cast.cyd), f"post:{post.id}", reason="other", note="She posts this hourly")
    report(login(cast.bob), f"post:{other.id}")  # no note
    html = login(cast.mod).get("/mod/reports/").content.decode()
    assert set(queue_keys(login(cast.mod))) == {f"post:{post.id}", f"post:{other.id}"}
    noted = re.search(rf'data-key="post:{post.id}".*?</tr>', html, re.S)[0]
    assert "<q>Spam links &lt;b&gt;every&lt;/b&gt; day</q>" in noted and "@bob, spam" in noted
    assert "<q>She posts this hourly</q>" in noted and "@cyd, other" in noted
    plain = re.search(rf'data-key="post:{other.id}".*?</tr>', html, re.S)[0]
    assert "report-notes" not in plain


def test_a_repeated_report_says_it_updated_the_first(cast, login):
    post = new_post(cast.ada)
    bob = login(cast.bob)
    first = bob.get(report(bob, f"post:{post.id}", "spam")["Location"]).content.decode()
    assert "A moderator will look at it" in first
    again = bob.get(report(bob, f"post:{post.id}", "other")["Location"]).content.decode()
    assert "You reported this already" in again


def test_the_report_page_is_the_form_for_one_item(cast, login):
    """Where a Report link leads without a script (docs/moderation.md#reports):
    the form for that item, back to `next` or to the item; nothing for one's
    own or for what is gone; a bare GET goes to the home page, as before."""
    post = new_post(cast.ada, "a post about sourdough")
    bob = login(cast.bob)
    html = bob.get("/report/", {"target": f"post:{post.id}", "next": "/feed/"}).content.decode()
    assert "Report a post by @ada" in html and "a post about sourdough" in html
    assert f'name="target" value="post:{post.id}"' in html
    assert 'name="next" value="/feed/"' in html and '<select id="report-reason"' in html
    away = bob.get("/report/", {"target": f"post:{post.id}", "next": "https://evil.example/"})
    assert f'name="next" value="/posts/{post.id}/"' in away.content.decode()
    assert "Report @ada" in bob.get("/report/", {"target": "user:ada"}).content.decode()
    # Sent from the page, the report lands as from the control.
    response = bob.post(
        "/report/", {"target": f"post:{post.id}", "reason": "spam", "next": "/feed/"}
    )
    assert response.status_code == 302 and response["Location"] == "/feed/"
    assert [r.target_type for r in Report.objects] == ["post"]
    # Not for one's own, nor for what a moderator removed.
    assert login(cast.ada).get("/report/", {"target": f"post:{post.id}"}).status_code == 404
    assert login(cast.ada).get("/report/", {"target": "user:ada"}).status_code == 404
    services.ACTIONS[("post", "remove")](
        moderator=cast.mod, target=resolve_target(f"post:{post.id}")
    )
    assert bob.get("/report/", {"target": f"post:{post.id}"}).status_code == 404
    assert bob.get("/report/", {"target": "post:nothex"}).status_code == 404
    response = bob.get("/report/")
    assert response.status_code == 302 and response["Location"] == "/"
