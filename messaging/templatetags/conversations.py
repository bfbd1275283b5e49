"""`{% message_list page %}`: a conversation page's messages
(templates/messaging/_message.html), each rendered once per version and
then served from the fragment cache (socialsite/fragments.py,
docs/performance.md#the-fragment-cache).

A message's markup depends only on the message as the page's selector made
it (its words, author, time, whether it is the reader's own, removed,
suspended or erased), its conversation, whether it is the page's last and
where a report goes; the key holds all of them. The selector has already
decided who reads the page (only its members, and a message across a block
reaches neither side), so a fragment only ever goes to a reader whose
selector produced the very same message. Per page only the age and nothing
else is filled in.
"""

from django import template
from django.template import Context
from django.utils.safestring import SafeString

from messaging.selectors import ConversationPage
from socialsite import extensions, fragments

register = template.Library()


@register.simple_tag(takes_context=True)
def message_list(context: Context, page: ConversationPage) -> SafeString:
    # Where a message's Report link goes (moderation registers it), once a page.
    report_url = extensions.link("report")
    last = len(page.messages) - 1
    items = (
        (
            message.id,
            {"m": vars(message), "c": page.id, "last": n == last, "report": report_url},
            {
                "m": message,
                "conversation": page.id,
                "last": n == last,
                "report_url": report_url,
                "moment": message.ts,
            },
        )
        for n, message in enumerate(page.messages)
    )
    return fragments.render_each(
        "message", items, "messaging/_message.html", fragments.page_of(context)
    )
