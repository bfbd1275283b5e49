"""Every write to users, profiles, the follower graph, circles and blocks,
one module per concept; import them from here."""

from profiles.names import fold_name, name_terms
from profiles.services.circles import (
    CIRCLE_NAME_RE,
    MAX_CIRCLES,
    circle_add_member,
    circle_create,
    circle_delete,
    circle_remove_member,
    circle_rename,
    circles_set_for,
    clean_circle_name,
)
from profiles.services.graph import (
    block_create,
    block_delete,
    counters_recount,
    follow_create,
    follow_delete,
    graph_repair,
)
from profiles.services.mutes import MAX_MUTES, mute_create, mute_delete
from profiles.services.users import (
    GraphError,
    HandleTaken,
    UnknownUser,
    password_change,
    profile_update,
    user_create,
    user_touch,
)

__all__ = [
    "CIRCLE_NAME_RE",
    "MAX_CIRCLES",
    "MAX_MUTES",
    "GraphError",
    "HandleTaken",
    "UnknownUser",
    "block_create",
    "block_delete",
    "circle_add_member",
    "circle_create",
    "circle_delete",
    "circle_remove_member",
    "circle_rename",
    "circles_set_for",
    "clean_circle_name",
    "counters_recount",
    "fold_name",
    "follow_create",
    "follow_delete",
    "graph_repair",
    "mute_create",
    "mute_delete",
    "name_terms",
    "password_change",
    "profile_update",
    "user_create",
    "user_touch",
]
