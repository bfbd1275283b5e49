"""The wheel is the whole site: installed from it (`pip install .`, not
editable), away from the checkout, Django starts and pages render with their
templates and static files (docs/operations.md#installing-the-package).

The wheel is built by pyproject.toml's build backend (setup.py included) in a
clean interpreter, and installed into a fresh virtual environment. Only the third-party
dependencies come from the project's own environment, by a path file naming
its site-packages: that folder is then on sys.path but not processed as a site
folder, so the editable install's import hook there (its own `.pth`) never
runs and no module of the checkout can be imported.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.no_test_db(
    reason="the build and the installed site run in other processes, on their own database"
)

# Left out of the copy the wheel is built from: what a clean clone has not.
NOT_SOURCE = shutil.ignore_patterns(
    ".*", "__pycache__", "build", "dist", "*.egg-info", "test-artifacts", "staticfiles"
)

# Runs in the fresh environment, from a folder that is not the checkout.
CHECK = """
import json, sys
import django
from django.conf import settings
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client

django.setup()
import messaging, socialsite

client = Client()
pages = {}
for path in ("/", "/accounts/login/"):
    response = client.get(path)
    pages[path] = {"status": response.status_code, "html": response.content.decode()}
css = client.get(static("css/site.css"))
print(json.dumps({
    "modules": [socialsite.__file__, messaging.__file__],
    "templates": [str(d) for d in settings.TEMPLATES[0]["DIRS"]],
    "css_file": finders.find("css/site.css"),
    "css_url": static("css/site.css"),
    "css_status": css.status_code,
    "css": b"".join(css.streaming_content).decode() if css.streaming else css.content.decode(),
    "pages": pages,
    "path": sys.path,
}))
"""


def run(*command, cwd, env=None, timeout=180):
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result


def build_and_install(source: Path, tmp_path: Path) -> Path:
    """Builds the wheel of `source` and installs it into a new environment;
    returns that environment's python.

    A PEP 517 build as pip's isolated one, in fewer processes (about 4 s
    less): pyproject.toml's build requirements in a folder of their own, its
    backend's build_wheel called by the new environment's python, which has
    nothing else. From a copy, since a build leaves build/ behind.
    """
    src = tmp_path / "src"
    shutil.copytree(source, src, ignore=NOT_SOURCE)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run(sys.executable, "-m", "venv", "--without-pip", tmp_path / "venv", cwd=tmp_path)
    python = tmp_path / "venv" / "bin" / "python"

    build_system = tomllib.loads((src / "pyproject.toml").read_text())["build-system"]
    backend, dist = tmp_path / "backend", tmp_path / "dist"
    run(sys.executable, "-m", "pip", "install", "-q", "--target", backend,
        *build_system["requires"], cwd=tmp_path, env=clean)  # fmt: skip
    module, _, attribute = build_system["build-backend"].partition(":")
    hooks = f"{module}.{attribute}" if attribute else module
    build = f"import {module}; print({hooks}.build_wheel({str(dist)!r}))"
    result = run(python, "-c", build, cwd=src, env={**clean, "PYTHONPATH": str(backend)})
    wheel = dist / result.stdout.splitlines()[-1]

    # A wheel of pure Python installs by unpacking it (no scripts, no entry points).
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                  cwd=tmp_path).stdout.strip()  # fmt: skip
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(purelib)
    (Path(purelib) / "socialsite-test-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python


def files(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()}


def test_a_wheel_install_renders_pages_away_from_the_checkout(tmp_path):
    python = build_and_install(ROOT, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "MONGODB_URI", "MONGODB_TEST_URI", "STATIC_ROOT")
        and not k.startswith(("SOCIALSITE_", "DJANGO_", "FEED_", "COMMENTS_"))
    }
    env |= {
        "DJANGO_SETTINGS_MODULE": "socialsite.settings",
        # Whitenoise serves static files from the finders, with nothing collected.
        "DEBUG": "true",
        # Tasks in the request: no worker thread outlives the check.
        "TASKS_BACKEND": "immediate",
    }
    result = run(python, "-c", CHECK, cwd=elsewhere, env=env)
    found = json.loads(result.stdout.splitlines()[-1])

    venv = tmp_path / "venv"
    assert not any(Path(p).resolve() == ROOT for p in found["path"] if p)
    for module in found["modules"]:
        assert Path(module).is_relative_to(venv), module
    [templates] = found["templates"]
    assert Path(templates).is_relative_to(venv) and templates.endswith("site_files/templates")
    # Every file of templates/ and static/, not only those these pages use.
    shipped = Path(templates).parent
    for folder in ("templates", "static"):
        source = tmp_path / "src" / folder
        assert files(shipped / folder) == files(source) != set(), folder
    assert Path(found["css_file"]).is_relative_to(venv)
    assert found["css_status"] == 200
    assert found["css"] == (tmp_path / "src" / "static" / "css" / "site.css").read_text()
    for path, page in found["pages"].items():
        assert page["status"] == 200, (path, page["html"][:2000])
        html = page["html"]
        # base.html's markup, with its static file URLs.
        assert '<a class="skip-link" href="#main">Skip to content</a>' in html, path
        assert f'<link rel="stylesheet" href="{found["css_url"]}">' in html, path
        # On the embedded demo database: no MONGODB_URI.
        assert '<aside class="demo-banner" aria-label="Demo mode">' in html, path
    assert "<h1>Log in</h1>" in found["pages"]["/accounts/login/"]["html"]
