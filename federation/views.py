"""Discovery, actors, collections and the inboxes (docs/federation.md).

Every view here answers JSON and reads through the apps' selectors; what a
person's page shows to an anonymous visitor is the most any of them shows
(public posts of active, unsuspended people; never a circles-only post).
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from comments.stores import shadows
from federation import inbox, keys, render, uris
from feeds.selectors import posts as post_reads
from profiles.documents import User
from profiles.selectors import graph
from profiles.selectors import people as people_reads
from profiles.selectors import remote as remote_people
from socialsite.clock import now
from socialsite.ids import parse_handle, parse_object_id

AP_TYPE = "application/activity+json"
VERSION = "0.1.0"


def activity_json(data: dict, status: int = 200) -> JsonResponse:
    response = JsonResponse(data, status=status, content_type=AP_TYPE)
    response["Vary"] = "Accept"
    response["Access-Control-Allow-Origin"] = "*"
    return response


def federating(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """404 for every federation door while FEDERATION_ENABLED is false."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.FEDERATION_ENABLED:
            raise Http404("Federation is off here.")
        return view(request, *args, **kwargs)

    return wrapped


def _local_person(handle: object) -> User:
    parsed = parse_handle(handle)
    if parsed is None or "@" in parsed:
        raise Http404("No such person.")
    person = User.objects(handle=parsed, status="active").first()
    if person is None:
        raise Http404("No such person.")
    return person


@require_GET
@federating
def webfinger(request: HttpRequest) -> HttpResponse:
    resource = request.GET.get("resource", "")
    if resource.startswith("acct:"):
        name, _, domain = resource[5:].lstrip("@").rpartition("@")
        if domain.lower() != uris.domain():
            raise Http404("Not a person of this server.")
    else:
        local = uris.parse_local(resource)
        if local is None or local.kind != "actor":
            raise Http404("Not a person of this server.")
        name = local.handle
    person = _local_person(name)
    actor = uris.actor(person.handle)
    data = {
        "subject": f"acct:{person.handle}@{uris.domain()}",
        "aliases": [actor],
        "links": [
            {"rel": "self", "type": AP_TYPE, "href": actor},
            {"rel": "http://webfinger.net/rel/profile-page", "type": "text/html", "href": actor},
        ],
    }
    response = JsonResponse(data, content_type="application/jrd+json")
    response["Access-Control-Allow-Origin"] = "*"
    return response


@require_GET
@federating
def host_meta(request: HttpRequest) -> HttpResponse:
    template = uris.absolute(reverse("federation:webfinger")) + "?resource={uri}"
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n'
        f'  <Link rel="lrdd" type="application/jrd+json" template="{template}"/>\n'
        "</XRD>\n"
    )
    return HttpResponse(body, content_type="application/xrd+xml")


@require_GET
@federating
def nodeinfo_links(request: HttpRequest) -> HttpResponse:
    href = uris.absolute(reverse("federation:nodeinfo"))
    return JsonResponse(
        {"links": [{"rel": "http://nodeinfo.diaspora.software/ns/schema/2.0", "href": href}]}
    )


_usage: dict[str, Any] = {}


def _counts() -> dict:
    """People and posts, counted at most every ten minutes (a crawler's
    visits must not each scan the user collection)."""
    if not _usage or (now() - _usage["at"]).total_seconds() > 600:
        _usage.update(
            at=now(),
            users=remote_people.local_people_count(),
            posts=post_reads.posts_estimated(),
        )
    return _usage


@require_GET
@federating
def nodeinfo(request: HttpRequest) -> HttpResponse:
    counts = _counts()
    data = {
        "version": "2.0",
        "software": {"name": "socialsite", "version": VERSION},
        "protocols": ["activitypub"],
        "services": {"inbound": [], "outbound": ["atom1.0"]},
        "openRegistrations": True,
        "usage": {"users": {"total": counts["users"]}, "localPosts": counts["posts"]},
        "metadata": {"nodeName": uris.domain()},
    }
    return JsonResponse(
        data,
        content_type='application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"',
    )


@require_GET
@federating
def instance_actor(request: HttpRequest) -> HttpResponse:
    """The instance's own actor: the key that signs fetches no person asks for."""
    actor = uris.absolute(reverse("federation:instance_actor"))
    return activity_json(
        {
            "@context": uris.AP_CONTEXT,
            "id": actor,
            "type": "Application",
            "preferredUsername": uris.domain(),
            "inbox": uris.shared_inbox(),
            "outbox": actor,
            "publicKey": {
                "id": keys.instance_key_id(),
                "owner": actor,
                "publicKeyPem": keys.public_pem(keys.INSTANCE),
            },
        }
    )


def person(request: HttpRequest, handle: str) -> HttpResponse:
    return activity_json(render.person(_local_person(handle)))


def _collection(request: HttpRequest, handle: str, kind: str) -> HttpResponse:
    owner = _local_person(handle)
    base = uris.followers(owner.handle) if kind == "followers" else uris.following(owner.handle)
    total = owner.followers_count if kind == "followers" else owner.following_count
    if "page" not in request.GET:
        return activity_json(
            {
                "@context": uris.AP_CONTEXT[0],
                "id": base,
                "type": "OrderedCollection",
                "totalItems": total,
                "first": base + "?page=1",
            }
        )
    after = parse_handle(request.GET.get("after")) if request.GET.get("after") else None
    read = people_reads.followers_page if kind == "followers" else people_reads.following_page
    page = read(
        owner.handle, after, size=settings.FEDERATION_PAGE_SIZE, fields=("handle", "actor")
    )
    doc: dict = {
        "@context": uris.AP_CONTEXT[0],
        "id": request.build_absolute_uri(),
        "type": "OrderedCollectionPage",
        "partOf": base,
        "totalItems": total,
        "orderedItems": [
            render.actor_uri(p.handle, {p.handle: p}) for p in page.items if p.handle
        ],
    }
    if page.next_cursor:
        doc["next"] = f"{base}?page=1&after={page.next_cursor}"
    return activity_json(doc)


def followers(request: HttpRequest, handle: str) -> HttpResponse:
    return _collection(request, handle, "followers")


def following(request: HttpRequest, handle: str) -> HttpResponse:
    return _collection(request, handle, "following")


@require_GET
@federating
def outbox(request: HttpRequest, handle: str) -> HttpResponse:
    owner = _local_person(handle)
    base = uris.outbox(owner.handle)
    if "page" not in request.GET:
        return activity_json(
            {
                "@context": uris.AP_CONTEXT[0],
                "id": base,
                "type": "OrderedCollection",
                "totalItems": post_reads.public_posts_count(owner.handle),
                "first": base + "?page=1",
            }
        )
    before = None
    max_id = parse_object_id(request.GET.get("max_id"))
    if max_id is not None:
        last = post_reads.post_read(max_id, {"ts": 1, "by": 1})
        if last is None or last["by"]["id"] != owner.handle:
            raise Http404("No such page.")
        before = (last["ts"], max_id)
    size = settings.FEDERATION_PAGE_SIZE
    rows = post_reads.public_posts_by(owner.handle, before=before, limit=size)
    if owner.status != "active":
        rows = []
    doc: dict = {
        "@context": uris.AP_CONTEXT[0],
        "id": request.build_absolute_uri(),
        "type": "OrderedCollectionPage",
        "partOf": base,
        "orderedItems": [render.wrapped(render.note(p)) for p in rows],
    }
    if len(rows) == size:
        doc["next"] = f"{base}?page=1&max_id={rows[-1]['_id']}"
    return activity_json(doc)


def _public_local_post(post_id: object) -> dict:
    oid = parse_object_id(post_id)
    post = (
        post_reads.post_read(oid, {"delivery": 0, "comments": 0, "comment_tree": 0})
        if oid
        else None
    )
    if post is None or "@" in post["by"]["id"] or not render.is_public(post):
        raise Http404("No such post.")
    if post.get("author_suspended"):
        raise Http404("No such post.")
    return post


def note(request: HttpRequest, post_id: str) -> HttpResponse:
    post = _public_local_post(post_id)
    return activity_json({"@context": uris.AP_CONTEXT, **render.note(post)})


def comment_note(request: HttpRequest, post_id: str, slug: str) -> HttpResponse:
    post = _public_local_post(post_id)
    comment = shadows.primary().get(post["_id"], slug)
    if comment is None or comment.deleted or "@" in (comment.author.get("id") or "@"):
        raise Http404("No such comment.")
    if graph.suspended_among([comment.author["id"]]):
        raise Http404("No such comment.")  # hidden on the page too
    doc = render.reply_note(
        post, slug=comment.slug, text=comment.text, handle=comment.author["id"], ts=comment.posted
    )
    return activity_json({"@context": uris.AP_CONTEXT, **doc})


@csrf_exempt
@require_POST
@federating
def shared_inbox(request: HttpRequest) -> HttpResponse:
    return inbox.receive(request)


@csrf_exempt
@require_POST
@federating
def person_inbox(request: HttpRequest, handle: str) -> HttpResponse:
    _local_person(handle)
    return inbox.receive(request)
