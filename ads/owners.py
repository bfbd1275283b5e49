"""The ad network's collections in the owner registry (socialsite/owners.py)."""

from ads import selectors
from ads.services import erasure
from socialsite import owners

APP = "ads"

owners.owned("campaign", app=APP, fields=("owner",), erase=erasure.campaigns_erase)
owners.owned(
    "ad_zone", app=APP, fields=("ads.owner",), why="erased with `campaign`: its serving copies"
)
owners.owned(
    "ad_stats", app=APP, fields=("campaign_id",), why="erased with `campaign`: its counters"
)
owners.owned("ad_user", app=APP, fields=("_id",), erase=erasure.viewer_erase)
owners.owned("ad_offer", app=APP, fields=("viewer", "owner"), why="erased with `ad_user`")
owners.exported("campaigns", app=APP, export=selectors.campaigns_export)
