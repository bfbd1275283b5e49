"""The campaign report (ads/selectors.py) and its SVG chart (ads/charts.py)."""

import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

from ads import charts, selectors
from ads.documents import AdStats, Campaign, budget_row_id, stats_row_id

SVG = "{http://www.w3.org/2000/svg}"


def campaign(ecpm="2.50") -> Campaign:
    return Campaign(
        id="acme:sale", advertiser="acme", name="Sale", owner="adv", ecpm=Decimal(ecpm)
    ).save(force_insert=True)


def seed(campaign_id, rows):
    AdStats._get_collection().insert_many(
        [
            {
                "_id": stats_row_id(campaign_id, unit, day),
                "campaign_id": campaign_id,
                "ad_unit_id": unit,
                "day": day,
                "impressions": impressions,
                "views": impressions // 2,
                "clicks": clicks,
            }
            for day, unit, impressions, clicks in rows
        ]
    )


def test_spend_is_impressions_times_ecpm_over_1000_to_the_cent():
    assert selectors.spend(1000, Decimal("2.50")) == Decimal("2.50")
    assert selectors.spend(7, Decimal("2.50")) == Decimal("0.02")  # 0.0175, half up
    assert selectors.spend(1, Decimal("4.99")) == Decimal("0.00")  # 0.00499
    assert selectors.spend(3, Decimal("1.67")) == Decimal("0.01")  # 0.00501
    assert selectors.spend(0, Decimal("9.99")) == Decimal("0.00")
    assert str(selectors.spend(10**9, Decimal("10000"))) == "10000000000.00"


def test_ctr_is_clicks_per_hundred_impressions_and_none_without_impressions():
    assert selectors.ctr(1, 3) == Decimal("33.33")
    assert selectors.ctr(2, 3) == Decimal("66.67")
    assert selectors.ctr(0, 10) == Decimal("0.00")
    assert selectors.ctr(5, 0) is None


def test_the_report_sums_units_into_days_and_days_into_the_total():
    c = campaign()
    seed(
        c.id,
        [
            ("2026-11-02", "b", 200, 3),
            ("2026-11-01", "a", 1000, 10),
            ("2026-11-01", "b", 7, 1),
            ("2026-11-03", "a", 0, 0),
        ],
    )
    # Another campaign's rows and this campaign's budget row stay out of it.
    seed("other:one", [("2026-11-01", "a", 99, 9)])
    AdStats._get_collection().insert_one(
        {
            "_id": budget_row_id(c.id),
            "campaign_id": budget_row_id(c.id),
            "ad_unit_id": "*",
            "day": "all",
            "impressions": 1207,
        }
    )
    report = selectors.report(c)
    assert [(r.day, r.ad_unit_id, r.impressions, r.clicks, r.spend) for r in report.rows] == [
        ("2026-11-01", "a", 1000, 10, Decimal("2.50")),
        ("2026-11-01", "b", 7, 1, Decimal("0.02")),
        ("2026-11-02", "b", 200, 3, Decimal("0.50")),
        ("2026-11-03", "a", 0, 0, Decimal("0.00")),
    ]
    assert [(d.day, d.impressions, d.views, d.clicks, d.spend, d.ctr) for d in report.days] == [
        ("2026-11-01", 1007, 503, 11, Decimal("2.52"), Decimal("1.09")),
        ("2026-11-02", 200, 100, 3, Decimal("0.50"), Decimal("1.50")),
        ("2026-11-03", 0, 0, 0, Decimal("0.00"), None),
    ]
    assert [(u.ad_unit_id, u.impressions, u.clicks) for u in report.units] == [
        ("a", 1000, 10),
        ("b", 207, 4),
    ]
    total = report.total
    assert (total.impressions, total.clicks, total.spend) == (1207, 14, Decimal("3.02"))
    assert not report.truncated


def test_a_long_report_keeps_the_newest_whole_days(monkeypatch):
    monkeypatch.setattr(selectors, "REPORT_MAX_ROWS", 5)
    c = campaign()
    days = [f"2026-11-{d:02d}" for d in range(1, 6)]
    seed(c.id, [(day, unit, 10, 1) for day in days for unit in ("a", "b")])
    report = selectors.report(c)
    # 5 rows reach into 2026-11-03 with one of its two units: that day goes whole.
    assert [d.day for d in report.days] == ["2026-11-04", "2026-11-05"]
    assert all(d.impressions == 20 for d in report.days) and report.truncated


def test_the_report_is_one_read_of_the_campaign_day_index(round_trips):
    c = campaign()
    seed(c.id, [(f"2026-{m:02d}-{d:02d}", "a", 5, 1) for m in (9, 10) for d in range(1, 29)])
    with round_trips() as trips:
        report = selectors.report(c)
    assert len(report.days) == 56
    assert trips.commands == ["find"]


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("acme:sale", "acme:sale"),
        ("acme-2:sale_3-b", "acme-2:sale_3-b"),
        ("acme", None),
        ("acme:", None),
        (":sale", None),
        ("acme:sale:x", None),
        ("Acme:sale", None),
        ("acme:-sale", None),
        ("acme:$ne", None),
        ("a" * 41 + ":b", None),
        ("acme:sale\n", None),
        ({"$ne": 1}, None),
        (None, None),
    ],
)
def test_campaign_ids_are_parsed_strictly(value, parsed):
    assert selectors.parse_campaign_id(value) == parsed


@pytest.mark.parametrize(
    "cursor", ["", "x", "12_", "_acme:sale", "99999999999999999_acme:sale", "12_$ne", "١٢_acme:a"]
)
def test_a_malformed_list_cursor_is_the_first_page(cursor):
    assert selectors._decode(cursor) is None


def chart_of(days):
    return ET.fromstring(str(charts.daily_chart(days)))


def test_the_chart_is_one_labelled_image_with_a_bar_and_a_point_per_day():
    c = campaign()
    seed(
        c.id, [("2026-11-01", "a", 120, 3), ("2026-11-02", "a", 480, 1), ("2026-11-03", "a", 0, 0)]
    )
    svg = chart_of(selectors.report(c).days)
    assert svg.get("role") == "img"
    title, desc = svg.find(f"{SVG}title"), svg.find(f"{SVG}desc")
    assert title.text == "Impressions and clicks per day"
    assert svg.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert "2026-11-01 to 2026-11-03" in desc.text and "600 impressions" in desc.text
    assert "4 clicks" in desc.text
    bars = svg.findall(f"{SVG}rect")
    assert len(bars) == 3
    heights = [float(b.get("height")) for b in bars]
    assert heights[1] > heights[0] > heights[2] == 0
    assert bars[1].find(f"{SVG}title").text == "2026-11-02: 480 impressions, 1 click"
    points = svg.find(f"{SVG}polyline").get("points").split()
    assert len(points) == 3
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[0] < ys[1] < ys[2]  # 3 clicks highest on the page, then 1, then 0
    assert "style" not in str(charts.daily_chart(selectors.report(c).days))  # CSP: no inline style


def test_no_days_no_chart_and_scales_round_up():
    assert charts.daily_chart([]) is None
    assert [charts._nice(n) for n in (0, 1, 3, 7, 10, 11, 480, 5001)] == [
        1,
        1,
        5,
        10,
        10,
        20,
        500,
        10000,
    ]


def test_axis_maximums_are_short():
    assert [charts._short(n) for n in (5, 500, 5000, 20000, 500000, 10**6, 2 * 10**9)] == [
        "5",
        "500",
        "5k",
        "20k",
        "500k",
        "1M",
        "2G",
    ]
