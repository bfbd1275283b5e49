"""A discussion written through the comment services, and how it reads under
each store (shared by the shadow-store and convert tests)."""

from comments import services as comments
from comments.stores import get_store
from feeds.documents import PUBLIC
from feeds.services import posts as feeds
from moderation.services import content as moderation
from moderation.targets import Target
from profiles.documents import User
from tests.comments.helpers import read_all

STORES = ("documents", "embedded", "buckets")
THREADED = ("documents", "embedded")


def as_read(store_name: str, post_id, order: str) -> list[tuple]:
    """What a page shows of each comment, in order, under one store."""
    return [
        (c.id, c.slug, c.full_slug, c.author["id"], c.display_text, c.deleted_by, c.edited is None)
        for c in read_all(get_store(store_name), post_id, order, limit=3)
    ]


def assert_same_under_every_store(post_id) -> None:
    oldest = as_read("documents", post_id, "oldest")
    assert oldest, "an empty thread proves nothing"
    for name in STORES:
        assert as_read(name, post_id, "oldest") == oldest, name
        assert as_read(name, post_id, "newest") == oldest[::-1], name
        assert get_store(name).count(post_id) == len(oldest), name
    threaded = as_read("documents", post_id, "threaded")
    assert as_read("embedded", post_id, "threaded") == threaded


def busy_discussion(make_user) -> tuple:
    """A post with replies, an edit, deletions by the author and by the
    post's author, and a moderator's removal and restore. Returns (post id,
    users by handle)."""
    star, fan, other = make_user("star"), make_user("fan"), make_user("other")
    mod = make_user("mod", role="moderator")
    post = feeds.post_create(author=star, type="status", detail={"text": "x"}, circles=[PUBLIC])
    doc = {"_id": post.id, "by": {"id": "star"}, "removed": None}
    top = comments.comment_create(post=doc, author=fan, text="first")
    reply = comments.comment_create(post=doc, author=other, text="reply", parent_slug=top.slug)
    deeper = comments.comment_create(post=doc, author=fan, text="deeper", parent_slug=reply.slug)
    second = comments.comment_create(post=doc, author=other, text="second")
    late = comments.comment_create(post=doc, author=fan, text="late reply", parent_slug=top.slug)
    comments.comment_create(post=doc, author=star, text="own")
    comments.comment_edit(post_id=post.id, slug=top.slug, actor=fan, text="first, edited")
    comments.comment_delete(post_id=post.id, slug=deeper.slug, actor=fan)
    comments.comment_delete(post_id=post.id, slug=second.slug, actor=star)
    target = Target("comment", f"{post.id}/{late.slug}")
    moderation.comment_remove(moderator=mod, target=target, reason="rude")
    moderation.comment_remove(moderator=mod, target=Target("comment", f"{post.id}/{reply.slug}"))
    moderation.comment_restore(moderator=mod, target=target)
    users = {u.handle: u for u in User.objects(handle__in=["star", "fan", "other", "mod"])}
    return post.id, users
