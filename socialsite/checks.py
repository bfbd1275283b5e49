"""Start-up checks: a production configuration, and the database's indexes.

With DEBUG off, the static files are served through whitenoise's hashed
manifest: every `{% static %}` tag looks its file up in STATIC_ROOT's
`staticfiles.json`. Without that file (no `collectstatic`), every page that
links a stylesheet is a 500. This module says so before the first request:
`manage.py check --deploy` reports it, and `StartupGuard` (in
socialsite.middleware) refuses to start a server without it.

Indexes are part of the schema (docs/operations.md#indexes): a declared index
the database lacks, or holds with other keys or options, is reported the way
Django reports unapplied migrations, by `manage.py check`, by `runserver` and
every other management command as it starts. They are warnings, not errors:
the site still answers (a missing unique index lets duplicates in, it does
not stop a page), and `manage.py ensure_indexes` must itself be able to run.
Deployments that want to stop on them run `manage.py check --fail-level WARNING`.
"""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core import checks
from django.core.files.storage import storages

from socialsite import indexes, mail, mongo

MISSING_MANIFEST = "socialsite.E001"
INDEX_MISSING = "socialsite.W002"
INDEX_DIFFERS = "socialsite.W003"
INDEXES_UNCHECKED = "socialsite.W004"
MAIL_UNCONFIGURED = "socialsite.E006"
SERVER_TOO_OLD = "socialsite.E007"
# The oldest MongoDB the pages' pipelines run on: `$lookup` with both
# `localField` and a `pipeline` (5.0); on a sharded cluster, `$lookup` and
# `$graphLookup` into a sharded collection (5.1).
OLDEST_SERVER = (5, 0)
OLDEST_SHARDED = (5, 1)


@checks.register()
def mail_configured(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """An error when a real database has no mail server: the demo's mailbox
    is for the embedded database only, since a kept reset link is a key to
    its account (docs/operations.md#email)."""
    if not mail.unconfigured():
        return []
    return [
        checks.Error(
            "MONGODB_URI names a real database but EMAIL_URL is not set: no mail "
            "(verification, password reset, address-change notice) would be sent.",
            hint="Set EMAIL_URL (smtp://user:password@host:587, or consolemail:// to try).",
            id=MAIL_UNCONFIGURED,
        )
    ]


@checks.register()
def server_version(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """An error when the MongoDB server is older than the pages' pipelines
    need (docs/operations.md#using-a-real-mongodb): a page would fail with
    a server error where the check can say why. Nothing when the server does
    not answer (the index check says so) or on the embedded database."""
    facts = mongo.server_facts()
    if facts is None:
        return []
    version, sharded = facts
    oldest = OLDEST_SHARDED if sharded else OLDEST_SERVER
    if version >= oldest:
        return []
    where = "a sharded cluster" if sharded else "a server"
    needs = ".".join(map(str, oldest))
    return [
        checks.Error(
            f"MongoDB {'.'.join(map(str, version))} is too old: on {where} the pages need {needs}"
            + (" ($lookup into sharded collections)." if sharded else " ($lookup forms)."),
            hint=f"Upgrade the server to MongoDB {needs} or newer.",
            id=SERVER_TOO_OLD,
        )
    ]


def startup_errors() -> list[checks.CheckMessage]:
    """What must stop a server before its first request (StartupGuard)."""
    return static_manifest() + mail_configured() + server_version()


@checks.register(checks.Tags.staticfiles, deploy=True)
def static_manifest(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """An error when the hashed-manifest storage is on and has no manifest."""
    if settings.DEBUG:
        return []  # Django serves the unhashed names then; no manifest needed
    storage = storages["staticfiles"]
    if not isinstance(storage, ManifestFilesMixin):
        return []
    if storage.manifest_storage.exists(storage.manifest_name):
        return []
    where = storage.manifest_storage.path(storage.manifest_name)
    return [
        checks.Error(
            f"DEBUG is off and the static files have not been collected: {where} is missing, "
            "so every page would fail with a server error.",
            hint="Run `manage.py collectstatic --noinput` before starting the site.",
            id=MISSING_MANIFEST,
        )
    ]


@checks.register("mongodb")
def declared_indexes(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """A warning per declared index that is missing or differs in the database:
    one ping, then one `listIndexes` per collection."""
    error = mongo.ping_error()
    if error is None:
        try:
            found = indexes.drift()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
    if error is not None:
        return [
            checks.Warning(
                f"The declared indexes could not be compared with the database: {error}",
                hint="Run `manage.py check` again once MongoDB answers.",
                id=INDEXES_UNCHECKED,
            )
        ]
    hint = "Run `manage.py ensure_indexes`: it creates and rebuilds them, and says what it did."
    return [
        checks.Warning(
            f"Index {drift.name} of collection {drift.collection} is "
            + ("missing" if drift.problem == "missing" else "not as declared")
            + (f": {drift.detail}." if drift.detail else "."),
            hint=hint,
            obj=drift.label,
            id=INDEX_MISSING if drift.problem == "missing" else INDEX_DIFFERS,
        )
        for drift in found
    ]


OWNERS_UNDECLARED = "socialsite.E005"


@checks.register(checks.Tags.models)
def owners_declared(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """An error for a collection whose app did not declare who its documents
    name: erasure and export would pass it by (docs/accounts.md#erasure)."""
    from socialsite import owners

    return [
        checks.Error(
            f"Collection {name!r} declares no owner fields.",
            hint="Declare them in its app's owners.py (socialsite.owners.owned).",
            id=OWNERS_UNDECLARED,
        )
        for name in owners.undeclared()
    ]
