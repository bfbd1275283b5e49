"""Offers, views and clicks (docs/ads-api.md): a click names a live offer,
answers only the unit's stored url and counts once; a view counts once;
bots and the campaign's own owner are never counted."""

from datetime import timedelta

import pytest

from ads import services
from ads.documents import AdOffer, AdStats, AdUser
from ads.serving.recording import CLICKS_MAX, day_of
from socialsite.clock import now


def stats(campaign_id):
    (row,) = AdStats.objects(campaign_id=campaign_id)
    return row


def test_a_click_answers_the_stored_url_and_counts_once(campaign, choose):
    made = campaign("acme", owner="acme-owner")
    (ad,) = choose(viewer="reader")
    assert (
        services.offer_click(offer_id=ad.offer_id, viewer="reader") == "https://example.org/acme-1"
    )
    assert (
        services.offer_click(offer_id=ad.offer_id, viewer="reader") == "https://example.org/acme-1"
    )
    row = stats(made.id)
    assert (row.day, row.impressions, row.clicks) == (day_of(now()), 1, 1)
    clicks = AdUser.objects.get(id="reader").clicks
    assert [(c.campaign_id, c.ad_unit_id) for c in clicks] == [(made.id, "acme-1")]


def test_each_offer_counts_its_own_click(campaign, choose):
    made = campaign("acme")
    offers = [choose(viewer="reader")[0].offer_id for _ in range(3)]
    assert len(set(offers)) == 3 and all(len(o) >= 20 for o in offers)
    for offer_id in offers:
        services.offer_click(offer_id=offer_id, viewer=None)
    assert stats(made.id).clicks == 3


@pytest.mark.parametrize("offer_id", ["", "nope", "x" * 65, {"$ne": ""}, ["a"], None, "a.b$c"])
def test_unknown_or_malformed_offers_are_none(campaign, choose, offer_id):
    campaign("acme")
    choose()
    assert services.offer_click(offer_id=offer_id, viewer="v") is None
    assert services.offer_view(offer_id=offer_id) is False


def test_an_expired_offer_is_none_even_before_the_ttl_sweep(campaign, choose):
    made = campaign("acme")
    (ad,) = choose(viewer="reader")
    AdOffer.objects(id=ad.offer_id).update_one(set__created=now() - timedelta(hours=2, seconds=1))
    assert services.offer_click(offer_id=ad.offer_id, viewer="reader") is None
    assert services.offer_view(offer_id=ad.offer_id) is False
    assert stats(made.id).clicks == 0 and stats(made.id).views == 0


def test_uncounted_clicks_still_redirect(campaign, choose):
    made = campaign("acme", owner="acme-owner")
    (limited,) = choose(viewer="reader")
    (own,) = choose(viewer="acme-owner")
    assert (
        services.offer_click(offer_id=limited.offer_id, viewer="reader", count=False)
        == limited.url
    )
    assert services.offer_click(offer_id=own.offer_id, viewer="acme-owner") == own.url
    assert stats(made.id).clicks == 0
    # The rate-limited offer can still be counted later, once.
    services.offer_click(offer_id=limited.offer_id, viewer="reader")
    assert stats(made.id).clicks == 1


def test_bot_offers_are_recorded_but_never_counted(campaign, choose):
    made = campaign("acme")
    (ad,) = choose(viewer="crawler", bot=True)
    assert services.offer_click(offer_id=ad.offer_id, viewer="crawler") == ad.url
    assert services.offer_view(offer_id=ad.offer_id) is False
    assert AdStats.objects(campaign_id=made.id).count() == 0
    assert AdOffer.objects.get(id=ad.offer_id).clicked is False


def test_a_view_counts_once_per_offer(campaign, choose):
    made = campaign("acme")
    (first,) = choose(viewer="reader")
    (second,) = choose(viewer="reader")
    assert services.offer_view(offer_id=first.offer_id) is True
    assert services.offer_view(offer_id=first.offer_id) is False
    assert services.offer_view(offer_id=second.offer_id) is True
    row = stats(made.id)
    assert (row.impressions, row.views, row.clicks) == (2, 2, 0)


def test_click_round_trips(campaign, choose, round_trips):
    campaign("acme")
    (ad,) = choose(viewer="reader")
    with round_trips() as counted:
        services.offer_click(offer_id=ad.offer_id, viewer="reader")
    # Read the offer, check its campaign still runs, claim it, count the
    # click, remember it for the viewer.
    assert counted.total == 5, counted.commands
    with round_trips() as again:
        services.offer_click(offer_id=ad.offer_id, viewer="reader")
    assert again.total == 1, again.commands


def test_the_viewers_clicks_are_sliced(campaign, choose, settings):
    settings.RATELIMIT_ENABLED = False  # past RATELIMIT_AD_VIEWER nothing is counted
    campaign("acme")
    for _ in range(CLICKS_MAX + 3):
        (ad,) = choose(viewer="reader")
        services.offer_click(offer_id=ad.offer_id, viewer="reader")
    assert len(AdUser.objects.get(id="reader").clicks) == CLICKS_MAX
