"""The literal prefix of a regex, and the strings it bounds.

A server bounds an index scan by a regex only when it is a case-sensitive
prefix (docs/performance.md#real-mongodb-semantics): `^ada` matches only
strings from "ada" up to "adb". planner.py and orders.py read such a regex
as that range; any other regex (unanchored, an alternation, the i, m or x
flag) bounds nothing and is left to the filter.
"""

import re

from bson.regex import Regex

# Characters that end a regex's literal prefix; a quantifier after it makes
# its last character optional.
_REGEX_META = frozenset(".[]()*+?{}|^$\\")
_OPTIONAL = frozenset("*?{")


def regex_prefix(pattern, options) -> str | None:
    """The literal text every match of `pattern` starts with, or None when
    the pattern is not anchored there (no `^`, an alternation, or a flag
    that lets `^` or the letters match otherwise: i, m, x)."""
    flags = options or ""
    if isinstance(pattern, (re.Pattern, Regex)):
        kept = pattern.flags
        flags += kept if isinstance(kept, str) else _letters(kept)
        pattern = pattern.pattern
    if not isinstance(pattern, str) or not isinstance(flags, str) or set(flags) & set("imx"):
        return None
    if not pattern.startswith("^") or "|" in pattern:
        return None
    try:
        re.compile(pattern)
    except re.error:
        return None  # the filter raises it, on whatever it is run on
    literal: list[str] = []
    at = 1
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            escaped = pattern[at + 1 : at + 2]
            if not escaped or escaped.isalnum():
                break  # a class (\d, \w), an anchor (\b) or a back reference
            literal.append(escaped)
            at += 2
            continue
        if char in _REGEX_META:
            break
        literal.append(char)
        at += 1
    if literal and pattern[at : at + 1] and pattern[at] in _OPTIONAL:
        literal.pop()
    return "".join(literal) or None


def _letters(flags: int) -> str:
    letters = {re.IGNORECASE: "i", re.MULTILINE: "m", re.VERBOSE: "x"}
    return "".join(letter for flag, letter in letters.items() if flags & flag)


def successor(prefix: str) -> str | None:
    """The least string above every string that starts with `prefix`, or
    None when there is none (it ends with the last code point)."""
    while prefix:
        following = ord(prefix[-1]) + 1
        if 0xD800 <= following <= 0xDFFF:  # surrogates: skip past them
            following = 0xE000
        if following <= 0x10FFFF:
            return prefix[:-1] + chr(following)
        prefix = prefix[:-1]
    return None
