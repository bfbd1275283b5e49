"""Two whole instances side by side (tests/federation/instances.py): each
answers the client API on its own address, and a person of each demo gets
a token through the real login and consent pages."""

import pytest

from tests.federation.instances import two_instances  # noqa: F401 (a fixture)

pytestmark = pytest.mark.no_test_db(
    reason="each instance runs in a subprocess on its own demo database"
)


def test_each_instance_answers_the_client_api_as_itself(two_instances):  # noqa: F811
    a, b = two_instances
    assert a.port != b.port
    for instance in (a, b):
        alice = instance.client("alice")
        host = f"127.0.0.1:{instance.port}"
        assert alice.instance_v1()["uri"] == host  # GET /api/v1/instance
        assert alice.instance()["domain"] == host  # GET /api/v2/instance
        me = alice.account_verify_credentials()
        assert me["username"] == "alice"
        assert me["acct"] == "alice"


def test_the_two_databases_are_separate(two_instances):  # noqa: F811
    """A post on one instance is not on the other's local timeline."""
    a, b = two_instances
    posted = a.client("dennis_turing").status_post("Only on instance A, for now.")
    assert posted["account"]["username"] == "dennis_turing"
    assert posted["id"] in {s["id"] for s in a.client("alice").timeline_public(local=True)}
    on_b = b.client("alice").timeline_public(local=True, limit=40)
    assert "Only on instance A, for now." not in " ".join(s["content"] for s in on_b)
