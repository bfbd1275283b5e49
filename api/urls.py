from django.urls import path

from api.streaming import views as streaming
from api.views import (
    accounts,
    apps,
    conversations,
    filters,
    instance,
    lists,
    markers,
    marks,
    media,
    oauth,
    polls,
    posting,
    reports,
    search,
    sessions,
    statuses,
    tags,
    timelines,
)
from api.views import notifications as api_notifications

app_name = "api"

# Mastodon's streaming API over Server-Sent Events (docs/api.md#streaming);
# the WebSocket at `api/v1/streaming` is settings.ASGI_WEBSOCKETS's.
STREAMING = [
    path("api/v1/streaming", streaming.streaming, name="streaming"),
    path("api/v1/streaming/health", streaming.health, name="streaming_health"),
    path("api/v1/streaming/user", streaming.user, name="streaming_user"),
    path(
        "api/v1/streaming/user/notification",
        streaming.user_notification,
        name="streaming_user_notification",
    ),
    path("api/v1/streaming/public", streaming.public, name="streaming_public"),
    path("api/v1/streaming/public/local", streaming.public_local, name="streaming_public_local"),
    path(
        "api/v1/streaming/public/remote", streaming.public_remote, name="streaming_public_remote"
    ),
    path("api/v1/streaming/hashtag", streaming.hashtag, name="streaming_hashtag"),
    path(
        "api/v1/streaming/hashtag/local", streaming.hashtag_local, name="streaming_hashtag_local"
    ),
    path("api/v1/streaming/list", streaming.list_stream, name="streaming_list"),
    path("api/v1/streaming/direct", streaming.direct, name="streaming_direct"),
    path("api/v1/streaming/<path:rest>", streaming.unknown, name="streaming_unknown"),
]

urlpatterns = [
    path("oauth/authorize", oauth.authorize, name="authorize"),
    path("oauth/token", oauth.token, name="token"),
    path("oauth/revoke", oauth.revoke, name="revoke"),
    path(".well-known/oauth-authorization-server", oauth.metadata, name="oauth_metadata"),
    path("settings/apps/<str:key>/revoke/", sessions.revoke, name="app_revoke"),
    path("api/v1/apps", apps.create, name="apps"),
    path("api/v1/apps/verify_credentials", apps.verify_credentials, name="apps_verify"),
    path("api/v1/instance", instance.instance, name="instance"),
    path("api/v2/instance", instance.instance_v2_view, name="instance_v2"),
    path("api/v1/custom_emojis", instance.custom_emojis, name="custom_emojis"),
    path("api/v1/announcements", instance.announcements, name="announcements"),
    path("api/v1/preferences", instance.preferences, name="preferences"),
    path(
        "api/v1/accounts/verify_credentials",
        accounts.verify_credentials,
        name="verify_credentials",
    ),
    path(
        "api/v1/accounts/update_credentials",
        accounts.update_credentials,
        name="update_credentials",
    ),
    path("api/v1/accounts/lookup", accounts.lookup, name="account_lookup"),
    path("api/v1/accounts/relationships", accounts.relationships, name="relationships"),
    # Before the handle route: "search" names no one (docs/api.md#search).
    path("api/v1/accounts/search", search.account_search, name="account_search"),
    path("api/v1/accounts/<str:handle>", accounts.detail, name="account"),
    path("api/v1/accounts/<str:handle>/followers", accounts.followers, name="followers"),
    path("api/v1/accounts/<str:handle>/following", accounts.following, name="following"),
    path("api/v1/accounts/<str:handle>/follow", accounts.follow, name="follow"),
    path("api/v1/accounts/<str:handle>/unfollow", accounts.unfollow, name="unfollow"),
    path("api/v1/accounts/<str:handle>/block", accounts.block, name="block"),
    path("api/v1/accounts/<str:handle>/unblock", accounts.unblock, name="unblock"),
    path("api/v1/accounts/<str:handle>/mute", accounts.mute, name="mute"),
    path("api/v1/accounts/<str:handle>/unmute", accounts.unmute, name="unmute"),
    path("api/v1/blocks", accounts.blocks, name="blocks"),
    path("api/v1/mutes", accounts.mutes, name="mutes"),
    # Statuses, media and polls (docs/api.md#statuses).
    path("api/v1/accounts/<str:handle>/statuses", accounts.statuses, name="account_statuses"),
    path("api/v1/statuses", posting.statuses_create, name="statuses"),
    path("api/v1/statuses/<str:status_id>", statuses.status_detail, name="status"),
    path("api/v1/statuses/<str:status_id>/context", statuses.context, name="status_context"),
    path("api/v1/statuses/<str:status_id>/history", statuses.history, name="status_history"),
    path("api/v1/statuses/<str:status_id>/source", statuses.source, name="status_source"),
    path("api/v1/statuses/<str:status_id>/favourite", marks.favourite, name="status_favourite"),
    path(
        "api/v1/statuses/<str:status_id>/unfavourite",
        marks.unfavourite,
        name="status_unfavourite",
    ),
    path("api/v1/statuses/<str:status_id>/reblog", marks.reblog, name="status_reblog"),
    path("api/v1/statuses/<str:status_id>/unreblog", marks.unreblog, name="status_unreblog"),
    path("api/v1/statuses/<str:status_id>/bookmark", marks.bookmark, name="status_bookmark"),
    path(
        "api/v1/statuses/<str:status_id>/unbookmark",
        marks.unbookmark,
        name="status_unbookmark",
    ),
    path("api/v1/statuses/<str:status_id>/pin", marks.pin, name="status_pin"),
    path("api/v1/statuses/<str:status_id>/unpin", marks.unpin, name="status_unpin"),
    path(
        "api/v1/statuses/<str:status_id>/favourited_by",
        marks.favourited_by,
        name="status_favourited_by",
    ),
    path(
        "api/v1/statuses/<str:status_id>/reblogged_by",
        marks.reblogged_by,
        name="status_reblogged_by",
    ),
    path("api/v1/media", media.upload, name="media_v1"),
    path("api/v2/media", media.upload, name="media"),
    path("api/v1/media/<str:media_id>", media.detail, name="media_detail"),
    path("api/v1/polls/<str:poll_id>", polls.poll, name="poll"),
    path("api/v1/polls/<str:poll_id>/votes", polls.vote, name="poll_votes"),
    # Notifications and conversations (our messages): docs/api.md#notifications,
    # docs/api.md#conversations.
    path("api/v1/notifications", api_notifications.notifications_list, name="notifications"),
    path(
        "api/v1/notifications/clear",
        api_notifications.notifications_clear,
        name="notifications_clear",
    ),
    path(
        "api/v1/notifications/unread_count",
        api_notifications.unread_count,
        name="notifications_unread_count",
    ),
    path(
        "api/v1/notifications/<str:notification_id>",
        api_notifications.notification_detail,
        name="notification",
    ),
    path(
        "api/v1/notifications/<str:notification_id>/dismiss",
        api_notifications.notification_dismiss,
        name="notification_dismiss",
    ),
    path("api/v1/conversations", conversations.conversations_list, name="conversations"),
    path(
        "api/v1/conversations/<str:conversation_id>",
        conversations.conversation_delete,
        name="conversation",
    ),
    path(
        "api/v1/conversations/<str:conversation_id>/read",
        conversations.conversation_read,
        name="conversation_read",
    ),
    # Discovery and the reader's settings: tags, trends, search, filters,
    # markers, reports (docs/api.md#tags-and-trends and after).
    path("api/v1/tags/<str:name>", tags.tag, name="tag"),
    path("api/v1/tags/<str:name>/follow", tags.tag_follow, name="tag_follow"),
    path("api/v1/tags/<str:name>/unfollow", tags.tag_unfollow, name="tag_unfollow"),
    path("api/v1/followed_tags", tags.followed_tags, name="followed_tags"),
    path("api/v1/trends", tags.trending_tags, name="trends"),
    path("api/v1/trends/tags", tags.trending_tags, name="trends_tags"),
    path("api/v1/trends/statuses", tags.trending_statuses, name="trends_statuses"),
    path("api/v1/trends/links", tags.trending_links, name="trends_links"),
    path("api/v2/search", search.search, name="search"),
    path("api/v2/filters", filters.filters, name="filters"),
    path(
        "api/v2/filters/keywords/<str:keyword_id>", filters.keyword_detail, name="filter_keyword"
    ),
    path("api/v2/filters/<str:filter_id>", filters.filter_detail, name="filter"),
    path(
        "api/v2/filters/<str:filter_id>/keywords", filters.filter_keywords, name="filter_keywords"
    ),
    path(
        "api/v2/filters/<str:filter_id>/statuses", filters.filter_statuses, name="filter_statuses"
    ),
    path("api/v1/filters", filters.filters_v1, name="filters_v1"),
    path("api/v1/markers", markers.markers, name="markers"),
    path("api/v1/reports", reports.reports, name="reports"),
    # Timelines, lists (circles), bookmarks and favourites (docs/api.md#timelines).
    path("api/v1/timelines/home", timelines.home, name="timeline_home"),
    path("api/v1/timelines/public", timelines.public, name="timeline_public"),
    path("api/v1/timelines/tag/<str:hashtag>", timelines.tag, name="timeline_tag"),
    path("api/v1/timelines/list/<str:list_id>", timelines.list_timeline, name="timeline_list"),
    path("api/v1/bookmarks", timelines.bookmarks, name="bookmarks"),
    path("api/v1/favourites", timelines.favourites, name="favourites"),
    path("api/v1/lists", lists.lists, name="lists"),
    path("api/v1/lists/<str:list_id>", lists.detail, name="list"),
    path("api/v1/lists/<str:list_id>/accounts", lists.accounts, name="list_accounts"),
    path("api/v1/accounts/<str:handle>/lists", lists.account_lists, name="account_lists"),
    *STREAMING,
]
