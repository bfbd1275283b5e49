"""The explore app's collections in the owner registry (socialsite/owners.py)."""

from explore import services
from socialsite import owners

APP = "explore"

owners.owned("tag_use", app=APP, fields=("_id", "author"), erase=services.tag_uses_erase)
owners.owned("hidden_tag", app=APP, fields=(), why="tags a moderator hid: the audit log says who")
owners.owned("trend_list", app=APP, fields=("trends.today",), erase=services.trend_list_erase)
