"""Federation's collections in the owner registry (socialsite/owners.py)."""

from federation import erasure
from socialsite import owners

APP = "federation"

owners.owned("ap_key", app=APP, fields=("_id",), erase=erasure.keys_erase)
owners.owned("ap_object", app=APP, fields=("by",), erase=erasure.objects_erase)
owners.owned("ap_follow", app=APP, fields=("follower", "followee"), erase=erasure.follows_erase)
owners.owned("ap_delivery", app=APP, fields=("signer",), erase=erasure.deliveries_erase)
owners.owned(
    "ap_domain",
    app=APP,
    fields=("by",),
    why="kept: a moderator's rule for a server is the site's record, as the audit log",
)
