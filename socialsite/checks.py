"""Start-up checks for a production configuration.

With DEBUG off, the static files are served through whitenoise's hashed
manifest: every `{% static %}` tag looks its file up in STATIC_ROOT's
`staticfiles.json`. Without that file (no `collectstatic`), every page that
links a stylesheet is a 500. This module says so before the first request:
`manage.py check --deploy` reports it, and `StaticManifestGuard` (in
socialsite.middleware) refuses to start a server without it.
"""

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin
from django.core import checks
from django.core.files.storage import storages

MISSING_MANIFEST = "socialsite.E001"


@checks.register(checks.Tags.staticfiles, deploy=True)
def static_manifest(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
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
