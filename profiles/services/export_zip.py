"""Building a person's data export (docs/accounts.md#export): what the task
`profiles.tasks.build_export` runs after `export_request`
(profiles/services/exports.py) queued it. A zip of JSON files, one per file
of the owner registry (socialsite/owners.py), kept in the `exports` GridFS
bucket.

The zip is written to a temporary file and streamed into GridFS, so a large
account never holds its whole export in memory, and no document comes near
the 16 MB limit (GridFS cuts the file in chunks).

Apart from the requests and the sweeps (profiles/services/exports.py)
because those queue the task that runs the build: one module holding both
would import the tasks and be imported by them.
"""

import json
import tempfile
import zipfile
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import IO

import gridfs
from bson import ObjectId
from django.conf import settings

from profiles.documents import DataExport
from socialsite import owners
from socialsite.clock import now
from socialsite.mongo import database

BUCKET = "exports"


def exports_fs() -> gridfs.GridFS:
    """The `exports` bucket, where the zips are kept."""
    return gridfs.GridFS(database(), collection=BUCKET)


def _plain(value: object) -> str:
    """JSON for what the documents hold: ids and times as strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, ObjectId):
        return str(value)
    return str(value)  # Decimal and the like


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
            file_id = exports_fs().put(
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
        exports_fs().delete(file_id)
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
