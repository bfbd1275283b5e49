"""What the hostile-input test knows about each route: its path parameters,
the query parameters and form fields its view reads, and which valid values
each takes.

The names come from reading the views (`request.GET` / `request.POST`, the
forms they bind) and docs/features.md#routes. Keys are the resolver's own pattern
strings, so `test_every_route_is_known` fails when a route is added, renamed
or removed until this table follows.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.urls import URLPattern, URLResolver, get_resolver

from moderation.documents import REASONS, STATUSES, TARGET_TYPES
from moderation.services import BULK_ACTIONS
from profiles.documents import ROLES
from tests.conftest import PASSWORD

# Valid values by kind. Kinds not listed here are filled from the world
# (`World.values`): handle, post_id, slug, the cursors, target, circle.
STATIC_VALUES: dict[str, list[str]] = {
    "text": ["hello there", "a\nb"],
    "short": ["Alice", "al", "x"],
    "circle_name": ["pals", "Work mates"],
    "next": ["/feed/", "/u/alice/", "/posts/"],
    "order": ["oldest", "threaded", "newest", "best", "top", "new", "old"],
    "vote_dir": ["up", "down", "none"],
    "mod_status": list(STATUSES),
    "mod_type": list(TARGET_TYPES),
    "mod_reason": list(REASONS),
    "skip": ["0", "50", "100"],
    "post_type": ["status", "link", "photo", "checkin", "poll"],
    "url": ["https://example.org/a", "example.org"],
    "number": ["0", "1", "48.5", "-2.25"],
    "options": ["yes\nno", "a\nb\nc"],
    "duration": ["300", "86400", "604800"],  # a poll's `expires_in`, seconds
    "once_key": ["Zq8vLx2pRtYw3k9m", "short", "x" * 200],  # the composer's one-time key
    "password": [PASSWORD, "alice", "Alice Liddell", "zq8!vLx#2pRt"],
    "website": ["https://example.org/me", "http://example.org"],
    "circle_action": ["create", "rename", "delete", "add", "remove"],
    "mod_action": ["remove", "restore", "dismiss"],
    "bulk_action": list(BULK_ACTIONS),
    "log_action": ["report.dismiss", "post.remove"],
    "role": list(ROLES),
    "date": ["2999-01-01", "2000-01-01", "2030-02-30"],
    "photo": ["<file>"],
    # Ads (ads/views/public.py): served zones, and offer ids of the right
    # shape that no offer has (a served offer expires with the world).
    "ad_site": ["socialsite", "partner", "nosuch"],
    "ad_zone": ["feed", "search", "profile"],
    "ad_count": ["1", "3", "10"],
    "ad_keyword": ["car", "car,style", "travel food"],
    "offer_id": ["AAAAAAAAAAAAAAAAAAAAAA", "x" * 22],
    # Ad management (ads/views/manage.py): the world's campaign (tests/hostile/
    # world.py) and one of the right shape that does not exist.
    "campaign_id": ["acme:summer-sale", "acme:nope"],
    "ad_unit": ["unit1", "nounit"],
    "campaign_cursor": ["1700000000000_acme:summer-sale", "1_a:b"],
    "ad_format": ["csv", "html"],
    "slug_name": ["acme", "partner-2"],
    # The developer's lens (devlens/): its models, and pages to compare.
    "timeline_model": ["cache", "month", "size", "read"],
    "comment_store": ["documents", "embedded", "buckets"],
    "checkbox": ["on", ""],
    "site_path": ["/feed/", "/u/alice/", "/incoming/", "//evil.example/", "/dev/"],
    # Accounts: two-factor codes (right and wrong shapes), addresses (the
    # world has the tokens and sessions).
    "totp_code": ["123456", "000000", "abcde-fghjk", "١٢٣٤٥٦", "12 34 56"],
    "email": ["alice@example.org", "ALICE@Example.org ", "not an address"],
    # Keyword filters (docs/privacy.md#keyword-filters); the world has alice's
    # filter ids.
    "filter_context": ["home", "notifications", "public", "thread"],
    "filter_action": ["hide", "warn"],
    "filter_expires": ["never", "1h", "1d", "7d", "30d"],
    # Who may start a conversation with me (docs/messages.md).
    "messages_from": ["everyone", "following", "nobody"],
    # Mastodon's stream names (api/streaming/streams.py).
    "stream_name": ["user", "public:media", "hashtag", "list", "direct", "nonsense"],
    # Federation (docs/federation.md): servers' domains, with a port or not.
    "domain_name": ["remote.example", "127.0.0.1:8001", "bad..example", "testserver"],
    "domain_level": ["block", "silence", "ban"],
    # Federation (docs/federation.md): WebFinger resources, ours and not.
    "resource": [
        "acct:alice@testserver",
        "acct:alice@elsewhere.example",
        "http://testserver/u/alice/",
        "alice",
    ],
}


@dataclass(frozen=True)
class Route:
    """`path`: converter name -> kind; `query` and `form`: name -> kind."""

    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] = field(default_factory=dict)
    staff: bool = False  # a /mod/ page: probed mostly as a moderator or admin
    # For the sweep: the values a field needs beside it to be read at all
    # (a link's `url` only with type=link), the field that must repeat its
    # value (the password confirmation), and who sends it when not the
    # default (alice, or admin on /mod/).
    together: dict[str, dict[str, str]] = field(default_factory=dict)
    mirrors: dict[str, str] = field(default_factory=dict)
    sweep_role: str = ""
    method: str = ""  # the route's own method, when not POST-if-it-has-a-form


NEXT = {"next": "next"}
TIMELINE = {"before": "timeline_cursor"}
POST = {"post_id": "post_id"}
HANDLE = {"handle": "handle"}
COMMENT = {"post_id": "thread_post_id", "slug": "slug"}
THREAD = {"order": "order", "after": "comment_cursor", "before": "comment_cursor"}
CAMPAIGN_PATH = {"campaign_id": "campaign_id"}
CONVERSATION = {"conversation_id": "conversation_id"}
# Mastodon's paging of a list of accounts (api/paging.py).
API_PAGE = {"max_id": "handle", "min_id": "handle", "since_id": "handle", "limit": "number"}
STATUS = {"status_id": "post_id"}
STATUS_PAGE = {"max_id": "post_id", "min_id": "post_id", "since_id": "post_id", "limit": "number"}
MARKS_PAGE = {"max_id": "timeline_cursor", "min_id": "timeline_cursor", "limit": "number"}
LIST = {"list_id": "post_id"}
# Mastodon's streams take the token in the query too (api/streaming/views.py).
STREAM_TOKEN = {"access_token": "short"}
CAMPAIGN = {
    "name": "short",
    "ecpm": "number",
    "keywords": "ad_keyword",
    "cap_count": "number",
    "cap_hours": "number",
    "budget": "number",
    "ends": "date",
}

ROUTES: dict[str, Route] = {
    "": Route(),
    "healthz": Route(),
    "accounts/signup/": Route(
        query=NEXT,
        form={
            "username": "handle",
            "name": "short",
            "password1": "password",
            "password2": "password",
        },
        mirrors={"password1": "password2"},
        sweep_role="anon",
    ),
    "accounts/login/": Route(
        query=NEXT, form={"username": "handle", "password": "password", **NEXT}, sweep_role="anon"
    ),
    "accounts/logout/": Route(query=NEXT, form=NEXT),
    "settings/": Route(),
    "settings/profile/": Route(
        form={
            "name": "short",
            "bio": "text",
            "location": "short",
            "interests": "short",
            "website": "website",
            "messages_from": "messages_from",
        }
    ),
    "settings/password/": Route(
        form={
            "old_password": "password",
            "new_password1": "password",
            "new_password2": "password",
        },
        mirrors={"new_password1": "new_password2"},
    ),
    # Accounts (docs/accounts.md): the address, its check, the reset; tokens
    # of the right shape that were never signed, and the sessions' ids.
    "settings/email/": Route(form={"email": "email", "password": "password", "code": "totp_code"}),
    "accounts/email/undo/<str:token>/": Route(
        path={"token": "undo_token"}, sweep_role="anon", method="POST"
    ),
    "accounts/verify/<str:token>/": Route(path={"token": "verify_token"}, sweep_role="anon"),
    "accounts/password/reset/": Route(form={"email": "email"}, sweep_role="anon"),
    "accounts/password/reset/sent/": Route(),
    "accounts/password/reset/<str:token>/": Route(
        path={"token": "reset_token"},
        form={"new_password1": "password", "new_password2": "password"},
        mirrors={"new_password1": "new_password2"},
        sweep_role="anon",
    ),
    "settings/2fa/": Route(form={"code": "totp_code", "password": "password"}),
    "accounts/login/2fa/": Route(form={"code": "totp_code"}, sweep_role="anon"),
    "settings/sessions/": Route(),
    # Export and erasure: the export's id (alice has one ready), the delete
    # form's password and code (a right password erases alice: the world is
    # restored after each route).
    "settings/export/": Route(method="POST"),
    "settings/export/<str:export_id>/download/": Route(path={"export_id": "export_id"}),
    "settings/delete/": Route(form={"password": "password", "code": "totp_code"}),
    "settings/filters/": Route(
        form={
            "phrase": "short",
            "context": "filter_context",
            "action": "filter_action",
            "expires": "filter_expires",
        }
    ),
    "settings/filters/<str:filter_id>/delete/": Route(
        path={"filter_id": "filter_id"}, method="POST"
    ),
    "settings/sessions/<str:session_id>/end/": Route(
        path={"session_id": "session_id"}, method="POST"
    ),
    "circles/": Route(
        form={
            "action": "circle_action",
            "name": "circle_name",
            "circle": "circle",
            "new": "circle_name",
            "member": "handle",
        },
        together={
            "name": {"action": "create"},
            "new": {"action": "rename", "circle": "friends"},
            "member": {"action": "add", "circle": "friends"},
            "circle": {"action": "delete"},
        },
    ),
    "search/": Route(query={"q": "short", "after": "handle", "before": "timeline_cursor"}),
    "tags/<str:tag>/": Route(path={"tag": "tag"}, query=TIMELINE),
    "explore/": Route(),
    "mod/tags/<str:tag>/hide/": Route(
        path={"tag": "tag"}, form={"reason": "short"}, query=NEXT, staff=True
    ),
    "mod/tags/<str:tag>/show/": Route(
        path={"tag": "tag"}, form={"reason": "short"}, query=NEXT, staff=True
    ),
    "tags/<str:tag>/follow/": Route(path={"tag": "tag"}, query=NEXT, method="POST"),
    "tags/<str:tag>/unfollow/": Route(path={"tag": "tag"}, query=NEXT, method="POST"),
    "u/<str:handle>/": Route(path=HANDLE, query=TIMELINE),
    "u/<str:handle>/followers/": Route(path=HANDLE, query={"after": "handle"}),
    "u/<str:handle>/following/": Route(path=HANDLE, query={"after": "handle"}),
    "u/<str:handle>/follow/": Route(path=HANDLE, query=NEXT, form={"circles": "circle", **NEXT}),
    "u/<str:handle>/unfollow/": Route(path=HANDLE, query=NEXT, form=NEXT),
    "u/<str:handle>/block/": Route(path=HANDLE, query=NEXT, form=NEXT),
    "u/<str:handle>/unblock/": Route(path=HANDLE, query=NEXT, form=NEXT),
    "u/<str:handle>/mute/": Route(path=HANDLE, query=NEXT, form=NEXT),
    "u/<str:handle>/unmute/": Route(path=HANDLE, query=NEXT, form=NEXT),
    "u/<str:handle>/feed.atom": Route(path=HANDLE, method="GET"),
    "u/<str:handle>/circles/": Route(path=HANDLE, query=NEXT, form={"circles": "circle", **NEXT}),
    "feed/": Route(query=TIMELINE),
    "feed/new/": Route(query={"since": "timeline_cursor"}),
    "incoming/": Route(query=TIMELINE),
    "bookmarks/": Route(query=TIMELINE),
    "posts/<str:post_id>/history/": Route(path=POST),
    "posts/<str:post_id>/bookmark/": Route(path=POST, form=NEXT),
    "posts/<str:post_id>/unbookmark/": Route(path=POST, form=NEXT),
    # Pins (docs/discovery.md#pins): any post id to pin (alice's status first);
    # to unpin, the post alice has pinned in the world first.
    "posts/<str:post_id>/pin/": Route(path=POST, form=NEXT),
    "posts/<str:post_id>/unpin/": Route(path={"post_id": "pinned_post_id"}, form=NEXT),
    "notifications/": Route(query=TIMELINE),
    # Direct messages (docs/messages.md): the inbox pages on (ts, _id) like a
    # timeline; its GET reads `to` to fill the form ("Message" on a profile),
    # its POST reads `to` repeated or as one "bob, cyd" field. A conversation
    # pages on (bucket, index) cursors both ways; the world has alice's with
    # bob, bob's group with cyd, and one alice is not in.
    "messages/": Route(
        query={"before": "inbox_cursor", "to": "handle"},
        form={"to": "handle", "text": "text"},
    ),
    "messages/<str:conversation_id>/": Route(
        path=CONVERSATION,
        query={"before": "message_cursor", "after": "message_cursor"},
        form={"text": "text"},
    ),
    "messages/<str:conversation_id>/leave/": Route(path=CONVERSATION, method="POST"),
    # The messages after a cursor, for an open conversation's page (live updates).
    "messages/<str:conversation_id>/newer/": Route(
        path=CONVERSATION, query={"after": "message_cursor"}
    ),
    # Live updates (docs/live.md#in-the-browser): a stream under the test
    # client (WSGI) answers `retry:` and ends; `last` is an event id.
    "live/stream": Route(query={"post": "post_id", "feed": "checkbox", "last": "post_id"}),
    "live/counts": Route(),
    "posts/": Route(
        query=NEXT,
        form={
            "type": "post_type",
            "text": "text",
            "url": "url",
            "title": "short",
            "circles": "circle",
            "audience": "short",
            "to": "handle",
            "photo": "photo",
            "place": "short",
            "lat": "number",
            "lng": "number",
            "options": "options",
            "expires_in": "duration",
            "once": "once_key",
            **NEXT,
        },
        together={
            "url": {"type": "link"},
            "title": {"type": "link"},
            "place": {"type": "checkin"},
            "lat": {"type": "checkin"},
            "lng": {"type": "checkin"},
            "options": {"type": "poll"},
            "expires_in": {"type": "poll"},
            "photo": {"type": "photo"},
        },
    ),
    "posts/<str:post_id>/": Route(path=POST, query=THREAD),
    "posts/<str:post_id>/edit/": Route(
        path={"post_id": "own_post_id"}, form={"text": "text", "title": "short"}
    ),
    "posts/<str:post_id>/delete/": Route(path=POST, query=NEXT, form=NEXT),
    # On a rate limit the vote re-renders the post page, thread parameters included.
    "posts/<str:post_id>/vote/": Route(
        path={"post_id": "poll_post_id"},
        query={**THREAD, **NEXT},
        form={"option": "number", **NEXT},
    ),
    # Like a vote: a rate-limited like re-renders the post page.
    "posts/<str:post_id>/like/": Route(path=POST, query={**THREAD, **NEXT}, form=NEXT),
    "posts/<str:post_id>/unlike/": Route(path=POST, query={**THREAD, **NEXT}, form=NEXT),
    # As likes: a rate-limited repost re-renders the post page.
    "posts/<str:post_id>/repost/": Route(path=POST, query={**THREAD, **NEXT}, form=NEXT),
    "posts/<str:post_id>/unrepost/": Route(path=POST, query={**THREAD, **NEXT}, form=NEXT),
    "posts/<str:post_id>/photo/": Route(path={"post_id": "photo_post_id"}),
    "posts/<str:post_id>/thumb/": Route(path={"post_id": "photo_post_id"}),
    "posts/<str:post_id>/comments/": Route(
        path=POST, query=NEXT, form={"text": "text", "parent": "slug", **NEXT}
    ),
    "posts/<str:post_id>/c/<path:slug>/": Route(
        path=COMMENT, query={"after": "comment_cursor", "before": "comment_cursor"}
    ),
    "posts/<str:post_id>/comments/<path:slug>/edit/": Route(
        path=COMMENT, query=NEXT, form={"text": "text", **NEXT}
    ),
    "posts/<str:post_id>/comments/<path:slug>/delete/": Route(path=COMMENT, query=NEXT, form=NEXT),
    "posts/<str:post_id>/comments/<path:slug>/vote/": Route(
        path=COMMENT, query=NEXT, form={"dir": "vote_dir", **NEXT}
    ),
    "report/": Route(
        # A GET with a target is the report page (a Report link without a script).
        query={"target": "target", **NEXT},
        form={"target": "target", "reason": "mod_reason", "note": "text", **NEXT},
    ),
    "mod/": Route(staff=True),
    "mod/reports/": Route(
        staff=True,
        method="GET",  # filters read from the query, or from a form if posted
        query={"status": "mod_status", "type": "mod_type", "reason": "mod_reason", "skip": "skip"},
        form={"status": "mod_status", "type": "mod_type", "reason": "mod_reason"},
    ),
    "mod/act/": Route(
        staff=True,
        query=NEXT,
        form={"key": "target", "action": "mod_action", "reason": "text", **NEXT},
    ),
    "mod/bulk/": Route(
        staff=True,
        query=NEXT,
        form={"keys": "target", "action": "bulk_action", "reason": "text", **NEXT},
    ),
    "mod/users/": Route(staff=True, query={"q": "short", "skip": "skip"}),
    "mod/users/<str:handle>/": Route(staff=True, path=HANDLE),
    "mod/users/<str:handle>/suspend/": Route(
        staff=True, path=HANDLE, form={"until": "date", "reason": "text"}
    ),
    "mod/users/<str:handle>/unsuspend/": Route(staff=True, path=HANDLE, form={"reason": "text"}),
    "mod/users/<str:handle>/role/": Route(staff=True, path=HANDLE, form={"role": "role"}),
    "mod/log/": Route(
        staff=True,
        query={
            "moderator": "handle",
            "action": "log_action",
            "target": "target",
            "skip": "skip",
        },
    ),
    "ads/serve/": Route(
        query={"site": "ad_site", "zone": "ad_zone", "kw": "ad_keyword", "n": "ad_count"}
    ),
    "ads/click/<str:offer_id>/": Route(path={"offer_id": "offer_id"}),
    "ads/view/<str:offer_id>/": Route(path={"offer_id": "offer_id"}),
    # Management: admins and advertisers only (404 for the rest), so probed
    # as staff, which includes the admin.
    "ads/manage/": Route(staff=True, query={"before": "campaign_cursor"}),
    "ads/manage/campaigns/new/": Route(staff=True),
    "ads/manage/campaigns/": Route(staff=True, form={"advertiser": "slug_name", **CAMPAIGN}),
    "ads/manage/campaigns/<str:campaign_id>/": Route(
        staff=True, path=CAMPAIGN_PATH, query={"format": "ad_format"}, form=CAMPAIGN
    ),
    "ads/manage/campaigns/<str:campaign_id>/units/": Route(
        staff=True,
        path=CAMPAIGN_PATH,
        form={
            "ad_unit_id": "ad_unit",
            "site": "ad_site",
            "zone": "ad_zone",
            "title": "short",
            "text": "text",
            "url": "url",
            "image": "url",
        },
    ),
    "ads/manage/campaigns/<str:campaign_id>/units/<str:ad_unit_id>/delete/": Route(
        staff=True, path={**CAMPAIGN_PATH, "ad_unit_id": "ad_unit"}, method="POST"
    ),
    "ads/manage/campaigns/<str:campaign_id>/activate/": Route(
        staff=True, path=CAMPAIGN_PATH, method="POST"
    ),
    "ads/manage/campaigns/<str:campaign_id>/deactivate/": Route(
        staff=True, path=CAMPAIGN_PATH, method="POST"
    ),
    # The developer's lens: admins only (404 for the rest), probed as staff.
    "dev/": Route(
        staff=True,
        form={
            "timeline_model": "timeline_model",
            "embed": "checkbox",
            "comment_store": "comment_store",
            "reset": "checkbox",
        },
    ),
    "dev/compare/": Route(staff=True, query={"path": "site_path"}),
    "dev/mail/": Route(staff=True),
    # The client API (docs/api.md). The probes' clients hold sessions, not
    # tokens: most answers are a JSON 401, which is the point for a cookie
    # (tests/api/ sweeps its parameters with a token).
    "oauth/authorize": Route(
        query={
            "response_type": "short",
            "client_id": "short",
            "redirect_uri": "url",
            "scope": "short",
            "state": "short",
            "code_challenge": "short",
            "code_challenge_method": "short",
        },
        form={"decision": "short"},
        method="GET",
    ),
    "oauth/token": Route(
        form={
            "grant_type": "short",
            "client_id": "short",
            "client_secret": "short",
            "code": "short",
            "redirect_uri": "url",
            "code_verifier": "short",
            "scope": "short",
        }
    ),
    "oauth/revoke": Route(form={"token": "short", "client_id": "short", "client_secret": "short"}),
    ".well-known/oauth-authorization-server": Route(),
    "settings/apps/<str:key>/revoke/": Route(path={"key": "short"}, method="POST"),
    "api/v1/apps": Route(
        form={
            "client_name": "short",
            "redirect_uris": "url",
            "scopes": "short",
            "website": "website",
        }
    ),
    "api/v1/apps/verify_credentials": Route(),
    "api/v1/instance": Route(),
    "api/v2/instance": Route(),
    "api/v1/custom_emojis": Route(),
    "api/v1/announcements": Route(),
    "api/v1/preferences": Route(),
    "api/v1/accounts/verify_credentials": Route(),
    "api/v1/accounts/update_credentials": Route(
        form={"display_name": "short", "note": "text"}, method="PATCH"
    ),
    "api/v1/accounts/lookup": Route(query={"acct": "handle"}),
    "api/v1/accounts/relationships": Route(query={"id[]": "handle"}),
    "api/v1/accounts/<str:handle>": Route(path=HANDLE),
    "api/v1/accounts/<str:handle>/followers": Route(path=HANDLE, query=API_PAGE),
    "api/v1/accounts/<str:handle>/following": Route(path=HANDLE, query=API_PAGE),
    "api/v1/accounts/<str:handle>/follow": Route(path=HANDLE, method="POST"),
    "api/v1/accounts/<str:handle>/unfollow": Route(path=HANDLE, method="POST"),
    "api/v1/accounts/<str:handle>/block": Route(path=HANDLE, method="POST"),
    "api/v1/accounts/<str:handle>/unblock": Route(path=HANDLE, method="POST"),
    "api/v1/accounts/<str:handle>/mute": Route(path=HANDLE, method="POST"),
    "api/v1/accounts/<str:handle>/unmute": Route(path=HANDLE, method="POST"),
    "api/v1/blocks": Route(query=API_PAGE),
    "api/v1/mutes": Route(query=API_PAGE),
    # Statuses, media and polls (docs/api.md#statuses): a status id is a
    # post's ObjectId in hex.
    "api/v1/accounts/<str:handle>/statuses": Route(
        path=HANDLE,
        query={
            "max_id": "post_id",
            "min_id": "post_id",
            "since_id": "post_id",
            "limit": "number",
            "pinned": "checkbox",
            "only_media": "checkbox",
            "exclude_replies": "checkbox",
        },
    ),
    "api/v1/statuses": Route(
        form={
            "status": "text",
            "visibility": "short",
            "spoiler_text": "short",
            "in_reply_to_id": "post_id",
            "media_ids[]": "post_id",
            "poll[options][]": "short",
            "poll[expires_in]": "duration",
        }
    ),
    "api/v1/statuses/<str:status_id>": Route(path=STATUS, method="GET"),
    "api/v1/statuses/<str:status_id>/context": Route(path=STATUS),
    "api/v1/statuses/<str:status_id>/history": Route(path=STATUS),
    "api/v1/statuses/<str:status_id>/source": Route(path=STATUS),
    "api/v1/statuses/<str:status_id>/favourite": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/unfavourite": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/reblog": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/unreblog": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/bookmark": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/unbookmark": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/pin": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/unpin": Route(path=STATUS, method="POST"),
    "api/v1/statuses/<str:status_id>/favourited_by": Route(path=STATUS, query=API_PAGE),
    "api/v1/statuses/<str:status_id>/reblogged_by": Route(path=STATUS, query=API_PAGE),
    "api/v1/media": Route(form={"description": "text", "file": "photo"}),
    "api/v2/media": Route(form={"description": "text", "file": "photo"}),
    "api/v1/media/<str:media_id>": Route(path={"media_id": "post_id"}, method="GET"),
    "api/v1/polls/<str:poll_id>": Route(path={"poll_id": "poll_post_id"}),
    "api/v1/polls/<str:poll_id>/votes": Route(
        path={"poll_id": "poll_post_id"}, form={"choices[]": "number"}
    ),
    # Notifications and conversations (docs/api.md#notifications,
    # docs/api.md#conversations): their cursors are the pages' keyset cursors.
    "api/v1/notifications": Route(
        query={
            "max_id": "timeline_cursor",
            "min_id": "timeline_cursor",
            "since_id": "timeline_cursor",
            "limit": "number",
            "types[]": "short",
            "exclude_types[]": "short",
            "account_id": "handle",
        }
    ),
    "api/v1/notifications/clear": Route(method="POST"),
    "api/v1/notifications/unread_count": Route(query={"limit": "number"}),
    "api/v1/notifications/<str:notification_id>": Route(
        path={"notification_id": "timeline_cursor"}
    ),
    "api/v1/notifications/<str:notification_id>/dismiss": Route(
        path={"notification_id": "timeline_cursor"}, method="POST"
    ),
    "api/v1/conversations": Route(
        query={
            "max_id": "inbox_cursor",
            "min_id": "inbox_cursor",
            "since_id": "inbox_cursor",
            "limit": "number",
        }
    ),
    "api/v1/conversations/<str:conversation_id>": Route(path=CONVERSATION, method="DELETE"),
    "api/v1/conversations/<str:conversation_id>/read": Route(path=CONVERSATION, method="POST"),
    # Discovery and the reader's settings (docs/api.md#tags-and-trends and
    # after); tests/api/test_discovery.py sweeps them with a token.
    "api/v1/accounts/search": Route(
        query={"q": "short", "limit": "number", "offset": "number", "following": "checkbox"}
    ),
    "api/v1/tags/<str:name>": Route(path={"name": "tag"}),
    "api/v1/tags/<str:name>/follow": Route(path={"name": "tag"}, method="POST"),
    "api/v1/tags/<str:name>/unfollow": Route(path={"name": "tag"}, method="POST"),
    "api/v1/followed_tags": Route(
        query={"max_id": "tag", "min_id": "tag", "since_id": "tag", "limit": "number"}
    ),
    "api/v1/trends": Route(query={"limit": "number", "offset": "number"}),
    "api/v1/trends/tags": Route(query={"limit": "number", "offset": "number"}),
    "api/v1/trends/statuses": Route(query={"limit": "number", "offset": "number"}),
    "api/v1/trends/links": Route(query={"limit": "number", "offset": "number"}),
    "api/v2/search": Route(
        query={
            "q": "short",
            "type": "short",
            "limit": "number",
            "offset": "number",
            "following": "checkbox",
            "account_id": "handle",
            "max_id": "post_id",
        }
    ),
    "api/v2/filters": Route(
        form={
            "title": "short",
            "context[]": "filter_context",
            "filter_action": "filter_action",
            "expires_in": "duration",
            "keywords_attributes[][keyword]": "short",
        }
    ),
    "api/v2/filters/keywords/<str:keyword_id>": Route(
        path={"keyword_id": "filter_id"}, method="GET"
    ),
    "api/v2/filters/<str:filter_id>": Route(path={"filter_id": "filter_id"}, method="GET"),
    "api/v2/filters/<str:filter_id>/keywords": Route(
        path={"filter_id": "filter_id"}, method="GET"
    ),
    "api/v2/filters/<str:filter_id>/statuses": Route(path={"filter_id": "filter_id"}),
    "api/v1/filters": Route(),
    "api/v1/markers": Route(query={"timeline[]": "short"}, method="GET"),
    "api/v1/reports": Route(
        form={
            "account_id": "handle",
            "status_ids[]": "post_id",
            "comment": "text",
            "category": "short",
        }
    ),
    # Timelines, lists (circles), bookmarks and favourites (docs/api.md#timelines):
    # a status cursor is a status id; a list id an ObjectId in hex; the marks'
    # cursors are opaque (`before` cursors of the pages).
    "api/v1/timelines/home": Route(query=STATUS_PAGE),
    "api/v1/timelines/public": Route(
        query={**STATUS_PAGE, "local": "checkbox", "remote": "checkbox", "only_media": "checkbox"}
    ),
    "api/v1/timelines/tag/<str:hashtag>": Route(
        path={"hashtag": "short"},
        query={**STATUS_PAGE, "any[]": "short", "only_media": "checkbox"},
    ),
    "api/v1/timelines/list/<str:list_id>": Route(path=LIST, query=STATUS_PAGE),
    "api/v1/bookmarks": Route(query=MARKS_PAGE),
    "api/v1/favourites": Route(query=MARKS_PAGE),
    "api/v1/lists": Route(
        form={"title": "circle_name", "replies_policy": "short", "exclusive": "checkbox"}
    ),
    "api/v1/lists/<str:list_id>": Route(path=LIST, form={"title": "circle_name"}, method="GET"),
    "api/v1/lists/<str:list_id>/accounts": Route(
        path=LIST, query=API_PAGE, form={"account_ids[]": "handle"}, method="GET"
    ),
    "api/v1/accounts/<str:handle>/lists": Route(path=HANDLE),
    # The streaming API (docs/api.md#streaming): under the test client a
    # stream that opens answers at once (live/streams.py), so none hangs.
    "api/v1/streaming": Route(
        query={
            "stream": "stream_name",
            "tag": "tag",
            "list": "post_id",
            "only_media": "checkbox",
            "access_token": "short",
        }
    ),
    "api/v1/streaming/health": Route(),
    "api/v1/streaming/user": Route(query=STREAM_TOKEN),
    "api/v1/streaming/user/notification": Route(query=STREAM_TOKEN),
    "api/v1/streaming/public": Route(query={**STREAM_TOKEN, "only_media": "checkbox"}),
    "api/v1/streaming/public/local": Route(query={**STREAM_TOKEN, "only_media": "checkbox"}),
    "api/v1/streaming/public/remote": Route(query={**STREAM_TOKEN, "only_media": "checkbox"}),
    "api/v1/streaming/hashtag": Route(query={**STREAM_TOKEN, "tag": "tag"}),
    "api/v1/streaming/hashtag/local": Route(query={**STREAM_TOKEN, "tag": "tag"}),
    "api/v1/streaming/list": Route(query={**STREAM_TOKEN, "list": "post_id"}),
    "api/v1/streaming/direct": Route(query=STREAM_TOKEN),
    "api/v1/streaming/<path:rest>": Route(path={"rest": "short"}),
    # Federation (docs/federation.md). The inboxes take signed JSON: a form
    # is not JSON (400), and tests/federation/test_inbox.py sends them
    # hostile activities signed by a remote server.
    ".well-known/webfinger": Route(query={"resource": "resource"}),
    ".well-known/host-meta": Route(),
    ".well-known/nodeinfo": Route(),
    "nodeinfo/2.0": Route(),
    "actor": Route(),
    "inbox": Route(form={"type": "short", "actor": "url", "object": "url"}),
    "u/<str:handle>/inbox": Route(
        path=HANDLE, form={"type": "short", "actor": "url", "object": "url"}
    ),
    "mod/domains/": Route(
        staff=True, form={"domain": "domain_name", "level": "domain_level", "reason": "text"}
    ),
    "mod/domains/<str:domain>/lift/": Route(
        staff=True, path={"domain": "domain_name"}, method="POST"
    ),
    "mod/domains/<str:domain>/retry/": Route(
        staff=True, path={"domain": "domain_name"}, method="POST"
    ),
    "settings/domains/block/": Route(form={"domain": "domain_name"}),
    "settings/domains/unblock/": Route(form={"domain": "domain_name"}),
    "u/<str:handle>/outbox": Route(path=HANDLE, query={"page": "checkbox", "max_id": "post_id"}),
}


def resolver_routes() -> dict[str, list[str]]:
    """Every route the resolver serves: pattern string -> its converters' names."""
    found: dict[str, list[str]] = {}

    def walk(patterns, prefix: str, names: list[str]) -> None:
        for entry in patterns:
            own = list(entry.pattern.converters) if hasattr(entry.pattern, "converters") else []
            text = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, text, names + own)
            elif isinstance(entry, URLPattern):
                found[text] = names + own

    walk(get_resolver().url_patterns, "", [])
    return found


ROOT = Path(__file__).resolve().parents[2]
# `request.GET.get("q")`, `request.POST.getlist("keys")` and the moderation
# and circle views' helpers around them (`_choice(request, "status")`).
READS = re.compile(
    r'(?:request\.(?:GET|POST)\.get(?:list)?|_choice|_circle_param)\((?:request, )?"([^"]+)"'
)


def view_parameters() -> dict[str, set[str]]:
    """Every parameter name the views read by name: name -> the files."""
    found: dict[str, set[str]] = {}
    apps = ("socialsite", "profiles", "feeds", "comments", "messaging", "moderation", "ads")
    for app in (*apps, "devlens"):
        for path in [*(ROOT / app).glob("views.py"), *(ROOT / app).glob("views/*.py")]:
            for name in READS.findall(path.read_text()):
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found
