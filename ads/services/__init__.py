"""Every write of the ad network, one module per concept; import them from here.

Choosing an ad (and recording it) is `ads.serving.choosing.choose_ads`.
"""

from ads.services.campaigns import (
    MAX_UNITS,
    campaign_activate,
    campaign_create,
    campaign_deactivate,
    campaign_update,
    unit_add,
    unit_remove,
)
from ads.services.errors import AdsError
from ads.services.offers import offer_click, offer_view
from ads.services.pacing import ads_pacing
from ads.services.validation import MAX_KEYWORDS, clean_keywords

__all__ = [
    "MAX_KEYWORDS",
    "MAX_UNITS",
    "AdsError",
    "ads_pacing",
    "campaign_activate",
    "campaign_create",
    "campaign_deactivate",
    "campaign_update",
    "clean_keywords",
    "offer_click",
    "offer_view",
    "unit_add",
    "unit_remove",
]
