"""The shard plan (`manage.py shard_plan`) and the writes it relies on:
every single-document write on the graph carries its full shard key."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from pymongo import DeleteMany, InsertOne, UpdateMany

from feeds.documents import PollVote, Post
from profiles import services as graph
from profiles.documents import FollowerEdge, FollowingEdge
from socialsite import mongo
from socialsite.clock import now
from socialsite.management.commands import shard_plan

# Every sharded collection and its key, as mongosh spells it: a new
# collection must be decided on here (sharded how, or left unsharded).
EXPECTED_KEYS = {
    "user": "{_id: 1}",
    # ObjectIds grow: a ranged `_id` would send every insert to one shard.
    "post": '{_id: "hashed"}',
    "poll_vote": "{post: 1, voter: 1}",
    "post_like": "{post: 1, by: 1}",
    "post_repost": "{post: 1, by: 1}",
    "timeline_cache": "{owner: 1}",
    "timeline_month": "{owner: 1}",
    "timeline_size": "{owner: 1}",
    # A recipient's buckets, split by bucket: `{owner}` alone would make a
    # celebrity's notifications one chunk that cannot split.
    "notification_buckets": "{owner: 1, slot: 1}",
    # `{_f}` alone would make a celebrity's edges one chunk that cannot split.
    "following": "{_f: 1, _t: 1}",
    "followers": "{_f: 1, _t: 1}",
    "comments": "{discussion_id: 1, slug: 1}",
    # The whole unique key: one vote each across shards.
    "comment_vote": "{discussion_id: 1, slug: 1, voter: 1}",
    "comment_buckets": "{discussion_id: 1, bucket: 1}",
    "comment_log": "{discussion_id: 1, slug: 1}",
    "comment_budget": '{_id: "hashed"}',
    "conversation": '{_id: "hashed"}',
    "conversation_key": '{_id: "hashed"}',
    "message_buckets": "{conversation: 1, bucket: 1}",
    "session": '{_id: "hashed"}',
    "ratelimit": '{_id: "hashed"}',
    "once_key": '{_id: "hashed"}',
    # A held handle is read by its keyed hash alone.
    "held_handle": '{_id: "hashed"}',
    # One (tag, hour, author) each, upserted by `_id`: a busy tag spreads.
    "tag_use": '{_id: "hashed"}',
    # The whole unique key, as for likes: one bookmark each across shards.
    "bookmark": "{owner: 1, post: 1}",
    # A post's earlier versions stay together; hashed, as ObjectIds grow.
    "post_revision": '{post: "hashed"}',
    # GridFS's chunks, by their file: the key GridFS's own guide gives.
    "photos.chunks": "{files_id: 1, n: 1}",
    "exports.chunks": "{files_id: 1, n: 1}",
    # The ad network (docs/ads-api.md): a decision reads one zone by (site, zone);
    # viewers and offers by random `_id`; a report reads one campaign's days.
    "ad_zone": "{site_id: 1, zone_id: 1}",
    "ad_user": '{_id: "hashed"}',
    "ad_offer": '{_id: "hashed"}',
    "ad_stats": "{campaign_id: 1, day: 1, ad_unit_id: 1}",
    # The client API (docs/api.md): apps, codes and tokens, each read and
    # written by its random `_id` alone (a token's digest on every request).
    "oauth_app": '{_id: "hashed"}',
    "oauth_code": '{_id: "hashed"}',
    "oauth_token": '{_id: "hashed"}',
    "api_media": '{_id: "hashed"}',
    # A person's read markers: one document, by their handle.
    "api_marker": '{_id: "hashed"}',
    "api_list": "{owner: 1, circle: 1}",
    # Federation (docs/federation.md): each read and written by its `_id`
    # (a person's key, a remote object's id, a follow, a delivery).
    "ap_key": '{_id: "hashed"}',
    "ap_object": '{_id: "hashed"}',
    "ap_follow": '{_id: "hashed"}',
    "ap_delivery": '{_id: "hashed"}',
}


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("shard_plan", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_shard_plan_prints_every_key():
    out, err = run()
    db = mongo.database().name
    lines = out.splitlines()
    assert lines[0] == f'sh.enableSharding("{db}")'
    printed = {
        line.split(f'"{db}.', 1)[1].split('"', 1)[0]: line.split('", ', 1)[1][:-1]
        for line in lines
        if line.startswith("sh.shardCollection(")
    }
    assert printed == EXPECTED_KEYS, out
    assert err == ""


def test_hashed_keys_get_their_index_before_sharding():
    """shardCollection makes a hashed index only on an empty collection."""
    out, _ = run()
    db = mongo.database().name
    lines = out.splitlines()
    for collection, key in EXPECTED_KEYS.items():
        shard = lines.index(f'sh.shardCollection("{db}.{collection}", {key})')
        create = f'db.getSiblingDB("{db}").{collection}.createIndex({key})'
        if "hashed" in key:
            assert lines[shard - 1] == create, out
        else:
            assert create not in lines, out


def test_small_collections_stay_unsharded():
    out, _ = run()
    unsharded = [line for line in out.splitlines() if line.startswith("// unsharded")]
    assert unsharded == [
        "// unsharded (primary shard): ap_domain, audit_log, campaign, data_export, erasure,"
        " exports.files, hidden_tag, periodic_job, photos.files, pulled_author, report,"
        " report_item, task_mark, trend_list"
    ]


def test_every_shard_key_is_an_index_prefix():
    """shardCollection needs an index led by the key, and unique indexes must start with it."""
    steps = shard_plan.plan()
    assert {collection for collection, _, _ in steps} == set(EXPECTED_KEYS)
    assert [(c, p) for c, _, problems in steps for p in problems] == []


def test_a_unique_index_on_a_hashed_collection_is_a_problem(monkeypatch):
    specs = Post._meta["index_specs"] + [{"fields": [("by.id", 1), ("ts", 1)], "unique": True}]
    monkeypatch.setitem(Post._meta, "index_specs", specs)
    problems = dict((c, p) for c, _, p in shard_plan.plan())["post"]
    assert problems == ["unique index ['by.id', 'ts'] cannot be enforced on a hashed shard key"]
    _, err = run()
    assert "warning: post: unique index ['by.id', 'ts'] cannot be enforced" in err
    with pytest.raises(CommandError, match="Fix the shard key problems"):
        run("--apply")


def test_a_unique_index_not_led_by_a_ranged_key_is_a_problem(monkeypatch):
    specs = PollVote._meta["index_specs"] + [{"fields": [("voter", 1)], "unique": True}]
    monkeypatch.setitem(PollVote._meta, "index_specs", specs)
    problems = dict((c, p) for c, _, p in shard_plan.plan())["poll_vote"]
    assert problems == ["unique index ['voter'] does not start with the shard key"]


def test_hashed_field_must_belong_to_the_key(monkeypatch):
    monkeypatch.setitem(Post._meta, "shard_hashed", "ts")
    with pytest.raises(CommandError, match="shard_hashed 'ts' is not a field of the shard key"):
        shard_plan.plan()


def test_shard_plan_apply_needs_a_mongos():
    admin = mongo.database().client.admin
    if not mongo.is_demo() and shard_plan.Command._is_mongos(admin):
        pytest.skip("connected to a mongos: --apply would really shard")
    with pytest.raises(CommandError, match="mongos"):
        run("--apply")


# --- every single-document write on the graph names the whole edge -----------------

SINGLE_WRITES = ("update_one", "delete_one", "replace_one", "find_one_and_update")


@pytest.fixture
def edge_writes(monkeypatch):
    """The filter of every single-document write on `following` and `followers`."""
    seen: list[tuple[str, str, dict]] = []
    for document in (FollowingEdge, FollowerEdge):
        collection = document._get_collection()
        for name in SINGLE_WRITES:
            original = getattr(collection, name)

            def spy(filter, *args, _original=original, _name=name, _c=collection.name, **kw):
                seen.append((_c, _name, dict(filter)))
                return _original(filter, *args, **kw)

            monkeypatch.setattr(collection, name, spy)

        def bulk_spy(requests, *args, _original=collection.bulk_write, _c=collection.name, **kw):
            requests = list(requests)
            for op in requests:
                if not isinstance(op, (InsertOne, UpdateMany, DeleteMany)):
                    seen.append((_c, type(op).__name__, dict(op._filter)))
            return _original(requests, *args, **kw)

        monkeypatch.setattr(collection, "bulk_write", bulk_spy)
    return seen


def test_graph_writes_carry_the_full_shard_key(make_user, edge_writes):
    ada, bob = make_user("ada", circles=["close"]), make_user("bob")
    make_user("cat")
    graph.follow_create(follower=ada, followee="bob")
    graph.follow_create(follower=ada, followee="bob", circles=["close"])
    graph.circle_remove_member(owner=ada, name="close", member="bob")
    graph.circle_add_member(owner=ada, name="close", member="bob")
    graph.circles_set_for(owner=ada, member="bob", circles=[])
    graph.follow_create(follower=bob, followee="cat")
    graph.follow_delete(follower="ada", followee="bob")
    # Edges a crashed process left half-added and half-removed, then repaired.
    stale = now().replace(year=2000)
    FollowingEdge._get_collection().delete_many({"_f": "bob", "_t": "cat"})
    FollowingEdge._get_collection().insert_many(
        [
            {"_f": "cat", "_t": "ada", "_g": [], "state": "adding", "changed": stale},
            {"_f": "bob", "_t": "cat", "_g": [], "state": "removing", "changed": stale},
        ]
    )
    assert graph.graph_repair() == 2
    assert {(c, name) for c, name, _ in edge_writes} >= {
        ("following", "update_one"),
        ("following", "delete_one"),
        ("following", "find_one_and_update"),
        ("followers", "update_one"),
        ("followers", "delete_one"),
        ("following", "UpdateOne"),
        ("following", "DeleteOne"),
        ("followers", "UpdateOne"),
        ("followers", "DeleteOne"),
    }
    for collection, name, query in edge_writes:
        assert isinstance(query.get("_f"), str), (collection, name, query)
        assert isinstance(query.get("_t"), str), (collection, name, query)


def test_the_sharding_table_in_the_docs_lists_every_collection():
    """docs/operations.md#sharding says, for each collection, its key or why
    it stays unsharded: a new collection must be written down there too."""
    import re
    from pathlib import Path

    from socialsite import indexes

    text = (Path(__file__).resolve().parent.parent / "docs" / "operations.md").read_text()
    section = text.split("\n## Sharding\n", 1)[1].split("\n## ", 1)[0]
    named = set()
    for row in section.splitlines():
        if row.startswith("| `"):
            named |= set(re.findall(r"`([^`]+)`", row.split("|")[1]))
    collections = {document._get_collection_name() for document in indexes.all_documents()}
    assert sorted(collections - named) == []
