"""How many posts the viewer's news feed would show above a cursor: the count
behind "n new posts" (`GET /feed/new/?since=`, docs/features.md#interactions).

It counts what `selectors.news_page` would list newer than the cursor, by the
feed's rules: the viewer's own posts and reposts (the feed shows them),
public posts and circle posts the viewer may see now (docs/privacy.md: decided
when read), each post once however many of its reposts arrived, never a post
or repost by someone the viewer blocked or muted, nor a repost of their
post, never a deleted or removed post (their entries leave every timeline as
they go: `upkeep.remove_everywhere`, `reposts_withdraw`, and the live-post
read of reposted originals below).

Timeline entries carry what the rules need for posts (author, audience,
time), so no post is read for them. Round trips, besides the session and the
signed-in user every page costs:

- `cache`: 1. One aggregate on the reader's news document keeps the entries
  newer than the cursor and not by a hidden author, each cut to its author,
  audience and original, at most COUNT_CAP + 1 of them.
- `month`, `size`: 1. The same filter over the parts (months from the
  cursor's on) or buckets (`max_ts` from the cursor's on) that can hold such
  entries, merged and de-duplicated on the server into at most COUNT_CAP + 1.
- `read`: 3, the graph read of `news_query`, the posts above the cursor (its
  query applies the circles and hidden authors) and the reposts above it by
  the people followed. The stored models fall back to it where the feed
  does: no cache document yet, a cache that no longer reaches back to the
  cursor, a feed being rebuilt.
- The posts of pulled authors the viewer follows above the cursor, which
  no timeline holds (docs/performance.md#celebrities-are-pulled), and of the
  tags they follow: under `cache` in the same aggregate, under `month` and
  `size` one more, only when there are pulled authors or followed tags at
  all. The read model's query has them already.
- With followed tags, one more under every model: who blocked the viewer,
  on the `user.blocked` index, whom the tags' read leaves out in its query
  (docs/discovery.md#following-a-tag).
- One more, only when the new entries hold reposts of posts that are not
  among them: their originals, live and by whom (one `$in` read, as the page
  reads them). And with a stored model one more, only when they hold circle
  posts by others: whether the viewer is still in those circles is the live
  graph's answer (`Sight`, the same query the feed page makes for them).

The reader's keyword filters of the home context (docs/privacy.md#keyword-filters)
leave out what they hide, as the page does. Their texts come with the reads
above, at no round trip more: under `cache` a `$lookup` of the new entries'
posts in the same aggregate, under `month` and `size` one in theirs; the
read model's posts, the pulled posts and the reposted originals are read
with a wider projection. Only a reader with such filters pays for it.

The count stops at COUNT_CAP, so the work is bounded however old the cursor.
"""

from dataclasses import dataclass, field

from bson import ObjectId

from feeds.documents import LIVE, Post
from feeds.selectors import streams
from feeds.selectors.filtering import TEXT_FIELDS
from feeds.selectors.filtering import hidden as filtered_out
from feeds.selectors.streams import EXPLODE_LIMIT, hidden_with_blockers, news_blockers, news_query
from feeds.selectors.visibility import Sight, news_hidden
from profiles import selectors as people
from profiles.documents import User
from profiles.filters import Filters, filters_for
from socialsite.cursors import EPOCH, Cursor, sort_key
from timelines.documents import CacheTimeline, MonthTimeline, SizeTimeline
from timelines.selectors import beside
from timelines.selectors import pulled as pulls
from timelines.stores import get_store
from timelines.stores.base import month_of
from timelines.stores.cache import CacheStore

# "100+ new posts": past this nobody reads the number, and the reader's next
# step is the top of the feed anyway.
COUNT_CAP = 100


@dataclass(frozen=True)
class NewPosts:
    count: int  # at most COUNT_CAP
    more: bool  # there may be more than `count` (the count stopped)


@dataclass
class _Candidates:
    """Entries above the cursor: `posts` as {id, by, circles, to}, `reposts`
    as {of, by}. `decided`: the posts' visibility is the query's already (the
    read model). `full`: a list stopped at COUNT_CAP + 1."""

    posts: list[dict] = field(default_factory=list)
    reposts: list[dict] = field(default_factory=list)
    decided: bool = False
    full: bool = False
    # The pulled authors' posts above the cursor (timelines/selectors/pulled.py),
    # when read with the entries; None: not read yet.
    pulled: list[dict] | None = None
    # Post id -> the post's texts (`detail`), read for the keyword filters.
    texts: dict = field(default_factory=dict)


# What the count reads of a pulled author's post.
PULL_FIELDS = {"_id": 1, "ts": 1, "by.id": 1, "circles": 1, "to": 1}


def _pull_fields(texts: bool) -> dict:
    return {**PULL_FIELDS, **TEXT_FIELDS} if texts else PULL_FIELDS


def _texts_lookup(ids: str, into: str) -> dict:
    """The texts of the posts whose ids are the array at `ids`, by `_id`."""
    return {
        "$lookup": {
            "from": Post._get_collection_name(),
            "localField": ids,
            "foreignField": "_id",
            "pipeline": [{"$project": {"by.id": 1, **TEXT_FIELDS}}],
            "as": into,
        }
    }


def _pull_window(
    since: Cursor,
    hidden: list[str],
    tags: tuple[str, ...] = (),
    blockers: frozenset[str] = frozenset(),
) -> pulls.Window:
    return pulls.Window(
        COUNT_CAP + 1, after=since, hidden=frozenset(hidden), tags=tags, blockers=blockers
    )


def _with_pulled(found: _Candidates) -> _Candidates:
    """The stored candidates with the pulled posts among them, each post once
    (one pushed before its author was pulled is in both), newest first."""
    held = {row["id"] for row in found.posts}
    texts = {**found.texts, **{p["_id"]: p for p in found.pulled or () if "detail" in p}}
    rows = [
        {
            "id": p["_id"],
            "ts": p["ts"],
            "by": p["by"]["id"],
            "circles": p["circles"],
            "to": p.get("to"),
        }
        for p in found.pulled or ()
        if p["_id"] not in held
    ]
    if not rows:
        found.texts = texts
        return found
    posts = sorted(found.posts + rows, key=sort_key, reverse=True)
    full = found.full or len(posts) > COUNT_CAP or len(found.pulled or ()) > COUNT_CAP
    return _Candidates(posts[: COUNT_CAP + 1], found.reposts, full=full, texts=texts)


def new_posts(viewer: User, since: Cursor) -> NewPosts:
    """New posts in `viewer`'s news feed above `since` (see the module doc)."""
    hidden = sorted(news_hidden(viewer))
    tags = tuple(viewer.followed_tags)
    # Who blocked the viewer, read once for every model's followed-tags read,
    # as the page reads them (timelines/selectors/pages.py).
    blockers = news_blockers(viewer.handle, tags)
    window = _pull_window(since, hidden, tags, blockers)
    home = filters_for(viewer, "home")
    texts = bool(home)  # read the posts' texts, for the filters to judge
    store = get_store()
    found = None
    if store.stores_entries and viewer.feed_rebuild is None:
        found = _stored(store.name, viewer.handle, since, hidden, window, texts)
        if found is not None and not found.full and found.pulled is None:
            found.pulled = beside.read(viewer.handle, window, _pull_fields(texts))
        if found is not None:
            found = _with_pulled(found)
    if found is None:
        found = _read(viewer.handle, since, hidden, tags, texts, blockers)
    shown = _shown(viewer, found, set(hidden), home)
    return NewPosts(min(shown, COUNT_CAP), found.full or shown > COUNT_CAP)


def _shown(viewer: User, found: _Candidates, hidden: set[str], home: Filters) -> int:
    """How many distinct posts of the candidates the feed would show: not
    by a hidden author, nor hidden by a keyword filter (`home`)."""

    def filtered(post_id: ObjectId) -> bool:
        post = found.texts.get(post_id)
        return bool(home) and post is not None and filtered_out(home, post)

    posts = [
        {
            "_id": row["id"],
            "by": {"id": row["by"]},
            "circles": row.get("circles") or [],
            "to": row.get("to"),
        }
        for row in found.posts
        if row["by"] not in hidden and not filtered(row["id"])
    ]
    if not found.decided:
        # `to` is known only for an embedded entry: a link entry is judged as
        # delivered, as `upkeep.resync` judges it.
        posts = Sight(viewer, news=True).visible(posts)
    shown = {post["_id"] for post in posts}
    originals = {row["of"] for row in found.reposts if row["by"] not in hidden} - shown
    originals -= {post_id for post_id in originals if filtered(post_id)}
    if originals:
        fields = {"_id": 1, "by.id": 1, **(TEXT_FIELDS if home else {})}
        rows = streams.live_among(sorted(originals), fields)
        shown |= {
            row["_id"]
            for row in rows
            if row["by"]["id"] not in hidden and not (home and filtered_out(home, row))
        }
    return len(shown)


def _newer_expr(since: Cursor) -> dict:
    """`(ts, id) > since` on `$$e`, an entry inside `$filter`."""
    return {
        "$or": [
            {"$gt": ["$$e.ts", since.ts]},
            {"$and": [{"$eq": ["$$e.ts", since.ts]}, {"$gt": ["$$e.id", since.id]}]},
        ]
    }


def _new_entries(since: Cursor, hidden: list[str]) -> dict:
    """The document's entries newer than `since` and not by a hidden author,
    each cut to what the rules read (an embedded copy's `to` included), at
    most COUNT_CAP + 1: a small answer whatever the entries embed."""
    keep = _newer_expr(since)
    if hidden:
        # `$eq false` rather than `$not`: mongomock reads `{$not: [x]}` as
        # "not a non-empty array", always false.
        keep = {"$and": [keep, {"$eq": [{"$in": ["$$e.by", hidden]}, False]}]}
    kept = {"$filter": {"input": "$entries", "as": "e", "cond": keep}}
    cut = {
        "$map": {
            "input": kept,
            "as": "e",
            "in": {
                "id": "$$e.id",
                "ts": "$$e.ts",
                "by": "$$e.by",
                "circles": "$$e.circles",
                "to": "$$e.post.to",
                "of": "$$e.of",
            },
        }
    }
    return {"$slice": [cut, COUNT_CAP + 1]}


def _split(rows: list[dict], full: bool) -> _Candidates:
    posts = [row for row in rows if row.get("of") is None]
    reposts = [row for row in rows if row.get("of") is not None]
    return _Candidates(posts, reposts, full=full)


def _stored(
    model: str, owner: str, since: Cursor, hidden: list[str], window: pulls.Window, texts: bool
) -> _Candidates | None:
    """The entries above the cursor, or None where the read model must answer;
    with `texts`, their posts' texts too."""
    if model == "cache":
        return _cached(owner, since, hidden, window, texts)
    if model == "month":
        collection = MonthTimeline._get_collection()
        match = {"owner": owner, "kind": "news", "month": {"$gte": month_of(since.ts)}}
    else:
        collection = SizeTimeline._get_collection()
        match = {"owner": owner, "kind": "news", "max_ts": {"$gte": since.ts}}
    rows = collection.aggregate(
        [
            {"$match": match},
            {"$project": {"_id": 0, "new": _new_entries(since, hidden)}},
            {"$unwind": "$new"},
            # An entry is one row however many parts hold it (a month's
            # re-delivery after a rollover can leave a second copy).
            {"$group": {"_id": "$new.id", "entry": {"$first": "$new"}}},
            {"$limit": COUNT_CAP + 1},
            *([_texts_lookup("_id", "texts")] if texts else []),
        ]
    )
    rows = list(rows)
    entries = [row["entry"] for row in rows]
    found = _split(entries, full=len(entries) > COUNT_CAP)
    found.texts = {post["_id"]: post for row in rows for post in row.get("texts") or ()}
    return found


def _cached(
    owner: str, since: Cursor, hidden: list[str], window: pulls.Window, texts: bool
) -> _Candidates | None:
    # The pulled authors' (and followed tags') posts above the cursor come in the same aggregate.
    pulled_stages = beside.stages(owner, window, "pulled", _pull_fields(texts))
    # The new entries' posts' texts too, for the keyword filters. (`$addFields`
    # first: the embedded database's `$lookup` reads no path through an array.)
    text_stages = (
        [{"$addFields": {"_text_ids": "$new.id"}}, _texts_lookup("_text_ids", "_texts")]
        if texts
        else []
    )
    rows = list(
        CacheTimeline._get_collection().aggregate(
            [
                {"$match": {"owner": owner, "kind": "news"}},
                {"$limit": 1},
                {
                    "$project": {
                        "_id": 0,
                        "new": _new_entries(since, hidden),
                        "stored": {"$size": "$entries"},
                        # The array is newest first: its last entry is the oldest.
                        "oldest": {"$arrayElemAt": ["$entries", -1]},
                    }
                },
                *pulled_stages,
                *text_stages,
            ]
        )
    )
    if not rows:
        return None  # no cache yet: the feed is served by the read model
    row = rows[0]
    new = row["new"]
    capped = row["stored"] >= CacheStore().cap
    if capped and len(new) <= COUNT_CAP and sort_key(row["oldest"]) > (since.ts, since.id):
        # Capped and all newer than the cursor: what came between the
        # cursor and the cache's oldest entry lives only in `post`.
        return None
    found = _split(new, full=len(new) > COUNT_CAP)
    found.pulled = beside.posts_of(row, "pulled", window.limit) if pulled_stages else []
    found.texts = {post["_id"]: post for post in row.get("_texts") or ()}
    return found


def _newer(since: Cursor) -> list[dict]:
    """`(ts, _id) > since` as query conditions. The plain `$gte` bounds every
    index scan (each clause of the feed's `$or`); the `$or` only breaks ties
    within the cursor's millisecond."""
    return [
        {"ts": {"$gte": since.ts}},
        {"$or": [{"ts": {"$gt": since.ts}}, {"_id": {"$gt": since.id}}]},
    ]


def _read(
    owner: str,
    since: Cursor,
    hidden: list[str],
    tags: tuple[str, ...],
    texts: bool,
    blockers: frozenset[str],
) -> _Candidates:
    """The read model's candidates: its feed query's posts above the cursor
    (with their texts, if asked), and the reposts above it by the reader and
    the people they follow (not by, nor of, anyone hidden), each list at
    most COUNT_CAP + 1."""
    graph = people.news_graph(owner)
    left_out = hidden_with_blockers(owner, hidden, tags, blockers)
    query = {"$and": [news_query(owner, left_out, graph, tags), LIVE, *_newer(since)]}
    limit = COUNT_CAP + 1
    fields = {"_id": 1, "by.id": 1, **(TEXT_FIELDS if texts else {})}
    posts = streams.posts_newest(query, fields, limit)
    reposters = sorted(({owner} | set(graph[0])) - set(hidden))
    clauses = [
        {"by": {"$in": reposters[i : i + EXPLODE_LIMIT]}}
        for i in range(0, len(reposters), EXPLODE_LIMIT)
    ]
    conditions = [clauses[0] if len(clauses) == 1 else {"$or": clauses}, *_newer(since)]
    if hidden:
        conditions.append({"author": {"$nin": hidden}})
    reposts = streams.reposts_newest(conditions, limit)
    return _Candidates(
        posts=[{"id": p["_id"], "by": p["by"]["id"]} for p in posts],
        reposts=[{"of": r["post"], "by": r["by"]} for r in reposts],
        decided=True,
        full=len(posts) > COUNT_CAP or len(reposts) > COUNT_CAP,
        texts={p["_id"]: p for p in posts} if texts else {},
    )


# The cursor above which an empty feed counts: every post is newer.
EMPTY_FEED = Cursor(EPOCH, ObjectId("0" * 24))


def since_of(posts: list[dict]) -> str:
    """The feed page's `data-since`: the cursor of its first post, in
    `?before=`'s format: its timeline entry's place (`_at`, a repost's own
    time and id) where the page knows it, else the post's."""
    if not posts:
        return EMPTY_FEED.encode()
    first = posts[0]
    return Cursor(*first.get("_at") or (first["ts"], first["_id"])).encode()
