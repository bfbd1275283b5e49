"""What broke: every 5xx, deduplicated by cause, reported all at once."""

import traceback
from dataclasses import dataclass, field
from pathlib import Path

from tests.hostile.probe import Probe

ROOT = str(Path(__file__).resolve().parents[2]) + "/"


def _ours(filename: str) -> bool:
    """A frame in the project's code, not the venv's or the standard library's."""
    return filename.startswith(ROOT) and "/.venv/" not in filename


@dataclass
class Finding:
    """One distinct failure: the exception and where it was raised."""

    exception: str
    where: str
    tail: str
    routes: set = field(default_factory=set)
    example: str = ""
    count: int = 0


class Findings:
    """Every 5xx across every route, deduplicated by exception and the
    innermost frame of project code that raised it."""

    def __init__(self):
        self.by_cause: dict[tuple, Finding] = {}
        self.requests = 0

    def __bool__(self) -> bool:
        return bool(self.by_cause)

    def record(self, probe: Probe, response) -> None:
        self.requests += 1
        if response.status_code < 500:
            return
        exc_info = getattr(response, "exc_info", None)
        if exc_info:
            exception = f"{exc_info[0].__name__}: {str(exc_info[1])[:200]}"
            frames = traceback.extract_tb(exc_info[2])
            own = [f for f in frames if _ours(f.filename)] or frames
            where = f"{own[-1].filename.removeprefix(ROOT)}:{own[-1].lineno} in {own[-1].name}"
            lines = traceback.format_exception(*exc_info)
            tail = "".join(lines[-8:])
            cause = (exc_info[0].__name__, where)
        else:
            exception = f"status {response.status_code} without an exception"
            where, tail, cause = probe.route, "", (response.status_code, probe.route)
        route = f"{probe.method} /{probe.route}"
        self._add(cause, Finding(exception, where, tail), route, probe.describe())

    def _add(self, cause: tuple, new: Finding, route: str, example: str) -> None:
        finding = self.by_cause.setdefault(cause, new)
        finding.routes.add(route)
        finding.count += 1
        if not finding.example or len(example) < len(finding.example):
            finding.example = example

    def report(self) -> str:
        out = [f"{len(self.by_cause)} distinct 5xx causes in {self.requests} requests:"]
        for n, f in enumerate(self.by_cause.values(), 1):
            out.append(
                f"\n[{n}] {f.exception}\n    raised at {f.where} ({f.count} requests)\n"
                f"    routes: {', '.join(sorted(f.routes))}\n    e.g. {f.example}\n"
                + "\n".join("      " + line for line in f.tail.rstrip().splitlines())
            )
        return "\n".join(out)
