"""Remote HTML in, our plain text out, and back.

A remote Note's `content` and an actor's `summary` are HTML written by a
server we do not control (ActivityStreams 2.0 §4 "content": HTML by
default). `clean_html` keeps only the markup Mastodon itself keeps (its
"Sanitize config" for remote statuses: paragraphs, line breaks, links,
inline emphasis, code, quotes, lists, and the span classes of its
microformats); `html_to_text` turns it into the plain text our posts store
(pages escape it when they render); `text_to_html` is the way back, for the
`content` of the Notes we send.
"""

import html as htmllib
import re
from html.parser import HTMLParser

import nh3

MAX_HTML = 100_000
MAX_TEXT = 5_000
LINK_REL = "nofollow noopener noreferrer ugc"

_TAGS = {
    "p", "br", "a", "span", "strong", "b", "em", "i", "u", "del", "s",
    "code", "pre", "blockquote", "ul", "ol", "li",
}  # fmt: skip
# Mastodon's link shortening (invisible/ellipsis) and microformats (h-card,
# mention, hashtag); any other class is dropped, and the span with no class left.
_SPAN_CLASSES = {"mention", "hashtag", "h-card", "invisible", "ellipsis"}
# Elements whose text is not content: dropped with everything inside.
_DROP_WITH_CONTENT = {
    "script", "style", "template", "noscript", "iframe", "object", "svg", "math",
    "title", "textarea", "select",
}  # fmt: skip

_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    clean_content_tags=_DROP_WITH_CONTENT,
    attributes={"a": {"href"}},
    url_schemes={"http", "https", "mailto"},
    # A relative link would point into our own site, not the author's.
    url_relative="deny",
    link_rel=LINK_REL,
    allowed_classes={"span": _SPAN_CLASSES},
)


def clean_html(html: str) -> str:
    """`html` with only our allowed tags, attributes and link schemes."""
    return _CLEANER.clean(html[:MAX_HTML])


_BLOCKS = {"p", "div", "blockquote", "pre", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6"}


class _TextWriter(HTMLParser):
    """Text of an HTML fragment: a blank line between blocks, a newline per
    <br> and list item, runs of whitespace outside <pre> made one space (as a
    browser shows them). Every text node is kept, Mastodon's "invisible"
    spans too: they hold the parts of a link's URL it hides on screen, so
    the link's text becomes the full URL again."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.dropping = 0
        self.pre = 0

    def _break(self, newlines: str) -> None:
        if self.parts:
            self.parts[-1] = self.parts[-1].rstrip(" ")
        self.parts.append(newlines)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _DROP_WITH_CONTENT:
            self.dropping += 1
        elif self.dropping:
            return
        elif tag in ("br", "li"):
            self._break("\n")
        elif tag in _BLOCKS:
            self._break("\n\n")
            if tag == "pre":
                self.pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP_WITH_CONTENT:
            self.dropping = max(0, self.dropping - 1)
        elif self.dropping:
            return
        elif tag in _BLOCKS:
            self._break("\n\n")
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.dropping:
            return
        if not self.pre:
            # HTML's whitespace only: a no-break space stays.
            data = re.sub(r"[ \t\n\r\f]+", " ", data)
            if not self.parts or self.parts[-1].endswith("\n"):
                data = data.lstrip(" ")
        if data:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """Plain text of remote HTML (not escaped: pages escape it)."""
    writer = _TextWriter()
    writer.feed(html[:MAX_HTML])
    writer.close()
    text = "".join(writer.parts)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()[:MAX_TEXT].rstrip()


# A URL runs to whitespace or a character that cannot be in one unescaped.
_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?'\""


def _url_end(url: str) -> str:
    """`url` without the sentence's punctuation after it (and without a
    closing parenthesis it did not open: "(see https://x.example/a)")."""
    while url and (url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))):
        url = url[:-1]
    return url


def _linked(line: str) -> str:
    out: list[str] = []
    last = 0
    for match in _URL.finditer(line):
        url = _url_end(match.group())
        if url.lower() in ("http://", "https://"):
            continue
        end = match.start() + len(url)
        out.append(htmllib.escape(line[last : match.start()]))
        safe = htmllib.escape(url)
        out.append(f'<a href="{safe}" rel="nofollow noopener noreferrer">{safe}</a>')
        last = end
    out.append(htmllib.escape(line[last:]))
    return "".join(out)


def text_to_html(text: str) -> str:
    """Our plain text as a Note's HTML `content`: escaped, a <p> per
    paragraph (blank-line separated), <br> for single newlines, http(s)
    URLs linked."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    paragraphs = [p.strip("\n") for p in re.split(r"\n[ \t]*\n\s*", text)]
    return "".join(
        "<p>" + "<br>".join(_linked(line) for line in p.split("\n")) + "</p>"
        for p in paragraphs
        if p.strip()
    )
