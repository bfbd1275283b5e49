"""The documented fields of each entity and their JSON types
(docs.joinmastodon.org, "Entities", at 4.3), so every test can hold an
answer to its shape: `problems(data, ENTITY)` lists each field missing or
of another type. A type of `None` in a tuple means the field may be null.
"""

from typing import Any

STR, INT, BOOL, LIST, DICT = str, int, bool, list, dict
NULL = type(None)

ACCOUNT: dict[str, tuple[type, ...]] = {
    "id": (STR,),
    "username": (STR,),
    "acct": (STR,),
    "url": (STR,),
    "uri": (STR,),
    "display_name": (STR,),
    "note": (STR,),
    "avatar": (STR,),
    "avatar_static": (STR,),
    "header": (STR,),
    "header_static": (STR,),
    "locked": (BOOL,),
    "fields": (LIST,),
    "emojis": (LIST,),
    "bot": (BOOL,),
    "group": (BOOL,),
    "discoverable": (BOOL, NULL),
    "indexable": (BOOL,),
    "noindex": (BOOL, NULL),
    "moved": (DICT, NULL),
    "suspended": (BOOL,),
    "limited": (BOOL,),
    "memorial": (BOOL, NULL),
    "hide_collections": (BOOL, NULL),
    "created_at": (STR,),
    "last_status_at": (STR, NULL),
    "statuses_count": (INT,),
    "followers_count": (INT,),
    "following_count": (INT,),
    "roles": (LIST,),
}
CREDENTIAL_ACCOUNT = {**ACCOUNT, "source": (DICT,), "role": (DICT,)}
SOURCE = {
    "note": (STR,),
    "fields": (LIST,),
    "privacy": (STR,),
    "sensitive": (BOOL,),
    "language": (STR,),
    "follow_requests_count": (INT,),
    "hide_collections": (BOOL, NULL),
    "discoverable": (BOOL, NULL),
    "indexable": (BOOL,),
    "attribution_domains": (LIST,),
}
APPLICATION = {
    "name": (STR,),
    "website": (STR, NULL),
    "scopes": (LIST,),
    "redirect_uri": (STR,),
    "redirect_uris": (LIST,),
}
CREDENTIAL_APPLICATION = {
    **APPLICATION,
    "id": (STR,),
    "client_id": (STR,),
    "client_secret": (STR,),
    "client_secret_expires_at": (INT,),
}
RELATIONSHIP = {
    "id": (STR,),
    "following": (BOOL,),
    "showing_reblogs": (BOOL,),
    "notifying": (BOOL,),
    "languages": (LIST, NULL),
    "followed_by": (BOOL,),
    "blocking": (BOOL,),
    "blocked_by": (BOOL,),
    "muting": (BOOL,),
    "muting_notifications": (BOOL,),
    "requested": (BOOL,),
    "requested_by": (BOOL,),
    "domain_blocking": (BOOL,),
    "endorsed": (BOOL,),
    "note": (STR,),
}
INSTANCE_V1 = {
    "uri": (STR,),
    "title": (STR,),
    "short_description": (STR,),
    "description": (STR,),
    "email": (STR,),
    "version": (STR,),
    "urls": (DICT,),
    "stats": (DICT,),
    "thumbnail": (STR, NULL),
    "languages": (LIST,),
    "registrations": (BOOL,),
    "approval_required": (BOOL,),
    "invites_enabled": (BOOL,),
    "configuration": (DICT,),
    "contact_account": (DICT, NULL),
    "rules": (LIST,),
}
INSTANCE_V2 = {
    "domain": (STR,),
    "title": (STR,),
    "version": (STR,),
    "source_url": (STR, NULL),
    "description": (STR,),
    "usage": (DICT,),
    "thumbnail": (DICT,),
    "icon": (LIST,),
    "languages": (LIST,),
    "configuration": (DICT,),
    "registrations": (DICT,),
    "api_versions": (DICT,),
    "contact": (DICT,),
    "rules": (LIST,),
}
CONFIGURATION_V2 = {
    "urls": (DICT,),
    "vapid": (DICT,),
    "accounts": (DICT,),
    "statuses": (DICT,),
    "media_attachments": (DICT,),
    "polls": (DICT,),
    "translation": (DICT,),
}
STATUSES_CONFIGURATION = {
    "max_characters": (INT,),
    "max_media_attachments": (INT,),
    "characters_reserved_per_url": (INT,),
}
POLLS_CONFIGURATION = {
    "max_options": (INT,),
    "max_characters_per_option": (INT,),
    "min_expiration": (INT,),
    "max_expiration": (INT,),
}
PREFERENCES = {
    "posting:default:visibility": (STR,),
    "posting:default:sensitive": (BOOL,),
    "posting:default:language": (STR, NULL),
    "reading:expand:media": (STR,),
    "reading:expand:spoilers": (BOOL,),
}
# Statuses, media and polls (docs/api.md#statuses).
STATUS = {
    "id": (STR,),
    "uri": (STR,),
    "url": (STR, NULL),
    "created_at": (STR,),
    "account": (DICT,),
    "content": (STR,),
    "visibility": (STR,),
    "sensitive": (BOOL,),
    "spoiler_text": (STR,),
    "media_attachments": (LIST,),
    "application": (DICT, NULL),
    "mentions": (LIST,),
    "tags": (LIST,),
    "emojis": (LIST,),
    "reblogs_count": (INT,),
    "favourites_count": (INT,),
    "replies_count": (INT,),
    "in_reply_to_id": (STR, NULL),
    "in_reply_to_account_id": (STR, NULL),
    "reblog": (DICT, NULL),
    "poll": (DICT, NULL),
    "card": (DICT, NULL),
    "language": (STR, NULL),
    "text": (STR, NULL),
    "edited_at": (STR, NULL),
}
#: The reader's own fields, sent with a person's token.
STATUS_VIEWER = {
    "favourited": (BOOL,),
    "reblogged": (BOOL,),
    "muted": (BOOL,),
    "bookmarked": (BOOL,),
    "filtered": (LIST,),
}
STATUS_MENTION = {"id": (STR,), "username": (STR,), "url": (STR,), "acct": (STR,)}
STATUS_TAG = {"name": (STR,), "url": (STR,)}
MEDIA_ATTACHMENT = {
    "id": (STR,),
    "type": (STR,),
    "url": (STR, NULL),
    "preview_url": (STR, NULL),
    "remote_url": (STR, NULL),
    "meta": (DICT,),
    "description": (STR, NULL),
    "blurhash": (STR, NULL),
}
POLL = {
    "id": (STR,),
    "expires_at": (STR, NULL),
    "expired": (BOOL,),
    "multiple": (BOOL,),
    "votes_count": (INT,),
    "voters_count": (INT, NULL),
    "options": (LIST,),
    "emojis": (LIST,),
    "voted": (BOOL, NULL),
    "own_votes": (LIST,),
}
POLL_OPTION = {"title": (STR,), "votes_count": (INT, NULL)}
PREVIEW_CARD = {
    "url": (STR,),
    "title": (STR,),
    "description": (STR,),
    "type": (STR,),
    "authors": (LIST,),
    "author_name": (STR,),
    "author_url": (STR,),
    "provider_name": (STR,),
    "provider_url": (STR,),
    "html": (STR,),
    "width": (INT,),
    "height": (INT,),
    "image": (STR, NULL),
    "embed_url": (STR,),
    "blurhash": (STR, NULL),
}
CONTEXT = {"ancestors": (LIST,), "descendants": (LIST,)}
STATUS_EDIT = {
    "content": (STR,),
    "spoiler_text": (STR,),
    "sensitive": (BOOL,),
    "created_at": (STR,),
    "account": (DICT,),
    "poll": (DICT, NULL),
    "media_attachments": (LIST,),
    "emojis": (LIST,),
}
STATUS_SOURCE = {"id": (STR,), "text": (STR,), "spoiler_text": (STR,)}
TOKEN = {"access_token": (STR,), "token_type": (STR,), "scope": (STR,), "created_at": (INT,)}
ERROR = {"error": (STR,)}

# Discovery and the reader's settings (api/entities/discovery.py).
TAG = {"id": (STR,), "name": (STR,), "url": (STR,), "history": (LIST,)}
TAG_VIEWER = {**TAG, "following": (BOOL,)}
TAG_HISTORY = {"day": (STR,), "uses": (STR,), "accounts": (STR,)}
FILTER_KEYWORD = {"id": (STR,), "keyword": (STR,), "whole_word": (BOOL,)}
FILTER = {
    "id": (STR,),
    "title": (STR,),
    "context": (LIST,),
    "expires_at": (STR, NULL),
    "filter_action": (STR,),
    "keywords": (LIST,),
    "statuses": (LIST,),
}
FILTER_V1 = {
    "id": (STR,),
    "phrase": (STR,),
    "context": (LIST,),
    "expires_at": (STR, NULL),
    "irreversible": (BOOL,),
    "whole_word": (BOOL,),
}
MARKER = {"last_read_id": (STR,), "version": (INT,), "updated_at": (STR,)}
REPORT = {
    "id": (STR,),
    "action_taken": (BOOL,),
    "action_taken_at": (STR, NULL),
    "category": (STR,),
    "comment": (STR,),
    "forwarded": (BOOL,),
    "created_at": (STR,),
    "status_ids": (LIST, NULL),
    "rule_ids": (LIST, NULL),
    "target_account": (DICT,),
}
SEARCH = {"accounts": (LIST,), "statuses": (LIST,), "hashtags": (LIST,)}


# Lists (docs/api.md#lists): a circle as Mastodon's List.
LIST_ENTITY = {"id": (STR,), "title": (STR,), "replies_policy": (STR,), "exclusive": (bool,)}


def problems(data: Any, fields: dict[str, tuple[type, ...]]) -> list[str]:
    """Each documented field missing from `data`, or of another type."""
    if not isinstance(data, dict):
        return [f"not an object: {type(data).__name__}"]
    found = []
    for name, types in fields.items():
        if name not in data:
            found.append(f"{name}: missing")
            continue
        value = data[name]
        # JSON has no int/bool split in Python's sense: a bool is not an int here.
        if isinstance(value, bool) and BOOL not in types:
            found.append(f"{name}: bool, documented {types}")
        elif not isinstance(value, types):
            found.append(f"{name}: {type(value).__name__}, documented {types}")
    return found


# Notifications and conversations (docs/api.md#notifications, #conversations).
NOTIFICATION = {
    "id": (STR,),
    "type": (STR,),
    "group_key": (STR,),
    "created_at": (STR,),
    "account": (DICT,),
    "status": (DICT, NULL),
    "report": (DICT, NULL),
    "event": (DICT, NULL),
    "moderation_warning": (DICT, NULL),
}
ACCOUNT_WARNING = {
    "id": (STR,),
    "action": (STR,),
    "text": (STR,),
    "status_ids": (LIST, NULL),
    "target_account": (DICT,),
    "appeal": (DICT, NULL),
    "created_at": (STR,),
}
CONVERSATION = {
    "id": (STR,),
    "unread": (BOOL,),
    "accounts": (LIST,),
    "last_status": (DICT, NULL),
}
UNREAD_COUNT = {"count": (INT,)}
