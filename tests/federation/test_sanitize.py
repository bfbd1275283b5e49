"""federation.sanitize on HTML shaped as Mastodon sends it, and on hostile HTML."""

import pytest

from federation.sanitize import (
    LINK_REL,
    MAX_HTML,
    MAX_TEXT,
    clean_html,
    html_to_text,
    text_to_html,
)

# A status as Mastodon renders it: a mention in an h-card, a long link
# shortened with invisible/ellipsis spans, a hashtag, two paragraphs.
MASTODON = (
    '<p><span class="h-card" translate="no"><a href="https://social.example/@bob" '
    'class="u-url mention">@<span>bob</span></a></span> look at '
    '<a href="https://example.com/a/very/long/path?x=1&amp;y=2" target="_blank" '
    'rel="nofollow noopener" translate="no"><span class="invisible">https://</span>'
    '<span class="ellipsis">example.com/a/very/lo</span><span class="invisible">'
    "ng/path?x=1&amp;y=2</span></a> "
    '<a href="https://social.example/tags/cats" class="mention hashtag" rel="tag">'
    "#<span>cats</span></a></p><p>Fish &amp; chips<br />tonight</p>"
)


def test_mastodon_content_keeps_its_links_and_spans():
    cleaned = clean_html(MASTODON)
    assert '<span class="h-card">' in cleaned
    assert '<span class="invisible">https://</span>' in cleaned
    assert '<span class="ellipsis">example.com/a/very/lo</span>' in cleaned
    assert (
        f'<a href="https://example.com/a/very/long/path?x=1&amp;y=2" rel="{LINK_REL}">' in cleaned
    )
    assert f'<a href="https://social.example/tags/cats" rel="{LINK_REL}">' in cleaned
    assert "target" not in cleaned
    assert "translate" not in cleaned
    assert "<p>Fish &amp; chips<br>tonight</p>" in cleaned


def test_mastodon_content_as_text_has_the_full_url():
    assert html_to_text(MASTODON) == (
        "@bob look at https://example.com/a/very/long/path?x=1&y=2 #cats\n\nFish & chips\ntonight"
    )


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        ("<p>hi<script>alert(1)</script></p>", "<p>hi</p>"),
        ("<style>p{color:red}</style><p>hi</p>", "<p>hi</p>"),
        ('<p>hi<img src="x" onerror="alert(1)"></p>', "<p>hi</p>"),
        ('<p onclick="alert(1)" style="color:red">hi</p>', "<p>hi</p>"),
        ('<a href="javascript:alert(1)">x</a>', f'<a rel="{LINK_REL}">x</a>'),
        ('<a href="JaVaScRiPt:alert(1)">x</a>', f'<a rel="{LINK_REL}">x</a>'),
        ('<a href="data:text/html,<b>x</b>">x</a>', f'<a rel="{LINK_REL}">x</a>'),
        ('<a href="/relative">x</a>', f'<a rel="{LINK_REL}">x</a>'),
        (
            '<a href="mailto:a@example.com" rel="me" target="_blank">m</a>',
            f'<a href="mailto:a@example.com" rel="{LINK_REL}">m</a>',
        ),
        ('<iframe src="https://evil.example/"></iframe>ok', "ok"),
        ('<span class="evil mention" id="x">@a</span>', '<span class="mention">@a</span>'),
        ('<span style="font-size:90px">big</span>', "<span>big</span>"),
        ("<div><h1>Title</h1><table><tr><td>cell</td></tr></table></div>", "Titlecell"),
    ],
)
def test_clean_html_removes_what_is_not_allowed(dirty, clean):
    assert clean_html(dirty) == clean


def test_nested_allowed_tags_are_kept():
    html = (
        "<blockquote><p><strong><em>both</em></strong> <del>gone</del> <s>s</s> <u>u</u></p>"
        "<ul><li><code>x</code></li><li><b><i>y</i></b></li></ul>"
        "<ol><li>one</li></ol><pre><code>a  b\n c</code></pre></blockquote>"
    )
    assert clean_html(html) == html


def test_clean_html_caps_its_input():
    assert len(clean_html("a" * (MAX_HTML * 2))) == MAX_HTML


def test_html_to_text_paragraphs_breaks_entities_and_dropped_tags():
    html = (
        "<p>  one\n  two  </p><p>three<br>four&nbsp;&lt;tag&gt;</p>"
        "<script>alert(1)</script><style>p{}</style><ul><li>a</li><li>b</li></ul>"
    )
    assert html_to_text(html) == "one two\n\nthree\nfour\xa0<tag>\n\na\nb"


def test_html_to_text_caps_its_result():
    assert len(html_to_text("<p>" + "word " * 5_000 + "</p>")) <= MAX_TEXT


def test_text_to_html_escapes_and_links():
    text = (
        "Hi <script>alert('x')</script> & see https://example.com/a?b=1&c=2.\n\n"
        "In parens (https://x.example/a_(b)) ok\nnext line"
    )
    assert text_to_html(text) == (
        "<p>Hi &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; see "
        '<a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">'
        "https://example.com/a?b=1&amp;c=2</a>.</p>"
        '<p>In parens (<a href="https://x.example/a_(b)" rel="nofollow noopener noreferrer">'
        "https://x.example/a_(b)</a>) ok<br>next line</p>"
    )


def test_text_to_html_links_only_http_urls():
    html = text_to_html('javascript:alert(1) ftp://x.example https://a.example/"onmouseover=x')
    assert html.count("<a ") == 1
    assert 'href="https://a.example/"' in html
    assert "onmouseover=x" in html  # as text, outside the attribute


def test_our_text_survives_the_round_trip():
    text = "First line\nsecond <b>line</b> https://example.com/x?y=1&z=2\n\nSecond paragraph"
    assert html_to_text(clean_html(text_to_html(text))) == text
