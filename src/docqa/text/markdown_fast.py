"""Markdown to headings and blocks with md4c, or pyromark (pulldown-cmark): the fast path.

The spec is :mod:`docqa.text.markdown` (markdown-it-py); this module gives the same headings
and blocks, tested equal on the golden files, the sample library, generated documents and
real documentation. Chosen by measurement (``benchmarks/bench_parsers.py``): md4c's callbacks
walked natively parse ~35 CPU MB/s, pyromark's event stream with source ranges ~15,
markdown-it-py ~1.

How the two are made to agree:

- the text is normalised as markdown-it does first (``\\r\\n`` and ``\\r`` to ``\\n``, NUL
  to U+FFFD), so line numbers mean the same thing;
- front matter is recognised by the rule of ``mdit_py_plugins.front_matter`` (ported in
  ``split_front_matter``) and blanked out line for line before parsing;
- a block's first line is the line of its first event's start (ranges are UTF-8 byte
  offsets); inside it, as in ``markdown.inline_lines``, the line advances at each soft or
  hard break and at each newline inside inline HTML;
- text directly inside a list item (a tight list has no paragraph events) is a paragraph,
  ended by the next block-level event.

Two native walks give these rules. ``docqa._md4c`` (md4c 0.4.8, compiled into every build;
wrapped by ``docqa.text.markdown_md4c``) walks md4c's C callbacks (pointers into the UTF-8
text, no Python object per event; md4c gives no block offsets, so a block's first line comes
from its first text in the source, less the breaks before it). It hands a document back where
those lines are not sure (an empty ATX heading, a table of empty cells, an empty link before a
paragraph's first text, ...) or where md4c 0.4.8 reads the text otherwise than markdown-it;
the second walk, ``docqa._parse.walk_markdown`` over pyromark's events, parses those (and
every document in an install without ``docqa._md4c``). Both are tested equal to the spec.
"""

from __future__ import annotations

import re
from typing import Any

from docqa.text.documents import Block, Heading
from docqa.text.frontmatter import front_matter_mapping

_NEWLINES = re.compile(r"\r\n?")


def split_front_matter(text: str) -> tuple[str | None, str]:
    """``(front matter text or None, the text with the front matter lines blanked)``."""
    if not text.startswith("---"):
        return None, text
    lines = text.split("\n")
    marks = len(lines[0]) - len(lines[0].lstrip("-"))
    for j in range(1, len(lines)):
        line = lines[j]
        body = line.lstrip(" \t")
        indent = len(line) - len(body)
        if indent == 0 and body.startswith("...") and not body[3:].strip(" "):
            break
        if indent < 4 and body.startswith("-"):
            dashes = len(body) - len(body.lstrip("-"))
            if dashes >= marks and not body[dashes:].strip(" \t"):
                break
    else:
        return None, text
    return "\n".join(lines[1:j]), "\n" * (j + 1) + "\n".join(lines[j + 1 :])


def walk_pyromark(text: str) -> list[Heading | Block]:
    """Headings and blocks of ``text`` (normalised, front matter blanked) via pyromark."""
    import pyromark

    from docqa._parse import walk_markdown
    from docqa.text.html import html_fragment_blocks

    events = pyromark.events_with_range(text, options=pyromark.Options.ENABLE_TABLES)
    found: list[Heading | Block] | None = walk_markdown(
        events, text.encode("utf-8"), html_fragment_blocks
    )
    if found is None:  # a text pulldown-cmark reads otherwise: the spec's parser, slower
        from docqa.text.markdown import parse_markdown

        return parse_markdown(text)[1]
    return found


def _walk(text: str) -> list[Heading | Block]:
    from docqa.text.markdown_md4c import walk_md4c

    found = walk_md4c(text)
    return walk_pyromark(text) if found is None else found


def parse_markdown_fast(text: str) -> tuple[dict[str, Any], list[Heading | Block]]:
    """``docqa.text.markdown.parse_markdown``, faster: ``(front matter, headings and blocks)``.

    Raises ``InputError`` when the front matter is not a valid YAML mapping.
    """
    text = _NEWLINES.sub("\n", text).replace("\0", "\ufffd")
    matter, body = split_front_matter(text)
    metadata = front_matter_mapping(matter) if matter is not None else {}
    return metadata, _walk(body)
