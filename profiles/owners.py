"""The profiles app's collections in the owner registry (socialsite/owners.py)."""

from profiles.selectors import export
from profiles.services import erasure, exports, graph
from socialsite import owners

APP = "profiles"

# Edges first: the counters they correct are on `user` documents.
owners.owned("following", app=APP, fields=("_f", "_t"), erase=graph.follows_erase)
owners.owned(
    "followers", app=APP, fields=("_f", "_t"), why="erased with `following`: the same edges"
)
owners.owned("data_export", app=APP, fields=("owner",), erase=exports.exports_erase)
owners.owned(
    "user",
    app=APP,
    fields=("_id", "name", "email", "blocked", "muted"),
    erase=erasure.user_erase,
)
owners.owned("erasure", app=APP, fields=("_id",), why="the walk's own job, deleted when it ends")
owners.owned("held_handle", app=APP, fields=(), why="a keyed hash of the handle, not the handle")

for name, function in (
    ("profile", export.profile_export),
    ("following", export.following_export),
    ("followers", export.followers_export),
    ("circles", export.circles_export),
    ("blocks", export.blocks_export),
    ("mutes", export.mutes_export),
):
    owners.exported(name, app=APP, export=function)
owners.owned(
    "exports.files",
    app=APP,
    fields=("metadata.owner", "filename"),
    why="erased with `data_export`: each export's file (and one a crash left)",
)
owners.owned("exports.chunks", app=APP, fields=(), why="the bytes of an exports.files file")
