"""`{% person_card p %}`: one person of a list (templates/_person.html),
rendered once per version of what it shows and then served from the
fragment cache that post cards use (socialsite/fragments.py).

The key is everything the fragment shows: handle, name, bio, follower
count and the button the page gives it ("follow", "following" or none, from
the page's `follow_states`). Nothing else about the viewer is in it (the
form's CSRF token and `next` are slots), so viewers with the same button
share one entry; a renamed person or a new follower count gives a new key,
and the old entry ages out.
"""

from django import template
from django.template import Context
from django.utils.safestring import SafeString

from profiles.documents import User
from profiles.selectors import Person
from socialsite import fragments

register = template.Library()


@register.simple_tag(takes_context=True)
def person_card(context: Context, person: Person | User) -> SafeString:
    """`person` is a search result (`profiles.selectors.Person`) or a `User`."""
    profile = person.profile
    bio = profile.get("bio") if isinstance(profile, dict) else getattr(profile, "bio", None)
    key = {
        "handle": person.handle,
        "name": person.name,
        "bio": bio or "",
        "followers": person.followers_count,
        "follow": (context.get("follow_states") or {}).get(person.handle),
    }
    return fragments.render(
        "person",
        person.handle,
        key,
        "_person.html",
        {"p": person, "follow": key["follow"]},
        fragments.page_of(context),
    )
