"""Fixtures shared by the ad network's tests: campaigns with units, made and
activated through the services as the pages do."""

import random
from decimal import Decimal

import pytest

from ads import services
from ads.serving.choosing import choose_ads


@pytest.fixture
def campaign():
    """`campaign(advertiser, name, ecpm, keywords=(), units=[(unit, site, zone)],
    active=True, owner=..., **fields)` -> Campaign (reloaded after activation).

    Each unit's title is "<unit> title" and its url https://example.org/<unit>;
    units default to one unit "<advertiser>-1" in socialsite/feed (`units=[]`: none).
    """

    def make(
        advertiser="acme",
        name="Spring sale",
        ecpm="100",
        keywords=(),
        units=None,
        active=True,
        owner=None,
        **fields,
    ):
        made = services.campaign_create(
            owner=owner or advertiser,
            advertiser=advertiser,
            name=name,
            ecpm=Decimal(str(ecpm)),
            keywords=list(keywords),
            **fields,
        )
        if units is None:
            units = [(f"{advertiser}-1", "socialsite", "feed")]
        for unit_id, site, zone in units:
            services.unit_add(
                campaign_id=made.id,
                ad_unit_id=unit_id,
                site=site,
                zone=zone,
                title=f"{unit_id} title",
                text=f"{unit_id} text",
                url=f"https://example.org/{unit_id}",
            )
        if active:
            services.campaign_activate(campaign_id=made.id)
        made.reload()
        return made

    return make


@pytest.fixture
def choose():
    """`choose(site="socialsite", zone="feed", viewer="v1", **kw)`: choose_ads with defaults."""

    def run(site="socialsite", zone="feed", viewer="v1", **kwargs):
        kwargs.setdefault("rng", random.Random(7))
        return choose_ads(site=site, zone=zone, viewer=viewer, **kwargs)

    return run
