"""The inboxes: an activity is taken only when its signature verifies
(docs/federation.md#signatures) and nothing is stored otherwise.

The order matters: the size and the JSON first (cheap), the domain rules
(a blocked server is refused before we fetch anything of it), the signer's
key (stored, or fetched once; fetched again once when the signature fails,
for a key that was rotated), the signature with its Date and Digest, and
only then the activity, whose actor must be the signer.
"""

import json
import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from federation import handlers, moderation, resolve, signatures
from profiles.documents import User

log = logging.getLogger(__name__)


# What a silenced server's people may not bring to someone who doesn't follow them.
SILENCED_DROP = {"Create", "Like", "Announce"}


def shape_error(activity: object) -> str | None:
    """Why a parsed body is not an activity we could act on, or None. Checked
    before anything is fetched: the W3C's known-bad Activity Streams
    documents and hostile probes stop here (tests/federation/as2_fail/)."""
    if not isinstance(activity, dict):
        return "An activity is a JSON object."
    if not isinstance(activity.get("type"), str):
        return "An activity has a type."
    actor = activity.get("actor")
    actor_id = actor.get("id") if isinstance(actor, dict) else actor
    if not isinstance(actor_id, str) or not actor_id.startswith(("https://", "http://")):
        return "An activity has an actor, named by its URL."
    if "id" in activity and not isinstance(activity["id"], str):
        return "An activity's id is a URL."
    if "object" in activity and not isinstance(activity["object"], str | dict | list):
        return "An activity's object is a URL, an object or a list."
    context = activity.get("@context")
    if context is not None and not isinstance(context, str | list | dict):
        return "@context is a URL, a list or an object."
    return None


def _refuse(status: int, reason: str) -> JsonResponse:
    return JsonResponse({"error": reason}, status=status)


def _verified(request: HttpRequest, key_id: str) -> User:
    """The signer, once their signature verifies; SignatureError if it never does."""
    body = request.body
    path = request.get_full_path()
    for refresh in (False, True):
        try:
            signer = resolve.actor_for_key(key_id, refresh=refresh)
        except resolve.ResolveError as exc:
            raise signatures.SignatureError(f"The key could not be read: {exc}") from exc
        try:
            signatures.verify_request(
                method=request.method or "POST",
                path=path,
                headers=request.headers,
                body=body,
                public_key_pem=(signer.actor or {}).get("public_key") or "",
            )
            return signer
        except signatures.SignatureError:
            if refresh:
                raise
    raise AssertionError("unreachable")


def receive(request: HttpRequest) -> JsonResponse:
    """Take one activity (either inbox: the shared one and each person's
    are the same door, as the addressing inside says who it is for)."""
    if int(request.META.get("CONTENT_LENGTH") or 0) > settings.FEDERATION_INBOX_MAX_BYTES:
        return _refuse(413, "The activity is too large.")
    try:
        activity = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return _refuse(400, "The body is not JSON.")
    problem = shape_error(activity)
    if problem is not None:
        return _refuse(400, problem)
    try:
        key_id = signatures.signature_key_id(request.headers)
    except signatures.SignatureError as exc:
        return _refuse(401, str(exc))
    domain = urlsplit(key_id).netloc.lower()
    if not domain or moderation.is_blocked(domain):
        return _refuse(403, "This server does not take activities from yours.")
    try:
        signer = _verified(request, key_id)
    except signatures.SignatureError as exc:
        log.info("inbox refused a signature", extra={"key_id": key_id, "error": str(exc)})
        return _refuse(401, str(exc))
    actor = activity.get("actor")
    actor_id = actor.get("id") if isinstance(actor, dict) else actor
    if actor_id != (signer.actor or {}).get("id"):
        return _refuse(401, "The activity's actor is not its signer.")
    if signer.status != "active":
        return _refuse(403, "This account can't act here.")
    handler = handlers.HANDLERS.get(activity["type"])
    if handler is None:
        return JsonResponse({}, status=202)  # a kind we don't act on: taken, ignored
    if (
        activity["type"] in SILENCED_DROP
        and not signer.followers_count
        and moderation.rule_of(signer.domain or "") == "silence"
    ):
        # A silenced server's people reach only those who follow them: a
        # stranger's post, reply, like or repost is taken and dropped.
        return JsonResponse({}, status=202)
    try:
        handler(activity, signer)
    except handlers.Refused as exc:
        return _refuse(422, str(exc))
    return JsonResponse({}, status=202)
