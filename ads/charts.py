"""A small inline SVG chart of a campaign's days: impressions as bars on the
left scale, clicks as a line on the right one (clicks are far fewer).

Server-rendered markup, no script and no inline style (the CSP allows
neither): colours come from classes in site.css. The chart is one image to
assistive technology (`role="img"`, a `<title>` and a `<desc>` summing it
up); the report table beside it holds the same numbers for everyone.
"""

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 52, 44, 14, 30
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM


def _nice(top: int) -> int:
    """The scale's maximum: `top` rounded up to 1, 2 or 5 times a power of ten."""
    if top <= 0:
        return 1
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= top:
                return step * factor
        step *= 10


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _short(n: int) -> str:
    """An axis maximum, short enough for the margin: 500, 5k, 20M."""
    for size, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:g}{suffix}"
    return str(n)


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def daily_chart(days: list, *, chart_id: str = "ad-chart") -> SafeString | None:
    """`days`: report lines with `day`, `impressions` and `clicks`, oldest first."""
    if not days:
        return None
    top_impressions = _nice(max(d.impressions for d in days))
    top_clicks = _nice(max(d.clicks for d in days))
    slot = PLOT_W / len(days)
    bar_w = min(max(slot * 0.7, 1), 48)  # one day is a bar, not a wall
    bars, points = [], []
    for index, day in enumerate(days):
        x = LEFT + index * slot
        height = PLOT_H * day.impressions / top_impressions
        bars.append(
            (
                _n(x + (slot - bar_w) / 2),
                _n(TOP + PLOT_H - height),
                _n(bar_w),
                _n(height),
                f"{day.day}: {_count(day.impressions, 'impression')}, "
                f"{_count(day.clicks, 'click')}",
            )
        )
        cy = TOP + PLOT_H - PLOT_H * day.clicks / top_clicks
        points.append((_n(x + slot / 2), _n(cy)))
    total_impressions = sum(d.impressions for d in days)
    total_clicks = sum(d.clicks for d in days)
    span = days[0].day if len(days) == 1 else f"{days[0].day} to {days[-1].day}"
    summary = (
        f"{_count(len(days), 'day')}, {span}: "
        f"{_count(total_impressions, 'impression')} "
        f"(busiest day {max(d.impressions for d in days):,}) "
        f"and {_count(total_clicks, 'click')} (busiest day {max(d.clicks for d in days):,})."
    )
    base = TOP + PLOT_H
    grid = format_html_join(
        "",
        '<line class="ad-chart__grid" x1="{}" x2="{}" y1="{}" y2="{}"/>',
        ((LEFT, LEFT + PLOT_W, _n(TOP + PLOT_H * f), _n(TOP + PLOT_H * f)) for f in (0, 0.5, 1)),
    )
    axis = format_html(
        '<text class="ad-chart__label ad-chart__label--impressions" x="{}" y="{}" '
        'text-anchor="end">{}</text>'
        '<text class="ad-chart__label ad-chart__label--impressions" x="{}" y="{}" '
        'text-anchor="end">0</text>'
        '<text class="ad-chart__label ad-chart__label--clicks" x="{}" y="{}">{}</text>'
        '<text class="ad-chart__label ad-chart__label--clicks" x="{}" y="{}">0</text>',
        LEFT - 6,
        TOP + 4,
        _short(top_impressions),
        LEFT - 6,
        base + 4,
        LEFT + PLOT_W + 6,
        TOP + 4,
        _short(top_clicks),
        LEFT + PLOT_W + 6,
        base + 4,
    )
    dates = [(LEFT, "start", days[0].day)]
    if len(days) > 1:
        dates.append((LEFT + PLOT_W, "end", days[-1].day))
    date_labels = format_html_join(
        "",
        '<text class="ad-chart__label" x="{}" y="{}" text-anchor="{}">{}</text>',
        ((x, HEIGHT - 8, anchor, label) for x, anchor, label in dates),
    )
    bar_marks = format_html_join(
        "",
        '<rect class="ad-chart__bar" x="{}" y="{}" width="{}" height="{}">'
        "<title>{}</title></rect>",
        bars,
    )
    line = format_html(
        '<polyline class="ad-chart__line" points="{}"/>',
        " ".join(f"{x},{y}" for x, y in points),
    )
    dots = (
        format_html_join("", '<circle class="ad-chart__dot" cx="{}" cy="{}" r="3"/>', points)
        if len(points) <= 60
        else ""
    )
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" class="ad-chart" viewBox="0 0 {} {}" role="img" '
        'aria-labelledby="{}-title {}-desc" preserveAspectRatio="xMidYMid meet">'
        '<title id="{}-title">Impressions and clicks per day</title>'
        '<desc id="{}-desc">{}</desc>{}{}{}{}{}{}</svg>',
        WIDTH,
        HEIGHT,
        chart_id,
        chart_id,
        chart_id,
        chart_id,
        summary,
        grid,
        bar_marks,
        line,
        dots,
        axis,
        date_labels,
    )
