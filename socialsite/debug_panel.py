"""A django-debug-toolbar panel listing the page's MongoDB commands.

There is no SQL here, so the toolbar's SQL panel stays empty; this one shows
what the footer meter shows staff (docs/developer-lens.md), with the reply sizes too,
from the same round-trip counter. Installed with the `dev` extras and wired
in settings.py only when DEBUG is on (never under the test suite).
"""

from debug_toolbar.panels import Panel
from django.http import HttpRequest, HttpResponseBase

from socialsite import roundtrips


class MongoPanel(Panel):
    title = "MongoDB"
    template = "socialsite/debug_panel.html"

    @property
    def nav_subtitle(self) -> str:
        stats = self.get_stats()
        if "round_trips" not in stats:
            return ""
        return f"{stats['round_trips']} round trips, {stats['ms']:.1f} ms"

    def process_request(self, request: HttpRequest) -> HttpResponseBase:
        with roundtrips.count() as trips:
            response = super().process_request(request)
        self._trips = trips
        return response

    def generate_stats(self, request: HttpRequest, response: HttpResponseBase) -> None:
        trips = getattr(self, "_trips", None)
        if trips is not None:
            self.record_stats(summary(trips))


def summary(trips: roundtrips.Counter) -> dict:
    """The counter as plain data: the toolbar keeps panels' stats as JSON."""
    return {
        "round_trips": trips.total,
        "docs": trips.docs,
        "ms": round(trips.ms, 3),
        "commands": [command._asdict() for command in trips.details],
    }
