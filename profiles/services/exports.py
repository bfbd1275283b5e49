"""A person's data export (docs/accounts.md#export): asked for here, built
by the task `profiles.tasks.build_export` (profiles/services/export_zip.py)
and kept in the `exports` GridFS bucket for EXPORT_KEEP_DAYS. The sweeper's
part (builds a dead process left, expired exports) and the data_export
collection's eraser are here too.
"""

from datetime import timedelta

import gridfs
import mongoengine as me
from bson import ObjectId
from django.conf import settings

from profiles import tasks
from profiles.documents import DataExport, ExportFile
from profiles.services.export_zip import BUCKET, exports_fs
from socialsite.clock import aware, now
from socialsite.documents import orphan_chunks_delete


class ExportRefused(Exception):
    """Asked again within EXPORT_EVERY_HOURS; the message says so."""


def export_request(*, handle: str) -> DataExport:
    """Queue a new export; refused (ExportRefused) within EXPORT_EVERY_HOURS
    of the last one asked for."""
    last = DataExport.objects(owner=handle).order_by("-requested").first()
    every = timedelta(hours=settings.EXPORT_EVERY_HOURS)
    if last is not None and last.state != "failed" and now() - aware(last.requested) < every:
        raise ExportRefused("You can ask for one export a day. The last one is below.")
    export = DataExport(owner=handle)
    try:
        # The export's `building` state is its task's mark: written before the
        # task is queued, cleared by the write that finishes it, and found by
        # `exports_stalled` if the task is lost.
        export.save(force_insert=True)
    except me.NotUniqueError as exc:  # another request of theirs won the race
        raise ExportRefused("Your export is being built. It will be ready below.") from exc
    tasks.build_export.enqueue(str(export.id))
    return export


def exports_stalled(*, older_than_seconds: float | None = None, limit: int = 100) -> int:
    """Queue again the builds older than TASKS_LEASE_SECONDS: their process
    died (the sweeper's). A build still running beside it is harmless: the
    first to finish marks the export ready, the other deletes its file."""
    seconds = settings.TASKS_LEASE_SECONDS if older_than_seconds is None else older_than_seconds
    rows = DataExport._get_collection().find(
        {"state": "building", "requested": {"$lt": now() - timedelta(seconds=seconds)}},
        {"_id": 1},
    )
    ids = [row["_id"] for row in rows.limit(limit)]
    for export_id in ids:
        tasks.build_export.enqueue(str(export_id))
    return len(ids)


def export_file(*, handle: str, export_id: ObjectId) -> gridfs.GridOut | None:
    """The ready, unexpired export's file, if it is `handle`'s; else None."""
    export = DataExport.objects(id=export_id, owner=handle, state="ready").first()
    if export is None or export.expires is None or aware(export.expires) <= now():
        return None
    try:
        return exports_fs().get(export.file)
    except gridfs.NoFile:
        return None


def _delete(rows: list[dict]) -> int:
    if not rows:
        return 0
    fs = exports_fs()
    for row in rows:
        if row.get("file") is not None:
            fs.delete(row["file"])
    ids = [row["_id"] for row in rows]
    return DataExport._get_collection().delete_many({"_id": {"$in": ids}}).deleted_count


def exports_expire(*, limit: int = 100) -> int:
    """Delete the exports past their EXPORT_KEEP_DAYS (the sweeper's)."""
    rows = DataExport._get_collection().find({"expires": {"$lt": now()}}, {"file": 1})
    return _delete(list(rows.limit(limit)))


def exports_erase(handle: str, limit: int) -> int:
    rows = DataExport._get_collection().find({"owner": handle}, {"file": 1}).limit(limit)
    deleted = _delete(list(rows))
    # A file whose export a crash left unmarked: found by its owner.
    orphans = ExportFile._get_collection().find({"metadata.owner": handle}, {"_id": 1})
    for row in list(orphans.limit(limit)):
        exports_fs().delete(row["_id"])
        deleted += 1
    # Chunks of an upload that died before its files document: nothing names
    # their owner any more, so the bucket's old ones go (socialsite/documents.py).
    return deleted + orphan_chunks_delete(BUCKET)
