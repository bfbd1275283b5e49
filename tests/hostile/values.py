"""Hostile values, as hypothesis strategies.

A value is a `str`, sent UTF-8 encoded (lone surrogates become the invalid
bytes they stand for, as a broken client would send them), or a `Raw`: text
that goes into the query string or body as it is, for percent escapes that
are not UTF-8 ("%ff%fe", the overlong "%c0%af") and malformed escapes ("%zz").
"""

import base64
import struct
import zlib
from urllib.parse import quote

from hypothesis import strategies as st

OID = "5f2b6c1e9d3a4b7c8e0f1a2b"
TEN_K = 10_000


class Raw(str):
    """Already percent-encoded: goes onto the wire untouched."""


def encode(value: str, safe: str = "") -> str:
    """`value` percent-encoded for a URL or form body; a Raw as it is."""
    if isinstance(value, Raw):
        return str(value)
    return quote(value.encode("utf-8", "surrogatepass"), safe=safe)


def join(first: str, second: str) -> str:
    """`first + second`, keeping a Raw part raw."""
    if isinstance(first, Raw) or isinstance(second, Raw):
        return Raw(encode(first) + encode(second))
    return first + second


RAW_ESCAPES = [
    Raw("%ff%fe"),
    Raw("%c0%af"),
    Raw("%ed%a0%80"),  # an encoded surrogate
    Raw("%e2%82"),  # a truncated sequence
    Raw("%00"),
    Raw("%"),
    Raw("%zz"),
    Raw("%2"),
    Raw("a%ffb"),
    Raw("%f4%90%80%80"),  # past U+10FFFF
]

UNICODE_DIGITS = ["²", "٣", "𝟘", "１２", "١٢٣", "⑦", "Ⅻ", "৪২"]
NUMBERS = [
    "9" * 30,
    "9" * 4301,  # past int()'s default digit limit
    "-1",
    "-0",
    "+5",
    "0",
    " 7 ",
    "1e309",
    "nan",
    "inf",
    "-99999999999999999999",
    "0x1f",
    "1_000",
    "3.14",
    "2147483648",
    "9223372036854775808",
]
INJECTIONS = [
    "\x00",
    "a\x00b",
    "$gt",
    "$where",
    "$ne",
    '{"$ne": null}',
    '{"$gt": ""}',
    "[$ne]",
    "this.password.match(/.*/)",
    "<script>alert(1)</script>",
    "'\"><img src=x onerror=alert(1)>",
    "../../../etc/passwd",
    "//evil.example/",
    "/\\evil.example",
    "javascript:alert(1)",
    "http://[::1",
    "http://[::1]:80/",
    "https://",
    "http://%",
    "mailto:x@y",
    "\r\nSet-Cookie: x=1",
    "null",
    "None",
    "true",
    "[]",
    "{}",
    "",
    " ",
    "\t\n",
]
ODD_TEXT = [
    "\u202eevil\u202c",  # RTL override
    "\u200b\u200d\ufeff",
    "\ud800",  # lone surrogates
    "a\udfffb",
    "\U0010ffff",
    "\ufffd",
    "K",  # the Kelvin sign
    "ſam",
    "İstanbul",
    "ß" * 40,
    "é",  # combining accent
    "🙂" * 50,
]
LONG = ["x" * TEN_K, "9" * TEN_K, "²" * TEN_K, "/".join(["ab"] * 3000), "a\n" * 5000]


# Timeline cursors are "<milliseconds>_<post id>" (timelines/stores/base.py).
# The first five can only be refused: int() cannot read "²", a datetime ends
# in year 9999.
TIMELINE_CURSORS = [
    f"999999999999999_{OID}",
    f"99999999999999999999_{OID}",
    f"²_{OID}",
    f"2²_{OID}",
    f"{'9' * 5000}_{OID}",
    f"٣_{OID}",
    f"-1_{OID}",
    f"0_{OID}",
    f"1_{OID}x",
    "1_zz",
    "1_",
    "_",
    f"1_{OID}_2",
]


def comment_cursor(kind: str, value: str) -> str:
    """A comment page cursor as comments/stores/cursors.py makes them:
    urlsafe base64 of "<kind>|<value>", unpadded."""
    return base64.urlsafe_b64encode(f"{kind}|{value}".encode()).decode().rstrip("=")


# The first seven can only be refused: a chronological ("c") cursor with a
# time past year 9999, before year 1 or in unicode digits, and offset ("o")
# cursors in unicode digits or past an int32.
COMMENT_CURSORS = [
    comment_cursor("c", f"99999999999999999999|{OID}"),
    comment_cursor("c", f"999999999999999|{OID}"),
    comment_cursor("c", f"-99999999999999999|{OID}"),
    comment_cursor("c", f"²|{OID}"),
    comment_cursor("c", f"{'9' * 5000}|{OID}"),
    comment_cursor("o", "²"),
    comment_cursor("o", "9" * 30),
    comment_cursor("c", f"٣٣|{OID}"),
    comment_cursor("c", f"1|{OID[:-1]}"),
    comment_cursor("c", "1"),
    comment_cursor("c", ""),
    comment_cursor("o", "-1"),
    comment_cursor("t", ""),
    comment_cursor("t", "\x00"),
    comment_cursor("t", "x" * 3000),
    comment_cursor("z", "1"),
    "!!!",
    "=",
    "Yw",
]


def message_cursor(value: str, kind: str = "m") -> str:
    """A conversation page cursor as messaging/selectors.py makes them:
    urlsafe base64 of "m|<bucket>.<index>", unpadded."""
    return comment_cursor(kind, value)


# The first six can only be refused: a bucket past nine digits, digits that
# are not ASCII, a negative index, a cursor past 40 characters, bytes that are
# not UTF-8, another page's cursor. The rest are well formed and point past
# anything stored (a bucket a page's `$lte` / `$gte` must not choke on).
MESSAGE_CURSORS = [
    message_cursor("9999999999.0"),
    message_cursor("².٣"),
    message_cursor("0.-1"),
    message_cursor("1." + "9" * 40),
    base64.urlsafe_b64encode(b"m|\xff\xfe.1").decode().rstrip("="),
    comment_cursor("c", f"1|{OID}"),
    message_cursor("999999999.999999999"),
    message_cursor("0.0"),
    message_cursor(""),
    message_cursor("1.1", kind=""),
    "!!!",
    "=",
    "bQ",
]


HOSTILE_SAMPLES: list[str] = (
    UNICODE_DIGITS
    + NUMBERS
    + INJECTIONS
    + ODD_TEXT
    + LONG
    + RAW_ESCAPES
    + TIMELINE_CURSORS
    + COMMENT_CURSORS
    + MESSAGE_CURSORS
)


def _png_claiming(width: int, height: int) -> Raw:
    """A PNG header that claims a huge image: a decoder that trusts it
    allocates gigabytes (a decompression bomb)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
    return Raw(quote(raw + chunk(b"IEND", b""), safe=""))


# The values most likely to break a parameter of each kind: swept one by one
# through every field of that kind (tests/test_hostile_input.py), and drawn
# more often than the general ones by hypothesis.
KIND_SAMPLES: dict[str, list[str]] = {
    "timeline_cursor": [*TIMELINE_CURSORS[:5], "1_zz", Raw("%ff%fe_1")],
    "comment_cursor": COMMENT_CURSORS[:7],
    # The inbox pages on (ts, _id) as a timeline does.
    "inbox_cursor": [*TIMELINE_CURSORS[:5], "1_zz", Raw("%ff%fe_1")],
    "message_cursor": [*MESSAGE_CURSORS[:7], Raw("%ff%fe")],
    "skip": ["²", "٣", "9" * 30, "9" * 5000, "-1"],
    "duration": ["²", "٣", "9" * 400, "86400.0", "-300", "1e309", "nan"],
    "number": ["²", "٣", "9" * 400, "1e309", "nan", "-inf"],
    "handle": ["²²²", "ſam", "\u212aelvin", "alice\x00", "a" * TEN_K, "$where"],
    "post_id": ["٠" * 24, "²" * 24, OID.upper(), OID + "\x00", "9" * 30],
    "tag": ["٣", "#bread", "a b", "x" * 65, "ſ", "\u212a", "_", "bread\x00"],
    "export_id": ["٠" * 24, OID.upper(), OID + "\x00", "$ne"],
    "filter_id": ["٠" * 24, OID.upper(), OID + "\x00", "$ne", "x" * 10_000],
    "filter_context": ["HOME", "home\x00", "$in", "x" * 10_000],
    "filter_action": ["HIDE", "hide\x00", "$ne"],
    "filter_expires": ["1y", "-1d", "²d", "never\x00"],
    "thread_post_id": ["٠" * 24, "²" * 24],
    "conversation_id": ["٠" * 24, "²" * 24, OID.upper(), OID + "\x00", "9" * 30, "$ne"],
    "messages_from": ["EVERYONE", "nobody\x00", "$ne", "x" * TEN_K],
    "own_post_id": ["٠" * 24, "9" * 30],
    "poll_post_id": ["٠" * 24],
    "photo_post_id": ["٠" * 24],
    "slug": ["²", "a" * 2000, "ab/" * 400, "..", "ab//cd", Raw("ab%ffcd")],
    "url": [
        "http://[::1",
        "https://[::1/x",
        "http://[",
        "http://" + "a" * 3000,
        "http://١٢٣.com",
        "http://example.org:99999999",
        "javascript:alert(1)",
    ],
    "website": ["http://[::1", "https://[", "http://" + "a" * 300, "javascript:alert(1)"],
    "password": [
        "alice",
        "Alice Liddell",
        "alicealice1",
        "liddell!",
        "a" * TEN_K,
        "\x00" * 8,
        "\ud800" * 8,
    ],
    "text": [
        "\x00",
        "x" * TEN_K,
        "\ud800",
        "\u202e" * 10,
        Raw("%ff%fe"),
        "@alice @ſam @\u212aelvin @" + "x" * 40 + " @² @",  # mentions that must not link
        "@" * 5000,
    ],
    "circle_name": ["public", "*circles*", "FRIENDS", "a.b", "$x", "x" * 31, "\x00", "\u202e"],
    "short": ["\x00", "\u202e\u200b", "x" * TEN_K, "\ud800", Raw("%c0%af")],
    "circle": ["\x00", "$ne", "x" * TEN_K, "*circles*\x00"],
    "target": [
        f"post:{'٠' * 24}",
        "post:²",
        f"comment:{OID}/²",
        f"comment:{OID}/" + "ab/" * 400,
        "user:ſam",
        "user:" + "a" * TEN_K,
        f"post:{OID}:x",
        ":",
    ],
    "date": ["9999-12-31", "0000-01-01", "2030-02-30", "²٠٣٠-01-01", "99999-01-01", "\x00"],
    "next": [
        "//evil.example",
        "/\\evil.example",
        "/" + "a" * 20_000,
        "http://[::1",
        "/\r\nSet-Cookie: x=1",
        Raw("/%ff%fe"),
    ],
    "order": ["²", "oldest\x00", "threaded" * 1000],
    "options": ["a\n" * 5000, "\x00\n\x00", "²\n٣", "\ud800\nb"],
    "photo": [_png_claiming(100_000, 100_000), _png_claiming(0, 0), Raw("GIF89a%00%00"), ""],
    "role": ["superuser", "$ne", "\x00"],
    "mod_status": ["\x00", "$ne"],
    "mod_type": ["\x00", "$ne"],
    "mod_reason": ["\x00", "$ne"],
    "post_type": ["\x00", "$ne", "photo\x00"],
    "circle_action": ["\x00", "$ne"],
    "mod_action": ["\x00", "$ne"],
    "bulk_action": ["\x00", "$ne"],
    "log_action": ["\x00", "$ne", "x" * TEN_K],
}


# Any code point, surrogates included; short, since the fixed samples carry
# the long ones.
any_text = st.text(alphabet=st.characters(codec=None), max_size=24)


def hostile(kind: str = "") -> st.SearchStrategy[str]:
    samples = st.sampled_from(HOSTILE_SAMPLES)
    mixed = st.builds(join, samples, samples).filter(lambda v: len(v) < 3 * TEN_K)
    general = st.one_of(samples, mixed, any_text, st.integers().map(str))
    if kind in KIND_SAMPLES:
        return st.one_of(st.sampled_from(KIND_SAMPLES[kind]), general)
    return general


def value_for(valid: list[str], kind: str = "") -> st.SearchStrategy[str]:
    """Mostly hostile (often shaped for the kind); sometimes valid, so that
    the next field is reached; sometimes valid with hostile garnish."""
    if not valid:
        return hostile(kind)
    good = st.sampled_from(valid)
    garnished = st.builds(join, good, st.sampled_from(HOSTILE_SAMPLES))
    return st.one_of(hostile(kind), good, garnished)


# How a known parameter is sent: left out, once, repeated, or under an
# operator-shaped key (`q[$ne]`, `q[]`), the PHP/Express style of injection.
KEY_SHAPES = ("absent", "once", "once", "repeated", "operator")
OPERATOR_KEYS = ("{name}[$ne]", "{name}[$gt]", "{name}[]", "{name}.$where", "$where", "{name}\x00")
