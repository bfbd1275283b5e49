"""What a client asks first (docs/api.md#instance)."""

from api.entities import checks
from api.entities.instance import socialsite_version
from feeds.forms import TEXT_MAX
from feeds.services import polls
from tests.api.conftest import BASE, mastodon, raw, session_for


def test_instance_v1_and_v2_have_every_documented_field(ann_api):
    v1 = raw(ann_api, "GET", "/api/v1/instance").json()
    assert checks.problems(v1, checks.INSTANCE_V1) == []
    v2 = raw(ann_api, "GET", "/api/v2/instance").json()
    assert checks.problems(v2, checks.INSTANCE_V2) == []
    assert checks.problems(v2["configuration"], checks.CONFIGURATION_V2) == []
    statuses = v2["configuration"]["statuses"]
    assert checks.problems(statuses, checks.STATUSES_CONFIGURATION) == []
    assert statuses["max_characters"] == TEXT_MAX
    assert checks.problems(v2["configuration"]["polls"], checks.POLLS_CONFIGURATION) == []
    assert v2["configuration"]["polls"]["max_options"] == polls.MAX_OPTIONS
    assert v1["stats"]["user_count"] == 1


def test_the_version_is_mastodons_with_ours(ann):
    client = mastodon(version_check_mode="created")
    assert client.retrieve_mastodon_version() == "4.3.0"
    assert client.instance_v2().version == f"4.3.0 (compatible; Socialsite {socialsite_version()})"
    assert client.instance_v1().uri == "testserver"
    assert client.instance().domain == "testserver"


def test_emojis_announcements_and_preferences(ann_api):
    assert session_for().get(f"{BASE}/api/v1/custom_emojis").json() == []
    assert raw(ann_api, "GET", "/api/v1/announcements").json() == []
    prefs = raw(ann_api, "GET", "/api/v1/preferences").json()
    assert checks.problems(prefs, checks.PREFERENCES) == []
    assert ann_api.preferences()["posting:default:visibility"] == "public"
