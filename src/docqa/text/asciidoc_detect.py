"""Whether a ``.txt`` file is AsciiDoc: the source of a manual (git's manual pages and the
fragments they include ship as ``git-add.txt``, ``blame-options.txt``) rather than plain text.

A ``.adoc`` or ``.asciidoc`` file is AsciiDoc by its name; a ``.txt`` file only when its text
says so clearly, since a plain-text manual read as AsciiDoc would lose what AsciiDoc's syntax
means otherwise (a line of ``*`` or of ``-`` opens a block, ``_x_`` is emphasis). It is
AsciiDoc when it holds no reStructuredText (no ``.. directive::``, no ``.. _target:``) and

- one sign that only AsciiDoc writes: git's ``linkgit:git-add[1]``; a line
  ``include::file[]`` or ``ifdef::name[]`` / ``ifndef::`` / ``endif::``; a table
  (``|===`` opened and closed); a ``Content-type: text/asciidoc`` header (git's how-tos); a
  document title ``= Title`` first, with an attribute entry (``:toc:``) or an author line right
  under it, or ``== Section`` titles after it;
- or signs of three of these kinds: a block style (``[source,c]``, ``[verse]``, ``[NOTE]``,
  ``[cols="1,2"]``); an anchor or cross reference (``[[id]]``, ``<<id>>``); a listing or literal
  block (``----`` or ``....`` opened and closed, not underlining a title); a list
  continuation (``+`` alone, then text); two description-list terms (``--force::``);
  a macro with its text (``link:url[text]``, ``https://...[text]``, ``kbd:[...]``,
  ``footnote:[...]``, ``xref:``); an attribute entry (``:name: value``); a ``== Section``
  title; a comment block (``////``).

``benchmarks/quality/txt_formats.py`` counts what this claims among the text files of a folder.
"""

from __future__ import annotations

import re

from docqa.text.rst_detect import MARKUP

_STRONG = (
    re.compile(r"linkgit:[\w.-]+\[\d*\]"),
    re.compile(r"^(?:include|ifdef|ifndef|endif)::[^\[\s]*\[[^\]\n]*\]$", re.MULTILINE),
    re.compile(r"^\|===\n(?:.*\n)*?\|===$", re.MULTILINE),
    re.compile(
        r"\A(?:Content-type: text/asciidoc|(?:.+\n)+Content-type: text/asciidoc)$", re.MULTILINE
    ),
    re.compile(r"\A\s*= \S.*\n(?::[\w-]+:|[^\s:<][^\n<]*<[^\s>]+@[^\s>]+>)"),
    re.compile(r"\A\s*= \S.*\n(?:.*\n)*?== \S"),
)
_WEAK = (
    re.compile(
        r"^\[(?:source|verse|listing|literal|quote|example|sidebar|NOTE|TIP|IMPORTANT|WARNING"
        r"|CAUTION|cols=|options=|subs=|horizontal|discrete|appendix|glossary|bibliography)"
        r"[^\]\n]*\]$",
        re.MULTILINE,
    ),
    re.compile(r"^\[\[[\w:.-]+\]\]$|<<[\w:.#-]+(?:,[^>\n]+)?>>", re.MULTILINE),
    re.compile(r"(?:^|\n\n)(-{4,}|\.{4,})\n(?:.*\n)*?\1$", re.MULTILINE),
    re.compile(r"^\+\n\S", re.MULTILINE),
    re.compile(r"^[^\s].*::\n(?:.*\n)*?[^\s].*::$", re.MULTILINE),
    re.compile(
        r"(?:\b(?:link|xref|kbd|btn|footnote|mailto):[^\s\[]*|https?://[^\s\[]+)\[[^\]\n]{1,200}\]"
    ),
    re.compile(r"^:[\w-]+:(?: .*)?$", re.MULTILINE),
    re.compile(r"^={2,6} \S", re.MULTILINE),
    re.compile(r"^/{4,}$", re.MULTILINE),
)
WEAK_KINDS = 3


def looks_like_asciidoc(text: str) -> bool:
    """Whether ``text`` (a ``.txt`` file's) is AsciiDoc (module doc)."""
    if MARKUP.search(text):
        return False
    if any(sign.search(text) for sign in _STRONG):
        return True
    return sum(1 for sign in _WEAK if sign.search(text)) >= WEAK_KINDS
