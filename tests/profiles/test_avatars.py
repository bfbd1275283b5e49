"""Generated avatars: initials on a colour from the handle, from a fixed
palette of CSS classes (the CSP forbids inline styles) with readable text."""

import re
import zlib
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template

from feeds.documents import Post
from profiles import services
from profiles.templatetags.avatars import PALETTE_SIZE, avatar_colour, initials

CSS = Path(settings.BASE_DIR, "static", "css", "site.css").read_text()


def render(source: str, **context) -> str:
    return Template("{% load avatars %}" + source).render(Context(context))


@pytest.mark.parametrize(
    "name, handle, expected",
    [
        ("Ada", "ada", "A"),
        ("ada lovelace", "ada", "AL"),
        ("Ada King Lovelace", "ada", "AL"),
        ("  zoë   ångström ", "zoe", "ZÅ"),
        ("山田 太郎", "yamada", "山太"),
        ("R2 D2", "r2d2", "RD"),
        ("\U0001f600 Ada", "ada", "A"),
        ("straße", "strasse", "S"),
        ("ßen", "ben", "ß"),  # "ß".upper() is two letters: kept as it is
        ("...", "dots_42", "D"),  # no letter in the name: the handle's
        ("★", "_9lives", "9"),
        ("", "", "?"),
    ],
)
def test_initials(name, handle, expected):
    assert initials(name, handle) == expected


def test_colour_is_deterministic_and_spread_over_the_palette():
    handles = [f"user{i}" for i in range(400)]
    colours = [avatar_colour(h) for h in handles]
    assert colours == [avatar_colour(h) for h in handles]
    assert set(colours) == set(range(PALETTE_SIZE))
    # Pinned: crc32, not the per-process salted `hash`, so a restart keeps them.
    assert [avatar_colour(h) for h in ("alice", "bob", "ada")] == [
        zlib.crc32(h.encode()) % 12 for h in ("alice", "bob", "ada")
    ]


def test_tag_renders_a_decorative_span_with_the_palette_class():
    html = render('{% avatar "ada" "Ada Lovelace" "lg" %}')
    assert html == (
        f'<span class="avatar avatar-c{avatar_colour("ada")} avatar--lg" aria-hidden="true">'
        "AL</span>"
    )
    assert "style=" not in html


def test_tag_link_form_takes_letters_only_from_markup():
    html = render('{% avatar h n "sm" link=True %}', h="bob", n="<b>Bob</b>")
    assert html == (
        f'<a class="avatar avatar-c{avatar_colour("bob")} avatar--sm" href="/u/bob/" '
        'aria-hidden="true" tabindex="-1">B</a>'
    )


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("index", range(PALETTE_SIZE))
def test_every_palette_class_exists_with_contrast_of_at_least_4_5(index):
    rule = re.search(
        rf"\.avatar-c{index} \{{ background: (#[0-9a-f]{{6}}); color: (#[0-9a-f]{{6}}); \}}", CSS
    )
    assert rule, f".avatar-c{index} is missing from site.css"
    high, low = sorted(map(_luminance, rule.groups()), reverse=True)
    assert (high + 0.05) / (low + 0.05) >= 4.5


def test_avatars_on_profile_people_list_post_and_comment(make_user, login, settings):
    ada = make_user("ada", name="Ada Lovelace")
    bob = make_user("bob", name="Bob")
    services.follow_create(follower=bob, followee="ada")
    ada_class = f"avatar avatar-c{avatar_colour('ada')}"
    bob_class = f"avatar avatar-c{avatar_colour('bob')}"

    profile = login(ada).get("/u/ada/").content.decode()
    assert f'<span class="{ada_class} avatar--lg" aria-hidden="true">AL</span>' in profile
    followers = login(ada).get("/u/ada/followers/").content.decode()
    assert f'class="{bob_class}" href="/u/bob/" aria-hidden="true" tabindex="-1">B</a>' in (
        followers
    )

    client = login(ada)
    client.post("/posts/", {"type": "status", "text": "Hello", "circles": "*public*"})
    post = Post.objects.get()
    login(bob).post(f"/posts/{post.id}/comments/", {"text": "Hi Ada"})
    page = client.get(f"/posts/{post.id}/").content.decode()
    card = page[page.index(f'id="post-{post.id}"') :]
    assert f'class="{ada_class}" href="/u/ada/"' in card  # the card's author line
    comment = page[page.index('class="comment"') :]
    assert f'class="{bob_class} avatar--sm" href="/u/bob/"' in comment
