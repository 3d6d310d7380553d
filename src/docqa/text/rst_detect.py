"""Whether a ``.txt`` file is reStructuredText: a manual written in it and shipped under a
plain name (lighttpd's ``rewrite.txt``, Docutils' own ``docs/user/config.txt``) rather than
plain text.

Read as plain text such a file quotes its markup back: a title between two lines of ``=``,
``.. contents::``, ``:Author:`` fields, and every ``::`` before a code block, whose lines run
together into one sentence. It is reStructuredText when it holds

- markup only reStructuredText writes: a directive (``.. note::``, ``.. code-block:: c``), a
  hyperlink target (``.. _options:``) or a substitution definition (``.. |name| image::``),
- and a section title as reStructuredText adorns one: a line of text underlined (or over- and
  underlined) by one punctuation character repeated at least as long as the title,
- and no Markdown code fence naming its language (a line of three backticks and a word).

Each sign alone is common enough in plain text (510 of the 715 plain-text files Debian
installed on the machine this was measured on underline a title by hand), and Markdown can
show rst in a fenced block; all three together held, in that documentation, in lighttpd's 32
pages and 58 of Docutils' and in no other file (``benchmarks/quality/txt_formats.py --format
rst`` lists them). A file that is reStructuredText is never AsciiDoc
(``docqa.text.asciidoc_detect`` asks for none of this markup).
"""

from __future__ import annotations

import re

MARKUP = re.compile(r"^\.\. (?:[\w:-]+ ?::|_[^:\n]*:|\|[^|\n]+\| )", re.MULTILINE)
"""A directive, hyperlink target or substitution definition: markup only reStructuredText
writes at the start of a line (each within its line: a target or substitution left open
must not scan the rest of the text, once per such line)."""

# rst's adornment characters: the printable 7-bit characters that are no letter or digit
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1*")


def _has_title(text: str) -> bool:
    """Whether a line of text in ``text`` is underlined by one adornment character at least
    as long as the line is. The text starts with no space unless the same line stands over it
    too (an overlined title may be inset); a rule over another rule is no title."""
    lines = text.splitlines()
    for i in range(1, len(lines)):
        under, title = lines[i].rstrip(), lines[i - 1].rstrip()
        if not (_ADORNMENT.fullmatch(under) and title.strip()) or _ADORNMENT.fullmatch(title):
            continue
        inset = title[0].isspace()
        if len(under) >= len(title) and (not inset or (i > 1 and lines[i - 2].rstrip() == under)):
            return True
    return False


# a Markdown code fence naming its language (```` ```rst ````, ```` ```{toctree} ````): rst's
# literal blocks are indented, so a text fencing code this way is Markdown even when a fence
# shows rst (Black's ``index.md.txt``); a line of backticks alone underlines rst titles too
_FENCE = re.compile(r"^```+[^`\s]", re.MULTILINE)


def looks_like_rst(text: str) -> bool:
    """Whether ``text`` (a ``.txt`` file's) is reStructuredText (module doc)."""
    return MARKUP.search(text) is not None and not _FENCE.search(text) and _has_title(text)
