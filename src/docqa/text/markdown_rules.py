"""The few rules of markdown-it-py (docqa's Markdown spec) that the md4c walk asks about,
without importing markdown-it.

Importing any part of markdown-it runs its package's ``__init__``, i.e. the whole parser:
~0.08 s of CPU, which an update that parses a handful of files paid in full the first time
one of them held a table or an entity. These are markdown-it-py's own helpers, copied: the
table cell splitter (``rules_block.table.escapedSplit``), the entity table
(``common.entities``), the code point check (``common.utils.isValidEntityCode``) and the
inline HTML tag expression (``common.html_re.HTML_TAG_RE``); tests/text/test_markdown_rules.py
holds each equal to the installed markdown-it's.
"""

from __future__ import annotations

import re
from functools import cache


@cache
def entities() -> dict[str, str]:
    """HTML5's named character references, without their ``;`` (imported at the first
    entity met: ``html.entities`` is 1 ms of a ``docqa index`` that meets none)."""
    import html.entities

    return {name.rstrip(";"): chars for name, chars in html.entities.html5.items()}


def escaped_split(line: str) -> list[str]:
    """A table row's cells: split at each ``|`` not preceded by a backslash; ``\\|`` becomes
    ``|`` in its cell."""
    result: list[str] = []
    current, last, escaped = "", 0, False
    for pos, ch in enumerate(line):
        if ch == "|":
            if not escaped:
                result.append(current + line[last:pos])
                current, last = "", pos + 1
            else:
                current += line[last : pos - 1]
                last = pos
        escaped = ch == "\\"
    result.append(current + line[last:])
    return result


def valid_entity_code(c: int) -> bool:
    """Whether the code point of a numeric reference stands for itself (not a surrogate, a
    non-character, a control code or out of range)."""
    if 0xD800 <= c <= 0xDFFF or 0xFDD0 <= c <= 0xFDEF:
        return False
    if (c & 0xFFFF) in (0xFFFF, 0xFFFE):
        return False
    if 0x00 <= c <= 0x08 or c == 0x0B or 0x0E <= c <= 0x1F or 0x7F <= c <= 0x9F:
        return False
    return not c > 0x10FFFF


_ATTR_NAME = "[a-zA-Z_:][a-zA-Z0-9:._-]*"
_ATTR_VALUE = "(?:" + "[^\"'=<>`\\x00-\\x20]+" + "|" + "'[^']*'" + "|" + '"[^"]*"' + ")"
_ATTRIBUTE = "(?:\\s+" + _ATTR_NAME + "(?:\\s*=\\s*" + _ATTR_VALUE + ")?)"
_OPEN_TAG = "<[A-Za-z][A-Za-z0-9\\-]*" + _ATTRIBUTE + "*\\s*\\/?>"
_CLOSE_TAG = "<\\/[A-Za-z][A-Za-z0-9\\-]*\\s*>"
_COMMENT = "<!---?>|<!--(?:[^-]|-[^-]|--[^>])*-->"
_PROCESSING = "<[?][\\s\\S]*?[?]>"
_DECLARATION = "<![A-Za-z][^>]*>"
_CDATA = "<!\\[CDATA\\[[\\s\\S]*?\\]\\]>"
# applied with .match(text), which anchors at the start
HTML_TAG_RE = re.compile(
    f"(?:{_OPEN_TAG}|{_CLOSE_TAG}|{_COMMENT}|{_PROCESSING}|{_DECLARATION}|{_CDATA})"
)
