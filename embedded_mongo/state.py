"""State the demo database's patches share."""

import threading

# Per-thread switches of the unique-index shortcuts (see uniques.py).
flags = threading.local()

# One lock for the whole in-memory server: operations are serialised the way a
# single mongod serialises writes to a document. Re-entrant because mongomock
# methods call each other (find_one -> find).
server_lock = threading.RLock()


def value_at(document, dotted: str):
    value = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value
