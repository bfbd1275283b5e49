"""Start-up tells the truth: static files collected (or a clear refusal) with
DEBUG off, and an unreachable MongoDB said as such, at start-up and on /healthz."""

import json
import os
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import pymongo
import pytest
from django.core import checks as django_checks
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed
from django.test import Client

from socialsite import checks, mongo
from socialsite.management.commands.demo import collect_static
from socialsite.middleware import StartupGuard

ROOT = Path(__file__).resolve().parent.parent
MANIFEST_STORAGE = "whitenoise.storage.CompressedManifestStaticFilesStorage"
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "k" * 20 + "-production-secret-0123456789-abcdefghijklmnop",
    "ALLOWED_HOSTS": "social.example.org",
}
# Nothing listens on port 1; the URI's own timeout keeps each attempt short.
UNREACHABLE = "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200"


def run(*command, **env):
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def production_static(settings, tmp_path):
    """Settings as in production (DEBUG off, whitenoise's manifest storage) with
    an empty STATIC_ROOT."""
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    return tmp_path


# --- static files --------------------------------------------------------------


def test_the_check_fires_without_collected_static_files(production_static):
    [error] = checks.static_manifest()
    assert error.id == checks.MISSING_MANIFEST
    assert str(production_static / "staticfiles.json") in error.msg
    assert "collectstatic" in error.hint
    # It is registered: `manage.py check --deploy` runs it.
    found = django_checks.run_checks(include_deployment_checks=True, tags=["staticfiles"])
    assert checks.MISSING_MANIFEST in [m.id for m in found]
    # A server refuses to start rather than answer every page with a 500.
    with pytest.raises(ImproperlyConfigured, match="static files have not been collected"):
        StartupGuard(lambda request: None)
    with pytest.raises(ImproperlyConfigured, match="collectstatic"):
        Client().get("/accounts/login/")


def test_the_demo_start_collects_static_files_and_pages_work(production_static):
    out = StringIO()
    assert collect_static(out) is True
    assert (production_static / "staticfiles.json").exists()
    assert checks.static_manifest() == []
    with pytest.raises(MiddlewareNotUsed):
        StartupGuard(lambda request: None)
    response = Client().get("/accounts/login/")
    assert response.status_code == 200
    # The stylesheet is linked by its hashed name, from the manifest.
    manifest = json.loads((production_static / "staticfiles.json").read_text())
    assert f"/static/{manifest['paths']['css/site.css']}" in response.content.decode()


def test_with_debug_on_nothing_is_needed_or_collected(settings, tmp_path):
    settings.DEBUG = True
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    assert checks.static_manifest() == []
    assert collect_static(StringIO()) is False
    assert list(tmp_path.iterdir()) == []


@pytest.mark.no_test_db(reason="the subprocess never opens the test database")
def test_gunicorn_refuses_to_start_without_collected_static_files(tmp_path):
    gunicorn = Path(sys.executable).with_name("gunicorn")
    result = run(
        str(gunicorn), "--check-config", "socialsite.wsgi", STATIC_ROOT=str(tmp_path), **PRODUCTION
    )
    assert result.returncode != 0
    assert "static files have not been collected" in result.stderr
    assert "collectstatic --noinput" in result.stderr


# --- MongoDB reachability -------------------------------------------------------


@pytest.fixture
def unreachable_client():
    """A client of its own: the connection every other test uses is left alone."""
    client = pymongo.MongoClient(UNREACHABLE, connect=False)
    yield client
    client.close()


def test_start_up_says_an_unreachable_server_is_unreachable(unreachable_client, caplog):
    uri = "mongodb://ops:s3cret@127.0.0.1:1/socialsite?serverSelectionTimeoutMS=200"
    assert mongo.announce(unreachable_client["socialsite"], uri) is False
    [record] = [r for r in caplog.records if r.name == "socialsite.mongo"]
    assert record.levelname == "ERROR"
    message = record.getMessage()
    assert message.startswith("MongoDB unreachable at 127.0.0.1:1: ServerSelectionTimeoutError")
    assert "Connection refused" in message
    assert "connected" not in message
    assert "s3cret" not in message and "ops" not in message


def test_start_up_says_connected_when_the_server_answers(caplog):
    assert mongo.announce(mongo.database(), "mongodb://ops:s3cret@db1:27017,db2/socialsite")
    [record] = [r for r in caplog.records if r.name == "socialsite.mongo"]
    assert record.getMessage() == "MongoDB: connected to db1:27017,db2"


def test_healthz_answers_503_quickly_when_the_server_is_unreachable(client, monkeypatch):
    # No serverSelectionTimeoutMS: pymongo alone would wait 30 seconds.
    patient = pymongo.MongoClient("mongodb://127.0.0.1:1/", connect=False)
    monkeypatch.setattr(mongo, "database", lambda: patient["socialsite"])
    monkeypatch.setattr(mongo, "PING_TIMEOUT", 0.3)
    started = time.monotonic()
    try:
        response = client.get("/healthz")
    finally:
        patient.close()
    assert time.monotonic() - started < 10
    assert response.status_code == 503
    assert response.json() == {"status": "error", "db": "unreachable"}


@pytest.mark.no_test_db(reason="the subprocess never opens the test database")
def test_a_process_started_on_an_unreachable_uri_logs_it():
    uri = "mongodb://ops:s3cret@127.0.0.1:1/socialsite?serverSelectionTimeoutMS=200"
    result = run(sys.executable, "manage.py", "check", DEBUG="true", MONGODB_URI=uri)
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.startswith("{")]
    [line] = [x for x in lines if x.get("logger") == "socialsite.mongo"]
    assert line["level"] == "error"
    assert line["event"].startswith("MongoDB unreachable at 127.0.0.1:1: ")
    assert "connected" not in result.stderr and "s3cret" not in result.stderr


@pytest.mark.parametrize(
    ("uri", "hosts"),
    [
        ("mongodb://localhost:27017/socialsite", "localhost:27017"),
        ("mongodb://db1,db2,db3/socialsite?replicaSet=rs0", "db1,db2,db3"),
        ("mongodb+srv://user:p%40ss@cluster0.example.net/socialsite", "cluster0.example.net"),
        ("mongodb://user:raw/pass@host:27017/db", "host:27017"),
        ("mongodb://host/?tlsCertificateKeyFilePassword=secret@x", "host"),
    ],
)
def test_hosts_drop_credentials_database_and_options(uri, hosts):
    assert mongo.hosts(uri) == hosts


@pytest.mark.parametrize(
    ("version", "sharded", "refused"),
    [((4, 4), False, True), ((5, 0), False, False), ((5, 0), True, True), ((7, 0), True, False)],
)
def test_a_server_too_old_for_the_pages_is_an_error_at_start_up(
    monkeypatch, version, sharded, refused
):
    from socialsite import checks, mongo
    from socialsite.middleware import StartupGuard

    monkeypatch.setattr(mongo, "server_facts", lambda: (version, sharded))
    errors = checks.server_version()
    assert [error.id for error in errors] == (["socialsite.E007"] if refused else [])
    if refused:
        assert ("5.1" if sharded else "5.0") in errors[0].msg
        with pytest.raises(Exception, match="too old"):
            StartupGuard(lambda request: None)


def test_the_server_facts_are_read_from_a_real_server():
    from socialsite import mongo

    facts = mongo.server_facts()
    if mongo.is_demo():
        assert facts is None
    else:  # the wire server speaks as MongoDB 7.0, not a router
        assert facts is not None and facts[0] >= (5, 0) and facts[1] is False
