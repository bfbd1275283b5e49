"""The demo's seeders: each app registers its own in `AppConfig.ready()`, so
`manage.py seed_demo` (this package's command) runs them without naming, or
importing, a single app (docs/architecture.md: dependencies point down).

A seeder is a dotted path to a function taking the `Seeding` in progress,
imported only when seeding runs. They run in the order the apps are
installed (the people and their graph first), and those registered `last`
after all the others (the feeds' delivery, once every other demo's comments
and votes are in the posts). One may also say whether the database holds a
demo already (`seeded`), which the command asks before it starts.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils.module_loading import import_string


@dataclass
class Seeding:
    """What seeders share: the command's options, the handles the first
    seeder made (oldest first), and the line the command ends with."""

    users: int
    maxfollows: int
    seed: int
    stdout: Any = None
    handles: list[str] = field(default_factory=list)
    greeting: str = "Demo ready."


@dataclass(frozen=True)
class Seeder:
    label: str
    path: str  # "app.demo.function", called with the Seeding
    seeded: str | None = None  # "app.demo.function" -> bool: a demo is there already
    last: bool = False

    def run(self, seeding: Seeding) -> None:
        seed: Callable[[Seeding], Any] = import_string(self.path)
        seed(seeding)

    def holds_demo(self) -> bool:
        return bool(self.seeded and import_string(self.seeded)())


_seeders: dict[str, Seeder] = {}


def register(label: str, path: str, *, seeded: str | None = None, last: bool = False) -> None:
    """Called from an app's `ready()`; registering a label again replaces it."""
    _seeders[label] = Seeder(label, path, seeded, last)


def seeders() -> list[Seeder]:
    registered = list(_seeders.values())
    return [s for s in registered if not s.last] + [s for s in registered if s.last]
