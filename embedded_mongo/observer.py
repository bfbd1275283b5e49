"""Who hears about each command the embedded database answers.

A server reports its commands to the driver's listeners; this package has no
driver, so the connection setup hands it an observer instead (the site's
round-trip meter). The observer needs three functions: `call_query(name,
args, kwargs)` describes a call's filter, `record(name, collection, query)`
returns a trip with `docs`, `ms`, `reply` and `batch(...)`, and
`call_result(name, result)` gives `(docs, reply)`. Until one is set, commands
are answered and forgotten.
"""

from types import SimpleNamespace


class _Trip:
    """What an observer's `record` returns, kept by nobody."""

    __slots__ = ("docs", "ms", "reply")

    def __init__(self):
        self.docs = 0
        self.ms = 0.0
        self.reply = None

    def batch(self, documents: list, start: int, end: int, ms: float) -> None:
        self.docs += end - start
        self.ms += ms


_NULL = SimpleNamespace(
    call_query=lambda name, args, kwargs: None,
    record=lambda name, collection="", query=None: _Trip(),
    call_result=lambda name, result: (0, None),
)

current = SimpleNamespace(observer=_NULL)


def use(observer) -> None:
    current.observer = observer if observer is not None else _NULL
