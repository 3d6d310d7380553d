"""AsciiDoc inline markup to the text a reader of the built page sees.

One pass, left to right (a passthrough's or a monospace span's content is never read again),
after attribute references are replaced:

- ``{name}`` (an attribute reference) -> its value when the file defines it (``:name: value``)
  or it is one of AsciiDoc's built-in character attributes (``{nbsp}``, ``{caret}``,
  ``{startsb}`` ...); otherwise it stays as written, as Asciidoctor leaves a missing one;
- ``link:url[text]``, ``https://host/path[text]``, ``mailto:addr[text]`` -> ``text`` (the
  address when the text is empty); a bare URL stays;
- ``xref:page.adoc#id[text]`` and ``<<id,text>>`` -> ``text``; ``<<id>>`` -> the title of the
  section it names when the file has it, else ``[id]`` (as Asciidoctor shows it);
- ``linkgit:git-commit[1]`` (git's manual pages) -> ``git-commit(1)``;
- ``kbd:[Ctrl+T]``, ``btn:[Save]``, ``footnote:[text]``, ``pass:[text]``, ``stem:[x]``,
  ``((term))`` -> their text; ``menu:File[Save]`` -> ``File > Save``; ``image:x.png[alt]``
  -> ``alt``; anchors (``[[id]]``, ``anchor:id[]``) and hidden index terms
  (``(((a, b)))``, ``indexterm:[...]``) -> nothing;
- ``*strong*``, ``_emphasis_``, ``#mark#``, `` `monospace` ``, ``+passthrough+`` (and the
  doubled, unconstrained forms, with or without a ``[.role]`` before them) -> their text;
  the older AsciiDoc's quotes (````text''``, git's manual pages) -> ``text``;
- ``\\*`` (an escape before markup) -> ``*``; `` +`` at the end of a line (a hard break)
  -> nothing.

Markup may span lines; each line keeps its number, as in ``docqa.text.rst_inline``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from docqa.text.documents import Line

# Asciidoctor's built-in attributes that stand for a character (its ``INTRINSIC_ATTRIBUTES``)
BUILT_IN = {
    "startsb": "[",
    "endsb": "]",
    "vbar": "|",
    "caret": "^",
    "asterisk": "*",
    "tilde": "~",
    "plus": "+",
    "backslash": "\\",
    "backtick": "`",
    "blank": "",
    "empty": "",
    "sp": " ",
    "two-colons": "::",
    "two-semicolons": ";;",
    "nbsp": "\u00a0",
    "deg": "°",
    "zwsp": "\u200b",
    "apos": "'",
    "quot": '"',
    "lsquo": "‘",
    "rsquo": "’",
    "ldquo": "“",
    "rdquo": "”",
    "wj": "\u2060",
    "brvbar": "¦",
    "pp": "++",
    "cpp": "C++",
    "amp": "&",
    "lt": "<",
    "gt": ">",
}
_ATTRIBUTE = re.compile(r"(\\)?\{(\w[\w-]*)\}")
# a constrained span starts after the start, a space or punctuation other than ``; : }`` and
# ends before a character that is not a word character (Asciidoctor's ``QUOTE_SUBS``)
_BEFORE = r"(?<![\w;:}\\])"
# every span is bounded (``{0,1000}``): a long line of unclosed marks (``*a *a *a ...``) is
# then read in linear time, where an unbounded lazy span would rescan the rest of the text
# from each mark; no real span of markup is this long
_ROLE = r"(?:\[[^\]\n]{0,100}\])?"
_INLINE = re.compile(
    r"\\(?P<esc>[*_`#+\[{<\\])"
    r"|pass:[a-z,]*\[(?P<passmacro>.{0,1000}?)\]"
    r"|(?P<pmark>\+\+\+|\+\+|\$\$)(?P<pass>.{1,1000}?)(?P=pmark)"
    rf"|{_BEFORE}``(?P<quoted>[^`\s](?:.{{0,1000}}?[^`\s])?)''(?!\w)"
    rf"|{_BEFORE}{_ROLE}``(?P<mono2>.{{1,1000}}?)``"
    rf"|{_BEFORE}{_ROLE}`(?P<mono>[^`\s](?:[^`]{{0,1000}}?[^`\s])?)`(?![\w\"'`])"
    rf"|{_BEFORE}\+(?P<plus>[^+\s](?:[^+]{{0,1000}}?[^+\s])?)\+(?!\w)"
    r"|(?P<macro>link|mailto|xref|linkgit|kbd|btn|footnote|footnoteref|stem|latexmath|asciimath"
    r"|image|icon|menu|anchor|indexterm2?):(?P<target>[^\s\[]{0,1000})"
    r"\[(?P<text>(?:\\\]|[^\]]){0,1000})\]"
    r"|(?P<url>(?:https?|ftp|irc|file)://[^\s\[\]<]{0,1000}[^\s.,\[\]<])"
    r"(?:\[(?P<urltext>(?:\\\]|[^\]]){0,1000})\])?"
    r"|<<(?P<xref>[\w#/.:{-][^,>]{0,200}?)(?:,\s*(?P<xreftext>[^>]{1,1000}?))?>>"
    r"|\[\[\[(?P<biblio>[\w:][\w:.-]{0,200})(?:,[^\]]{0,200})?\]\]\]"
    r"|(?P<anchor>\[\[[A-Za-z_:][\w:.-]{0,200}(?:,[^\]]{0,200})?\]\])"
    r"|(?P<hidden>\(\(\(.{1,1000}?\)\)\))"
    r"|\(\((?P<term>.{1,1000}?)\)\)"
    rf"|{_ROLE}(?P<umark>\*\*|__|##)(?P<unconstrained>.{{1,1000}}?)(?P=umark)"
    rf"|{_BEFORE}{_ROLE}(?P<cmark>[*_#])(?P<constrained>[^\s*_#](?:.{{0,1000}}?[^\s])?)"
    r"(?P=cmark)(?!\w)"
    r"|[ \t]\+$",
    re.DOTALL | re.MULTILINE,
)
_EXPANDING = frozenset({"unconstrained", "constrained", "quoted", "term"})


def substitute(text: str, attributes: Mapping[str, str]) -> str:
    """``text`` with its attribute references replaced (module doc); ``\\{name}`` stays as
    ``{name}``."""
    if "{" not in text:
        return text

    def value(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(0)[1:]
        name = m.group(2).lower()
        found = attributes.get(name, BUILT_IN.get(name))
        return m.group(0) if found is None else found

    return _ATTRIBUTE.sub(value, text)


def _macro(m: re.Match[str], titles: Mapping[str, str]) -> str:
    """What an inline macro (``name:target[text]``) shows."""
    name, target, text = m.group("macro"), m.group("target"), m.group("text")
    text = text.replace("\\]", "]")
    if name == "linkgit":
        return f"{target}({text})"
    if name in ("anchor", "indexterm"):
        return ""
    if name == "footnoteref":  # footnoteref:[id,text]; footnoteref:[id] repeats a note's mark
        return text.partition(",")[2]
    if name == "menu":
        return " > ".join([target, *(p.strip() for p in text.split(">") if p.strip())])
    if name in ("image", "icon"):
        return text.split(",")[0].strip()
    if name == "xref":
        return text or titles.get(target.rpartition("#")[2], target)
    if name in ("link", "mailto"):
        return text.split(",")[0] if text else target
    return text


def _shown(m: re.Match[str], titles: Mapping[str, str]) -> str:
    """What one match of ``_INLINE`` shows (``titles``: the file's section titles by id)."""
    kind = m.lastgroup
    if kind is None or kind in ("anchor", "hidden"):
        return ""
    if m.group("macro") is not None:
        return inline_text(_macro(m, titles), titles)
    if kind in ("url", "urltext"):  # a bare address is shown as written
        text = m.group("urltext")
        return inline_text(text, titles) if text else m.group("url")
    if m.group("xref") is not None:
        target = m.group("xref")
        text = m.group("xreftext")
        if text:
            return inline_text(text, titles)
        return titles.get(target.lstrip("#"), f"[{target}]")
    if kind == "biblio":
        return f"[{m.group(kind)}]"
    value = m.group(kind)
    if kind in _EXPANDING:
        return inline_text(value, titles)
    return value


def inline_text(text: str, titles: Mapping[str, str] | None = None) -> str:
    """``text`` (one or more lines) with its inline markup read (module doc), newlines kept;
    attribute references must already be replaced (``substitute``)."""
    if not any(c in text for c in "\\`*_#+[<(:$"):
        return text
    known = titles or {}

    def replace(m: re.Match[str]) -> str:
        out = _shown(m, known)
        lost = m.group(0).count("\n") - out.count("\n")
        return "\n" * lost + out if lost > 0 else out

    return _INLINE.sub(replace, text)


def inline_lines(
    lines: list[tuple[int, str]],
    attributes: Mapping[str, str],
    titles: Mapping[str, str] | None = None,
) -> tuple[Line, ...]:
    """A block's ``(number, text)`` lines, attributes replaced, markup read and whitespace
    collapsed, as ``Line``s; lines left empty are dropped."""
    joined = substitute("\n".join(text for _, text in lines), attributes)
    cleaned = inline_text(joined, titles).split("\n")
    out = (Line(number, " ".join(text.split())) for (number, _), text in zip(lines, cleaned))
    return tuple(line for line in out if line.text)


def section_id(title: str) -> str:
    """The id Asciidoctor gives a section by default: ``_`` and the title in lower case, its
    markup and punctuation dropped, spaces, ``.`` and ``-`` made ``_``."""
    plain = re.sub(r"<[^>]+>|&(?:[a-z]+\d{0,2}|#\d+|#x[\da-f]+);|[^\w .-]+", "", title.lower())
    return "_" + re.sub(r"[ .-]+", "_", plain).strip("_")
