"""State the demo database's patches share."""

import threading

# Per-thread switches of the unique-index shortcuts (see uniques.py).
flags = threading.local()


def value_at(document, dotted: str):
    value = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value
