"""Follower graph, circles and blocks: services and selectors on the database."""

import threading

import pytest

from profiles import selectors, services
from profiles.documents import FollowerEdge, FollowingEdge, User


def counts(handle):
    user = User.objects.get(handle=handle)
    return user.followers_count, user.following_count


def edges():
    return sorted(
        (e["_f"], e["_t"]) for e in FollowingEdge._get_collection().find({}, {"_f": 1, "_t": 1})
    )


def test_follow_creates_both_edges_and_counts(make_user):
    ada, _ = make_user("ada"), make_user("bob")
    assert services.follow_create(follower=ada, followee="bob") is True
    assert edges() == [("ada", "bob")]
    assert FollowerEdge.objects(followee="bob", follower="ada").count() == 1
    assert counts("ada") == (0, 1)
    assert counts("bob") == (1, 0)


def test_follow_and_unfollow_are_idempotent(make_user):
    ada, _ = make_user("ada"), make_user("bob")
    assert services.follow_create(follower=ada, followee="bob")
    assert services.follow_create(follower=ada, followee="bob") is False
    assert counts("bob") == (1, 0)
    assert services.follow_delete(follower="ada", followee="bob") is True
    assert services.follow_delete(follower="ada", followee="bob") is False
    assert counts("bob") == (0, 0)
    assert counts("ada") == (0, 0)
    assert edges() == []
    assert FollowerEdge.objects.count() == 0


def test_cannot_follow_self_unknown_or_suspended(make_user):
    ada = make_user("ada")
    make_user("sus", status="suspended")
    with pytest.raises(services.GraphError):
        services.follow_create(follower=ada, followee="ada")
    with pytest.raises(services.UnknownUser):
        services.follow_create(follower=ada, followee="nobody")
    with pytest.raises(services.UnknownUser):
        services.follow_create(follower=ada, followee="sus")
    assert edges() == []


def test_concurrent_follow_unfollow_keeps_counters_equal_to_edges(make_user):
    """20 threads following and unfollowing the same accounts at once."""
    followers = [make_user(f"fan{i}") for i in range(4)]
    targets = ["star1", "star2", "star3"]
    for t in targets:
        make_user(t)
    barrier = threading.Barrier(20)
    errors = []

    def worker(n):
        try:
            barrier.wait()
            for step in range(30):
                who = followers[(n + step) % len(followers)]
                target = targets[(n * 7 + step) % len(targets)]
                if (n + step) % 2:
                    services.follow_create(follower=who, followee=target)
                else:
                    services.follow_delete(follower=who.handle, followee=target)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for user in User.objects:
        followers_edges = FollowerEdge.objects(followee=user.handle).count()
        following_edges = FollowingEdge.objects(follower=user.handle).count()
        assert user.followers_count == followers_edges >= 0, user.handle
        assert user.following_count == following_edges >= 0, user.handle
    # Both directions agree edge for edge.
    mirrored = sorted((e.follower, e.followee) for e in FollowerEdge.objects)
    assert mirrored == edges()
    assert FollowingEdge.objects(state__ne="active").count() == 0


def test_repair_finishes_half_done_edges_and_recounts(make_user):
    make_user("ada"), make_user("bob"), make_user("cat")
    old = "2020-01-01T00:00:00Z"
    from datetime import datetime

    t = datetime.fromisoformat(old)
    coll = FollowingEdge._get_collection()
    # A follow that died after inserting its edge, an unfollow that died after claiming.
    coll.insert_one({"_f": "ada", "_t": "bob", "_g": [], "state": "adding", "changed": t})
    coll.insert_one({"_f": "cat", "_t": "bob", "_g": [], "state": "removing", "changed": t})
    FollowerEdge._get_collection().insert_one({"_f": "bob", "_t": "cat"})
    User.objects(handle="bob").update_one(set__followers_count=7)

    assert services.graph_repair(older_than_seconds=60) == 2
    assert edges() == [("ada", "bob")]
    assert sorted((e.followee, e.follower) for e in FollowerEdge.objects) == [("bob", "ada")]
    assert counts("bob") == (1, 0)
    assert counts("ada") == (0, 1)
    assert counts("cat") == (0, 0)


def test_circles_create_rename_delete_and_membership(make_user):
    ada, _, _ = make_user("ada"), make_user("bob"), make_user("cat")
    services.circle_create(owner=ada, name="friends")
    services.circle_create(owner=ada, name="work")
    with pytest.raises(services.GraphError):
        services.circle_create(owner=ada, name="Friends")  # same name, other case
    for bad in ["", "*public*", "x" * 31, "<b>"]:
        with pytest.raises(services.GraphError):
            services.circle_create(owner=ada, name=bad)

    services.follow_create(follower=ada, followee="bob", circles=["friends"])
    services.follow_create(follower=ada, followee="cat")
    with pytest.raises(services.GraphError):
        services.circle_add_member(owner=ada, name="friends", member="nobody")
    services.circle_add_member(owner=ada, name="friends", member="cat")
    services.circle_add_member(owner=ada, name="work", member="cat")
    assert sorted(selectors.circle_member_handles("ada", "friends")) == ["bob", "cat"]

    services.circle_rename(owner=ada, old="friends", new="pals")
    assert User.objects.get(handle="ada").circles == ["pals", "work"]
    assert sorted(selectors.circle_member_handles("ada", "pals")) == ["bob", "cat"]
    assert selectors.circle_member_handles("ada", "friends") == []

    # Leaving the last circle keeps the follow.
    services.circle_remove_member(owner=ada, name="pals", member="bob")
    assert ("ada", "bob") in edges()
    assert selectors.circle_member_handles("ada", "pals") == ["cat"]

    services.circle_delete(owner=ada, name="work")
    assert User.objects.get(handle="ada").circles == ["pals"]
    assert FollowingEdge.objects.get(follower="ada", followee="cat").circles == ["pals"]

    # Unfollowing removes them from every circle.
    services.follow_delete(follower="ada", followee="cat")
    assert selectors.circle_member_handles("ada", "pals") == []


def test_follow_into_unknown_circle_is_refused(make_user):
    ada, _ = make_user("ada"), make_user("bob")
    with pytest.raises(services.GraphError):
        services.follow_create(follower=ada, followee="bob", circles=["nope"])
    assert edges() == []


def test_circle_members_is_one_indexed_query(make_user, round_trips):
    ada = make_user("ada")
    services.circle_create(owner=ada, name="friends")
    for i in range(30):
        make_user(f"pal{i}")
        services.follow_create(follower=ada, followee=f"pal{i}", circles=["friends"] * (i % 2))
    with round_trips() as c:
        members = selectors.circle_member_handles("ada", "friends")
    assert len(members) == 15
    assert c.total == 1
    # The query has an index that starts with (_f, _g).
    keys = [list(v["key"]) for v in FollowingEdge._get_collection().index_information().values()]
    assert [("_f", 1), ("_g", 1), ("_t", 1)] in [[tuple(k) for k in key] for key in keys]


def test_block_removes_edges_both_ways_and_prevents_following(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    services.follow_create(follower=ada, followee="bob")
    services.follow_create(follower=bob, followee="ada")
    services.block_create(blocker=ada, blocked="bob")
    assert edges() == []
    assert counts("ada") == (0, 0) and counts("bob") == (0, 0)
    assert User.objects.get(handle="ada").blocked == ["bob"]
    with pytest.raises(services.GraphError):
        services.follow_create(follower=bob, followee="ada")
    with pytest.raises(services.GraphError):
        services.follow_create(follower=ada, followee="bob")
    services.block_delete(blocker=ada, blocked="bob")
    assert User.objects.get(handle="ada").blocked == []
    assert services.follow_create(follower=bob, followee="ada")


def test_followers_pages_are_keyset_paginated_by_50(make_user, round_trips):
    make_user("star")
    for i in range(120):
        fan = make_user(f"fan{i:03d}")
        services.follow_create(follower=fan, followee="star")
    seen, after, pages = [], None, 0
    while True:
        with round_trips() as c:
            page = selectors.followers_page("star", after)
        assert c.total == 2  # one covered edge read, one read of names
        seen += [u.handle for u in page.items]
        pages += 1
        if not page.next_cursor:
            break
        after = page.next_cursor
    assert pages == 3
    assert seen == [f"fan{i:03d}" for i in range(120)]
    assert [u.handle for u in selectors.following_page("fan007").items] == ["star"]


def test_search_by_handle_or_name_prefix(make_user):
    make_user("ada_l", name="Ada Lovelace")
    make_user("grace", name="Grace Hopper")
    make_user("adam", name="Adam Smith")
    make_user("zed", name="Zed Adams", status="suspended")
    handles = lambda q: [u.handle for u in selectors.search_people(q).items]  # noqa: E731
    assert handles("ad") == ["ada_l", "adam"]
    assert handles("LOVE") == ["ada_l"]
    assert handles("hop") == ["grace"]
    assert handles("grace hopper") == ["grace"]
    assert handles("grace  ho") == ["grace"]  # a prefix of the whole name
    assert handles("race") == [] and handles("hopper grace") == []  # prefixes only
    assert handles("ada lovelace x") == []
    assert handles(".*") == []
    assert handles("$where") == []


def test_search_paginates(make_user, settings):
    settings.SEARCH_PAGE_SIZE = 3
    for i in range(7):
        make_user(f"sam{i}", name=f"Sam {i}")
    page1 = selectors.search_people("sam")
    page2 = selectors.search_people("sam", page1.next_cursor)
    page3 = selectors.search_people("sam", page2.next_cursor)
    got = [u.handle for p in (page1, page2, page3) for u in p.items]
    assert got == [f"sam{i}" for i in range(7)]
    assert page3.next_cursor is None
