"""Federation's tests share one RSA key pair for our people: making one
costs tens of milliseconds, and no test here tells two local keys apart."""

from functools import cache

import pytest

from federation import signatures

_generate = signatures.generate_key_pair


@cache
def _one_pair() -> tuple[str, str]:
    return _generate()


@pytest.fixture(autouse=True)
def _one_key_pair(monkeypatch):
    monkeypatch.setattr(signatures, "generate_key_pair", _one_pair)


from tests.federation.remote import remote  # noqa: E402, F401 (the fake remote server, a fixture)
