"""A person's data export (docs/accounts.md#export): a zip of JSON files,
one per file of the owner registry (socialsite/owners.py), built by a task
and kept in the `exports` GridFS bucket for EXPORT_KEEP_DAYS.

The zip is written to a temporary file and streamed into GridFS, so a large
account never holds its whole export in memory, and no document comes near
the 16 MB limit (GridFS cuts the file in chunks).
"""

import json
import tempfile
import zipfile
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import IO

import gridfs
import mongoengine as me
from bson import ObjectId
from django.conf import settings

from profiles.documents import DataExport, ExportFile
from socialsite import owners
from socialsite.clock import aware, now
from socialsite.documents import orphan_chunks_delete
from socialsite.mongo import database

BUCKET = "exports"


class ExportRefused(Exception):
    """Asked again within EXPORT_EVERY_HOURS; the message says so."""


def _fs() -> gridfs.GridFS:
    return gridfs.GridFS(database(), collection=BUCKET)


def _plain(value: object) -> str:
    """JSON for what the documents hold: ids and times as strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, ObjectId):
        return str(value)
    return str(value)  # Decimal and the like


def export_request(*, handle: str) -> DataExport:
    """Queue a new export; refused (ExportRefused) within EXPORT_EVERY_HOURS
    of the last one asked for."""
    from profiles import tasks  # tasks import the services

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
    from profiles import tasks

    seconds = settings.TASKS_LEASE_SECONDS if older_than_seconds is None else older_than_seconds
    rows = DataExport._get_collection().find(
        {"state": "building", "requested": {"$lt": now() - timedelta(seconds=seconds)}},
        {"_id": 1},
    )
    ids = [row["_id"] for row in rows.limit(limit)]
    for export_id in ids:
        tasks.build_export.enqueue(str(export_id))
    return len(ids)


def export_build(export_id: ObjectId) -> bool:
    """Write the zip and mark the export ready; a failure marks it failed."""
    export = DataExport.objects(id=export_id, state="building").first()
    if export is None:
        return False
    try:
        with tempfile.TemporaryFile() as raw:
            with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for entry in owners.export_files():
                    with archive.open(f"{entry.name}.json", "w") as out:
                        _write_array(out, entry.export(export.owner), raw)
            size = raw.tell()
            raw.seek(0)
            stamp = now().strftime("%Y%m%d")
            file_id = _fs().put(
                raw,
                filename=f"socialsite-{export.owner}-{stamp}.zip",
                metadata={"owner": export.owner, "content_type": "application/zip"},
            )
    except TooLarge:
        DataExport.objects(id=export_id, state="building").update_one(
            set__state="failed", set__reason="too_large"
        )
        return False
    except Exception:
        DataExport.objects(id=export_id).update_one(set__state="failed")
        raise
    ready = now()
    done = DataExport.objects(id=export_id, state="building").update_one(
        set__state="ready",
        set__ready=ready,
        set__expires=ready + timedelta(days=settings.EXPORT_KEEP_DAYS),
        set__file=file_id,
        set__size=size,
    )
    if not done:  # a second build (the sweeper's) finished first: one file stays
        _fs().delete(file_id)
        return False
    return True


class TooLarge(Exception):
    """The zip passed EXPORT_MAX_BYTES: the build stops there."""


def _write_array(out: IO[bytes], records: Iterable[dict], raw: IO[bytes]) -> None:
    """A JSON array, one record at a time; TooLarge once the zip written so
    far (`raw`) passes EXPORT_MAX_BYTES (checked every thousand records)."""
    out.write(b"[")
    for index, record in enumerate(records):
        if index:
            out.write(b",")
            if index % 1000 == 0 and raw.tell() > settings.EXPORT_MAX_BYTES:
                raise TooLarge
        out.write(b"\n")
        out.write(json.dumps(record, default=_plain, ensure_ascii=False).encode())
    out.write(b"\n]\n")
    if raw.tell() > settings.EXPORT_MAX_BYTES:
        raise TooLarge


def export_file(*, handle: str, export_id: ObjectId) -> gridfs.GridOut | None:
    """The ready, unexpired export's file, if it is `handle`'s; else None."""
    export = DataExport.objects(id=export_id, owner=handle, state="ready").first()
    if export is None or export.expires is None or aware(export.expires) <= now():
        return None
    try:
        return _fs().get(export.file)
    except gridfs.NoFile:
        return None


def _delete(rows: list[dict]) -> int:
    if not rows:
        return 0
    fs = _fs()
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
        _fs().delete(row["_id"])
        deleted += 1
    # Chunks of an upload that died before its files document: nothing names
    # their owner any more, so the bucket's old ones go (socialsite/documents.py).
    return deleted + orphan_chunks_delete(BUCKET)
