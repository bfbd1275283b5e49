"""One wire server per pytest-xdist worker, for scripts/test's second pass.

    SOCIALSITE_WIRE_URIS="uri0 uri1" python -m pytest -p tests.wire_workers -n 2 ...

The wire server answers one command at a time, so the second pass runs on
several servers at once: worker `gwN` gets the N-th URI (round robin) as its
MONGODB_TEST_URI. This is a plugin (`-p`), not conftest code, because the
settings read MONGODB_TEST_URI when pytest-django sets Django up, before any
conftest is imported; a `-p` module is imported earlier than that.
"""

import os

_uris = os.environ.get("SOCIALSITE_WIRE_URIS", "").split()
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _uris and _worker.startswith("gw"):
    os.environ["MONGODB_TEST_URI"] = _uris[int(_worker[2:]) % len(_uris)]
