"""Characters that act instead of showing: escaped wherever document text leaves docqa as text.

A document (or a model echoing one) can hold terminal controls: ESC starting a CSI or OSC
sequence (colours, cursor moves, window titles, hyperlinks), BEL, backspace, a carriage return
that overwrites the line, C1 controls (``\\x9b`` is a one-byte CSI), and Unicode bidi controls
that reorder what is shown. :func:`escape_controls` writes each as a visible escape
(``\\x1b``, ``\\u202e``) so the text is shown, never obeyed. Newline and tab are kept
(``keep`` chooses), everything printable is left exactly as it was.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Bidirectional formatting characters (marks, embeddings, overrides, isolates)."""
ZERO_WIDTH = "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
"""Invisible characters that can split a word without showing (soft hyphen, ZWSP, ZWJ...)."""

_CONTROL = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{BIDI}\\u2028\\u2029]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str, keep: str = "\n\t") -> str:
    """``text`` with every control character except those in ``keep`` written as an escape."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: m[0] if m[0] in keep else _visible(m), text)
