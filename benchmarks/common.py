"""What the benchmarks share: Django set-up, the database guard, figures and the table."""

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.test.utils import override_settings


def setup_django() -> None:
    from django.apps import apps

    if apps.ready:  # called from inside a configured process (the tests)
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
    os.environ.setdefault("DEBUG", "true")  # so no SECRET_KEY is needed
    import django

    django.setup()


def production_like() -> None:
    """The environment of a process that measures the site as it serves
    (benchmarks/app_cpu.py, benchmarks/growth.py), read when Django sets up:
    DEBUG off (the cached template loader, Django's template engine as in
    production), plain http for the test client, and only this process's
    in-memory database."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("SECRET_KEY", "benchmark-only-" + "x" * 40)
    os.environ["MONGODB_URI"] = ""
    for flag in ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE"):
        os.environ[flag] = "false"


def serving_overrides() -> "override_settings":
    """Settings a measuring process enables over production's: static names
    unhashed (no collectstatic manifest needed to render), a fast password
    hasher for the sign-in, no rate limits."""
    from django.test.utils import override_settings

    return override_settings(
        STORAGES={
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
        },
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        RATELIMIT_ENABLED=False,
    )


def silence_request_log() -> None:
    """The JSON request log still formats each line (that is the app's
    time), but writes it nowhere, so the tables are readable."""
    import logging

    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)


def empty_database() -> None:
    from socialsite import indexes, mongo

    if not mongo.is_demo():
        indexes.ensure_all()
    # In demo mode no index is created: the demo database answers no query from an
    # index, and checks a unique index by scanning the collection on every
    # write. A single-threaded run that delivers each post once does not need
    # the unique indexes (they make re-delivery idempotent).
    for document in indexes.all_documents():
        document._get_collection().delete_many({})


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--wipe",
        action="store_true",
        help="allow emptying the collections of the MONGODB_URI database",
    )


def announce_database(args, demo_caveat: str) -> bool:
    """Say which database is measured; False when a real one may not be wiped."""
    from socialsite import mongo

    db = mongo.database()
    if mongo.is_demo():
        print(
            f"DEMO MODE: in-process demo database. {demo_caveat} The timings reflect the demo "
            "database, not MongoDB; round trips and storage counts do carry over. "
            "Set MONGODB_URI to measure a server."
        )
        return True
    if not args.wipe:
        print(
            f"This benchmark empties every collection of database {db.name!r} on "
            "MONGODB_URI. Point it at a scratch database and pass --wipe.",
            file=sys.stderr,
        )
        return False
    print(f"MongoDB: database {db.name!r} on MONGODB_URI.")
    return True


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}" if seconds > 0 else "-"


def per(trips: int, n: int) -> str:
    return f"{trips / max(1, n):.1f}"


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append(" | ".join(cells))
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    return "\n".join(lines)
