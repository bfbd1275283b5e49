"""Where a thread's CPU goes, by layer: a sampling of its frames
(benchmarks/growth.py; docs/benchmarks.md#growth).

A second thread wakes about every millisecond, reads the measured thread's
stack (`sys._current_frames`) and its CPU clock (`pthread_getcpuclockid`),
and gives the CPU the thread spent since the last sample to the layer of the
stack it finds. Weighing by the thread's own CPU, not by wall time, keeps
the figure honest on a busy machine: a sample taken while the thread waited
for a core weighs nothing. The sampler reads a stack only when it holds the
GIL, so the measured thread is asked to hand it over often
(`sys.setswitchinterval`); it then stops at the next bytecode boundary, which
falls evenly through Python code. A long call into C (a regex, a BSON
encoding) is seen at its end, in the Python frame that made it.

A stack's layer is that of its innermost frame that belongs to one:
- **database**: the embedded database's frames (`embedded_mongo/`, and the
  `mongomock/` it builds on);
- **templates**: Django's template engine (`django/template/`);
- **middleware**: the modules of the classes in `settings.MIDDLEWARE`
  (`socialsite/middleware.py`, Django's and the apps' middleware);
- **ours**: the project's own modules (the views, selectors, services,
  template tags, tasks, the session store) and Django's handler once it has
  passed the request to the view (`_get_response`).
Other frames (the standard library, MongoEngine, Django's utilities, the
test client) count for the layer that called them, so MongoEngine building
documents for a selector is that selector's time, and the request log's
JSON formatting under the logging middleware is the middleware's. A stack
with no such frame is "ours" too: the rest."""

import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from types import CodeType, FrameType

LAYERS = ("database", "templates", "middleware", "ours")
DATABASE_PARTS = ("/embedded_mongo/", "/mongomock/")
TEMPLATE_PARTS = ("/django/template/",)
INTERVAL = 0.001  # seconds between samples
SWITCH_INTERVAL = 0.0002  # how soon the measured thread hands the GIL over
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def middleware_files() -> frozenset[str]:
    """The source files of the classes in settings.MIDDLEWARE."""
    from django.conf import settings

    files = set()
    for path in settings.MIDDLEWARE:
        module = import_module(path.rpartition(".")[0])
        if module.__file__:
            files.add(os.path.abspath(module.__file__))
    return frozenset(files)


class Classifier:
    """The layer of a stack; each code object's own layer is worked out once."""

    def __init__(self, middleware: frozenset[str]) -> None:
        self.middleware = middleware
        self.known: dict[CodeType, str | None] = {}

    def own(self, code: CodeType) -> str | None:
        try:
            return self.known[code]
        except KeyError:
            pass
        name = code.co_filename
        layer: str | None = None
        if any(part in name for part in DATABASE_PARTS):
            layer = "database"
        elif any(part in name for part in TEMPLATE_PARTS):
            layer = "templates"
        elif name in self.middleware:
            layer = "middleware"
        elif self._ours(name, code.co_name):
            layer = "ours"
        self.known[code] = layer
        return layer

    @staticmethod
    def _ours(name: str, function: str) -> bool:
        """The project's modules, and Django's handler from the view on."""
        if name.startswith(ROOT) and f"{os.sep}.venv{os.sep}" not in name:
            return True
        return name.endswith("/django/core/handlers/base.py") and function == "_get_response"

    def layer(self, frame: FrameType | None) -> str:
        while frame is not None:
            layer = self.own(frame.f_code)
            if layer is not None:
                return layer
            frame = frame.f_back
        return "ours"


class Sampler:
    """Samples one thread's stacks while `current` names what it runs:
    `cpu[name][layer]` is the CPU seconds seen there, `samples[name]` how
    many samples saw it. `with sampler.sampling():` from the measured thread;
    outside such a block nothing runs beside it."""

    def __init__(self, least: int = 0) -> None:
        self.classifier = Classifier(middleware_files())
        self.least = least  # samples each name should get (the caller's rounds)
        self.rounds = 0  # the caller's count of what it ran sampled
        self.current: str | None = None
        self.cpu: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(LAYERS, 0.0))
        self.samples: dict[str, int] = defaultdict(int)

    @contextmanager
    def naming(self, name: str) -> Iterator[None]:
        """What runs inside the block is `name`'s."""
        self.current = name
        try:
            yield
        finally:
            self.current = None

    @contextmanager
    def sampling(self) -> Iterator[None]:
        ident = threading.get_ident()
        stop = threading.Event()
        switch = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        thread = threading.Thread(target=self._run, args=(ident, stop), daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            sys.setswitchinterval(switch)

    def _run(self, ident: int, stop: threading.Event) -> None:
        clock = time.pthread_getcpuclockid(ident)
        last = time.clock_gettime(clock)
        while not stop.wait(INTERVAL):
            frame = sys._current_frames().get(ident)
            spent = time.clock_gettime(clock)
            weight, last = spent - last, spent
            name = self.current
            if name is None or frame is None:
                continue
            self.cpu[name][self.classifier.layer(frame)] += weight
            self.samples[name] += 1
            del frame  # a frame kept alive keeps its locals alive

    def shares(self, name: str) -> dict[str, float]:
        """Each layer's share of `name`'s sampled CPU, in per cent."""
        seen = self.cpu.get(name) or {}
        total = sum(seen.values())
        return {layer: 100 * seen.get(layer, 0.0) / total if total else 0.0 for layer in LAYERS}
