"""`{% notification_list page %}`: a page of notifications
(templates/notifications/_notification.html), each rendered once per
version and then served from the fragment cache (socialsite/fragments.py,
docs/performance.md#the-fragment-cache).

An item's markup depends only on the notification as the page's selector
made it for its recipient (who, what, which post and comment, the quote,
unread or not, the keyword filter it matched, whether to offer "Follow
back"); the key holds every field of it. The selector has already decided
what the recipient may see (blocks, mutes, posts they can no longer see,
hide filters), so a fragment only ever goes to the recipient whose
selector produced that very notification, and every field of it is in the
key. Per page the CSRF token, the page's path (the follow-back form's
`next`) and the age are filled in.
"""

from django import template
from django.template import Context
from django.utils.safestring import SafeString

from notifications.selectors import Notification, NotificationPage
from socialsite import fragments
from socialsite.templatetags.site_urls import path_to

register = template.Library()


def _key(item: Notification) -> dict:
    """Every field of the item; the keyword filter by what the item shows of it."""
    matched = item.filtered
    return {**vars(item), "filtered": [matched.id, matched.phrase] if matched else None}


#: What each kind says after its actor: the words, and the words of the link
#: to its post (or comment) that end the sentence. A follow links nothing.
SAID = {
    "follow": ("followed you.", ""),
    "like": ("liked your ", "post"),
    "repost": ("reposted your ", "post"),
    "comment": ("commented on your ", "post"),
    "reply": ("replied to your ", "comment"),
    "mention": ("mentioned you in ", "a post"),
    "wall": ("posted on your ", "wall"),
}
#: The kinds whose link goes to the comment when there is one.
TO_THE_COMMENT = {"comment", "reply", "mention"}


def _context(item: Notification) -> dict:
    """What the item's template shows, worked out once here rather than by
    a chain of tests on its kind and three `default` filters in the template."""
    verb, what = SAID.get(item.kind, ("", ""))
    link = path_to("feeds:post", item.post_id) if item.post_id and what else ""
    if item.comment and item.kind in TO_THE_COMMENT:
        link += f"c/{item.comment}/"
        if item.kind == "mention":
            what = "a comment"
    removed = item.kind == "removed"
    return {
        "n": item,
        "name": item.actor_name or item.actor,
        "removed": removed,
        "actor_url": "" if removed else path_to("profiles:profile", item.actor),
        "follow_url": path_to("profiles:follow", item.actor) if item.follow_back else "",
        "others": item.others if item.kind == "like" else 0,
        "verb": verb,
        "what": what,
        "link": link,
        "moment": item.ts,
    }


@register.simple_tag(takes_context=True)
def notification_list(context: Context, page: NotificationPage) -> SafeString:
    items = ((str(item.id), _key(item), _context(item)) for item in page.items)
    return fragments.render_each(
        "notification", items, "notifications/_notification.html", fragments.page_of(context)
    )
