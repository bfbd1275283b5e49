"""`{% person_card p %}`: one person of a list (templates/_person.html),
rendered once per version of what it shows and then served from the
fragment cache that post cards use (socialsite/fragments.py).

The key is everything the fragment shows: handle, name, bio and follower
count. It shows nothing about the viewer (no follow state, no forms), so
every viewer shares one entry; a renamed person or a new follower count
gives a new key, and the old entry ages out.
"""

from django import template

from socialsite import fragments

register = template.Library()


@register.simple_tag(takes_context=True)
def person_card(context, person):
    """`person` is a search result (`profiles.selectors.Person`) or a `User`."""
    profile = person.profile
    bio = profile.get("bio") if isinstance(profile, dict) else getattr(profile, "bio", None)
    key = {
        "handle": person.handle,
        "name": person.name,
        "bio": bio or "",
        "followers": person.followers_count,
    }
    return fragments.render(
        "person", person.handle, key, "_person.html", {"p": person}, fragments.page_of(context)
    )
