"""Pacing (docs/ads-api.md): `ends` and `budget` stop serving at once, and the
sweep (`manage.py ads_pacing`, the `ads_pacing` task) deactivates such
campaigns and says what it did."""

import threading
from datetime import timedelta
from decimal import Decimal
from io import StringIO

from django.core.management import call_command

from ads import services, tasks
from ads.documents import AdStats, AdZone, Campaign, budget_row_id
from socialsite.clock import now


def ids(served):
    return [ad.campaign_id for ad in served]


def zone_campaigns():
    doc = AdZone.objects(site_id="socialsite", zone_id="feed").first()
    return [ad.campaign_id for ad in doc.ads] if doc else []


def test_a_campaign_past_its_end_is_not_served_at_once(campaign, choose):
    start = now()
    ending = campaign("ending", ecpm="300", ends=start + timedelta(hours=1))
    steady = campaign("steady", ecpm="100")
    assert ids(choose(now=start)) == [ending.id]
    assert ids(choose(now=start + timedelta(hours=1))) == [steady.id]


def test_pacing_deactivates_ended_campaigns_and_says_so(campaign):
    start = now()
    ending = campaign("ending", ends=start + timedelta(hours=1))
    campaign("steady")
    assert services.ads_pacing(now=start) == []
    assert services.ads_pacing(now=start + timedelta(hours=2)) == [(ending.id, "ended")]
    stopped = Campaign.objects.get(id=ending.id)
    assert (stopped.status, stopped.stopped) == ("inactive", "ended")
    assert zone_campaigns() == ["steady:spring-sale"]
    assert services.ads_pacing(now=start + timedelta(hours=3)) == []


def test_a_spent_budget_stops_serving_at_once(campaign, choose):
    # eCPM 1000 and a budget of 2: the budget buys two impressions.
    pricey = campaign("pricey", ecpm="1000", budget="2")
    cheap = campaign("cheap", ecpm="1")
    assert ids(choose(viewer="a")) == [pricey.id]
    assert ids(choose(viewer="b")) == [pricey.id]
    assert choose(viewer="c") == []  # chosen, refused by the budget row, pulled
    stopped = Campaign.objects.get(id=pricey.id)
    assert (stopped.status, stopped.stopped) == ("inactive", "budget")
    assert zone_campaigns() == [cheap.id]
    assert ids(choose(viewer="d")) == [cheap.id]
    assert AdStats.objects.get(campaign_id=pricey.id).impressions == 2
    assert (
        AdStats._get_collection().find_one({"_id": budget_row_id(pricey.id)})["impressions"] == 2
    )


def test_concurrent_decisions_never_pass_the_budget(campaign, choose):
    made = campaign("pricey", ecpm="1000", budget="3")
    start = threading.Barrier(12)
    served, errors = [], []

    def request(viewer):
        try:
            start.wait()
            served.extend(choose(viewer=viewer))
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=request, args=(f"v{i}",)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(served) == 3
    assert AdStats.objects.get(campaign_id=made.id).impressions == 3
    assert Campaign.objects.get(id=made.id).stopped == "budget"


def test_pacing_deactivates_campaigns_over_budget(campaign, choose):
    made = campaign("acme", ecpm="10", budget="100")
    for i in range(4):
        choose(viewer=f"v{i}")
    assert services.ads_pacing() == []
    # Lowering the budget below what is spent (4 x 10 / 1000 = 0.04).
    services.campaign_update(
        campaign_id=made.id,
        name=made.name,
        ecpm=Decimal("10"),
        keywords=[],
        cap_count=0,
        cap_hours=0,
        budget=Decimal("0.04"),
        ends=None,
    )
    assert services.ads_pacing() == [(made.id, "budget")]
    assert Campaign.objects.get(id=made.id).stopped == "budget"
    assert zone_campaigns() == []


def test_activation_refuses_a_spent_budget(campaign, choose):
    made = campaign("pricey", ecpm="1000", budget="1")
    choose(viewer="a")
    choose(viewer="b")
    assert Campaign.objects.get(id=made.id).status == "inactive"
    try:
        services.campaign_activate(campaign_id=made.id)
    except services.AdsError as exc:
        assert "budget" in str(exc)
    else:
        raise AssertionError("activated a spent campaign")
    assert zone_campaigns() == []


def _time_passes(campaign_id):
    """The campaign's end comes: the same as waiting an hour, minus the hour."""
    Campaign.objects(id=campaign_id).update_one(set__ends=now() - timedelta(seconds=1))


def test_the_command_prints_what_it_did(campaign):
    ending = campaign("ending", ends=now() + timedelta(hours=1))
    campaign("steady")
    _time_passes(ending.id)
    out = StringIO()
    call_command("ads_pacing", stdout=out)
    assert out.getvalue().splitlines() == [
        f"deactivated {ending.id}: its end has passed",
        "1 campaign(s) deactivated.",
    ]
    out = StringIO()
    call_command("ads_pacing", stdout=out)
    assert out.getvalue().splitlines() == ["0 campaign(s) deactivated."]


def test_the_periodic_task_runs_the_sweep(campaign):
    ending = campaign("ending", ends=now() + timedelta(hours=1))
    _time_passes(ending.id)
    result = tasks.ads_pacing.enqueue()
    assert result.return_value == [[ending.id, "ended"]]


def test_a_zero_budget_buys_nothing_and_a_free_campaign_never_spends(campaign, choose):
    nothing = campaign("nothing", ecpm="50", budget="0", active=False)
    try:
        services.campaign_activate(campaign_id=nothing.id)
    except services.AdsError as exc:
        assert "budget" in str(exc)
    else:
        raise AssertionError("activated a campaign whose budget buys nothing")
    free = campaign("free", ecpm="0", budget="1")
    for i in range(5):
        assert ids(choose(viewer=f"v{i}")) == [free.id]
    assert services.ads_pacing() == []
    assert AdStats.objects.get(campaign_id=free.id).impressions == 5
