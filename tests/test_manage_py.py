"""`manage.py` in a checkout with nothing set (docs/operations.md#the-secret-key,
#commands): `help` lists the project's commands, Django's SQL commands say
why they are not used, and `createsuperuser` is `create_admin`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from profiles.documents import User

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str) -> subprocess.CompletedProcess:
    # No SECRET_KEY, DEBUG or MONGODB_URI: a new shell in the checkout.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "DEBUG", "MONGODB_URI", "DJANGO_SETTINGS_MODULE"}
        and not k.startswith("PYTEST")
    }
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_lists_the_projects_commands_with_nothing_set():
    result = manage("help")
    assert result.returncode == 0, result.stderr
    for command in ("demo", "seed_demo", "create_admin", "createsuperuser", "ensure_indexes"):
        assert f"    {command}\n" in result.stdout
    migrate = manage("migrate", "--noinput")
    assert migrate.returncode == 1
    assert "no SQL database" in migrate.stderr and "ensure_indexes" in migrate.stderr
    assert "Traceback" not in migrate.stderr


def test_createsuperuser_makes_an_admin_with_djangos_flags(monkeypatch):
    monkeypatch.delenv("DJANGO_SUPERUSER_PASSWORD", raising=False)
    call_command(
        "createsuperuser", "--username", "boss", "--password", "a long admin password", "--noinput"
    )
    assert User.objects.get(handle="boss").role == "admin"


def test_every_sql_command_answers_a_sentence():
    for name in ("migrate", "dbshell", "flush", "loaddata", "dumpdata", "test"):
        with pytest.raises(CommandError, match="no SQL database"):
            call_command(name)
