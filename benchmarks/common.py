"""What the benchmarks share: Django set-up, the database guard, figures and the table."""

import argparse
import os
import sys


def setup_django() -> None:
    from django.apps import apps

    if apps.ready:  # called from inside a configured process (the tests)
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "socialsite.settings")
    os.environ.setdefault("DEBUG", "true")  # so no SECRET_KEY is needed
    import django

    django.setup()


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
