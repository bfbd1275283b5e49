from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from pymongo.errors import OperationFailure

from feeds.documents import Post
from feeds.selectors import delivery
from socialsite import mongo
from timelines.stores import MODELS, get_store

STORED_MODELS = [name for name in MODELS if get_store(name).stores_entries]


def coll_stats(name: str) -> dict | None:
    """`collStats` of one collection, or None where the server does not answer it.

    the demo database implements no `collStats`; a server that dropped the command
    (it is deprecated since 6.2) still answers the `$collStats` stage.
    """
    if mongo.is_demo():
        return None
    db = mongo.database()
    try:
        return db.command("collStats", name)
    except OperationFailure:
        pass  # the command is gone from this server: try the aggregation stage
    try:
        rows = list(db[name].aggregate([{"$collStats": {"storageStats": {}}}]))
    except OperationFailure:
        return None
    if not rows:
        return None
    # Per shard on a cluster: add them up.
    parts = [row.get("storageStats", {}) for row in rows]
    count = sum(p.get("count", 0) for p in parts)
    size = sum(p.get("size", 0) for p in parts)
    return {
        "count": count,
        "size": size,
        "storageSize": sum(p.get("storageSize", 0) for p in parts),
        "totalIndexSize": sum(p.get("totalIndexSize", 0) for p in parts),
        "avgObjSize": size / count if count else 0,
    }


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


class Command(BaseCommand):
    help = (
        "Timeline storage of every model (documents and entries), collection sizes "
        "from collStats where the server supports it, and posts by delivery state."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        out = self.stdout
        out.write(f"FEED_MODEL={settings.FEED_MODEL} FEED_EMBED={settings.FEED_EMBED}")
        out.write("")
        rows = [("model", "collection", "documents", "entries", "entries/doc")]
        collections = []
        for name in STORED_MODELS:
            stats = get_store(name).stats()
            docs, entries = stats["documents"], stats["entries"]
            per_doc = f"{entries / docs:.1f}" if docs else "-"
            rows.append((name, stats["collection"], str(docs), str(entries), per_doc))
            collections.append(stats["collection"])
        rows.append(("read", "-", "0", "0", "-  (nothing stored: fan-out on read)"))
        self._table(rows)

        out.write("")
        sizes = [("collection", "documents", "data size", "storage", "indexes", "avg object")]
        for name in [*collections, Post._get_collection_name()]:
            coll = coll_stats(name)
            if coll is None:
                note = "n/a (demo mode)" if mongo.is_demo() else "n/a (not supported)"
                sizes.append((name, note, "", "", "", ""))
                continue
            sizes.append(
                (
                    name,
                    str(coll.get("count", 0)),
                    human(coll.get("size", 0)),
                    human(coll.get("storageSize", 0)),
                    human(coll.get("totalIndexSize", 0)),
                    human(coll.get("avgObjSize", 0)),
                )
            )
        self._table(sizes)

        out.write("")
        counts = delivery.delivery_counts()
        out.write(
            "posts by delivery state: "
            + ", ".join(f"{state} {n}" for state, n in counts.items())
            + f" (total {sum(counts.values())})"
        )

    def _table(self, rows: Sequence[tuple[str, ...]]) -> None:
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            line = "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
            self.stdout.write(line.rstrip())
