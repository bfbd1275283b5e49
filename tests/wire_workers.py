"""One database server per pytest-xdist worker, for scripts/test's second pass.

    SOCIALSITE_WIRE_URIS="uri0 uri1" python -m pytest -p tests.wire_workers -n 2 ...

The wire server answers one command at a time, so the second pass runs on
several servers at once: worker `gwN` gets the N-th URI (round robin) as its
MONGODB_TEST_URI. Workers that share a server (fewer URIs than workers, or
none: MONGODB_TEST_URI for all) get a database of their own,
MONGODB_TEST_DB + "_gwN", since every test empties the collections.

This is a plugin (`-p`), not conftest code, because the settings read these
variables when pytest-django sets Django up, before any conftest is imported;
a `-p` module is imported earlier than that.
"""

import os

_uris = os.environ.get("SOCIALSITE_WIRE_URIS", "").split()
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _worker.startswith("gw"):
    _number = int(_worker[2:])
    _count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if _uris:
        os.environ["MONGODB_TEST_URI"] = _uris[_number % len(_uris)]
    if len(set(_uris)) < _count:
        base = os.environ.get("MONGODB_TEST_DB", "socialsite_test")
        os.environ["MONGODB_TEST_DB"] = f"{base}_{_worker}"
