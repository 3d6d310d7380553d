"""reStructuredText inline markup to the text a reader of the built page sees, and the
vocabulary of directives (which are code, which show nothing, which carry a label).

Inline markup (one pass, left to right, so an inline literal's content is never read again):

- ``\\*`` (an escape) -> ``*``; ```` ``os.walk`` ```` (an inline literal) -> ``os.walk``;
- ``:func:`os.walk``` and ``:ref:`Title <label>``` (a role, Sphinx's or docutils') -> ``os.walk``
  and ``Title``; a leading ``~`` or ``!`` in the target goes (the full name stays: a reader
  asks for ``os.path.join`` and the passage should hold it whole); a name written with a
  placeholder (CMake's ``:genex:`$<TARGET_OBJECTS>``` and ``CMAKE_<LANG>_FLAGS_<CONFIG>``) is
  shown whole, not as a title and its target;
- ```PyPI <https://pypi.org/>`_`` and ```PyPI`_`` and ``PyPI_`` (references) -> ``PyPI``;
- ``*text*``, ``**text**`` -> ``text``; ``|name|`` (a substitution) -> ``name``;
- ``[1]_``, ``[#note]_``, ``[CIT2002]_`` (footnote and citation references) -> nothing.

Markup may span lines (a role's text wrapped onto the next line): the text of a block is
cleaned whole and split again, a match that swallowed a newline giving it back, so every line
keeps its number.
"""

from __future__ import annotations

import re

from docqa.text.documents import Line

# docutils' inline-markup recognition rules, in short: a start-string follows the start of the
# text, whitespace or opening punctuation, and is followed by a non-space; an end-string follows
# a non-space and is followed by the end, whitespace or closing punctuation
# (``CMAKE_<LANG>_FLAGS`` holds no reference: ``<`` closes nothing).
_BEFORE = r"(?<![^\s\-:/'\"<(\[{‘“«‹–—])"
_AFTER = r"(?=[\s\-.,:;!?\\/'\")\]}>’”»›…–—]|$)"
_INLINE = re.compile(
    r"\\(?P<esc>.)"
    rf"|{_BEFORE}``(?P<literal>\S(?:.*?\S)??)``{_AFTER}"
    rf"|{_BEFORE}(?::(?P<role>[\w.+:-]+):)?`(?P<text>[^`\s](?:[^`]*?[^`\s])??)`"
    rf"(?::[\w.+:-]+:|__?)?{_AFTER}"
    rf"|{_BEFORE}\*\*(?P<strong>[^\s*](?:.*?[^\s*])??)\*\*{_AFTER}"
    rf"|{_BEFORE}\*(?P<em>[^\s*](?:[^*]*?[^\s*])??)\*{_AFTER}"
    rf"|{_BEFORE}\|(?P<sub>[^|\s](?:[^|]*?[^|\s])??)\|(?:__?)?{_AFTER}"
    r"|\s?\[(?:\d+|\#[\w-]*|\*|[A-Za-z][\w.-]*)\]_(?!\w)"
    rf"|{_BEFORE}(?P<name>[A-Za-z0-9](?:[\w.+-]*[A-Za-z0-9])?)__?{_AFTER}",
    re.DOTALL,
)
# ``Title <target>`` inside a role or a reference: the title is shown, the target is not; an
# escaped ``\<`` begins no target, and the text's escapes are read (``\$`` shows ``$``).
# docutils wants a space before the ``<``; Sphinx's roles also take ``title<target>``, but a
# title ending in ``_`` or ``$`` or holding a ``<`` of its own is a name written with a
# placeholder (CMake's ``CMAKE_<LANG>_FLAGS_<CONFIG>``, ``$<TARGET_OBJECTS>``), shown whole as
# CMake's own Sphinx extension shows it.
_NUMBERED_ROLES = {"pep": "PEP", "rfc": "RFC"}
_EMBEDDED = re.compile(r"(?P<title>.*?)\s*(?<!\\)<(?P<target>[^<>]+)>", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)
_TITLE_END = re.compile(r"[^\s<>_$]")


def _shown(m: re.Match[str]) -> str:
    """What one match of ``_INLINE`` shows."""
    kind = m.lastgroup
    if kind is None:  # a footnote or citation reference
        return ""
    value = m.group(kind)
    if kind in ("strong", "em"):  # docutils nests no markup; a reader still sees none
        return inline_text(value)
    if kind == "text":  # a role's or a reference's text
        return role_text(m.group("role"), value, escapes=True)
    return value


def role_text(role: str | None, value: str, *, escapes: bool = False) -> str:
    """What a role (``:ref:`Title <label>```; MyST's ``{ref}`Title <label>```) or, with
    ``role`` None, a reference shows of its text ``value``; ``escapes``: its backslashes
    escape (reStructuredText's, not MyST's: a Markdown code span keeps them)."""
    embedded = _EMBEDDED.fullmatch(value)
    if embedded is not None and _embeds(embedded):
        value = embedded.group("title") or embedded.group("target")
    if escapes:
        value = _ESCAPED.sub(lambda e: "" if e.group(1).isspace() else e.group(1), value)
    if role is not None:
        value = value.lstrip("~!")
        if role in _NUMBERED_ROLES:  # :pep:`427` shows "PEP 427"
            value = f"{_NUMBERED_ROLES[role]} {value}"
    return value


def _embeds(m: re.Match[str]) -> bool:
    """Whether ``m`` (of ``_EMBEDDED``) is a title and its target rather than one name with a
    placeholder: a space before the ``<``, no title at all, or a title ending in a letter,
    digit or bracket that holds no ``<`` (see ``_EMBEDDED``)."""
    title, space = m.group("title"), m.start("target") - 1 > m.end("title")
    return space or not title or (_TITLE_END.fullmatch(title[-1]) is not None and "<" not in title)


def _replace(m: re.Match[str]) -> str:
    """``_shown``, plus the newlines the match swallowed (so lines keep their numbers)."""
    out = _shown(m)
    if m.lastgroup == "esc" and out in " \n":
        out = out.strip(" ")  # an escaped space is nothing; an escaped newline stays one
    lost = m.group(0).count("\n") - out.count("\n")
    # before the text: what follows the match joins the text's line with no space between
    return "\n" * lost + out if lost > 0 else out


def inline_text(text: str) -> str:
    """``text`` (one or more lines) with its inline markup read (module doc); newlines kept."""
    if not any(c in text for c in "\\`*|_["):
        return text
    return _INLINE.sub(_replace, text)


def inline_lines(lines: list[tuple[int, str]]) -> tuple[Line, ...]:
    """A block's ``(number, text)`` lines, markup read and whitespace collapsed, as ``Line``s;
    lines left empty (a footnote reference alone) are dropped."""
    cleaned = inline_text("\n".join(text for _, text in lines)).split("\n")
    out = (Line(number, " ".join(text.split())) for (number, _), text in zip(lines, cleaned))
    return tuple(line for line in out if line.text)


# Directives, by name without a domain (``py:function`` is ``function``). The body of a code
# directive is a literal block; the arguments of one are its language, not shown.
CODE = frozenset(
    {
        "code",
        "code-block",
        "sourcecode",
        "doctest",
        "testcode",
        "testoutput",
        "testsetup",
        "testcleanup",
        "parsed-literal",
        "productionlist",
        "math",
        "prompt",
    }
)
# Directives that show nothing of their own text (tables of contents, images, other files,
# settings for the rest of the page).
SILENT = frozenset(
    {
        "toctree",
        "image",
        "include",
        "literalinclude",
        "raw",
        "highlight",
        "index",
        "meta",
        "contents",
        "sectnum",
        "section-numbering",
        "default-role",
        "default-domain",
        "role",
        "currentmodule",
        "tabularcolumns",
        "title",
        "header",
        "footer",
        "target-notes",
        "graphviz",
        "inheritance-diagram",
        "uml",
        "mermaid",
    }
)
# Directives whose arguments only select (a build, a format, a style): the body is shown, the
# arguments are not.
HIDDEN_ARGUMENTS = frozenset(
    {"only", "ifconfig", "container", "class", "rst-class", "cssclass", "figure", "compound"}
)
# Admonitions take no arguments: text after ``.. note::`` is the first line of the body.
ADMONITIONS = frozenset(
    {"note", "warning", "tip", "hint", "important", "caution", "danger", "error", "attention"}
    | {"seealso", "todo"}
)
# The label a directive is shown under, before its arguments: ``.. versionadded:: 3.2`` reads
# "Added in version 3.2" on the built page, ``.. note::`` "Note".
LABELS = {
    "note": "Note",
    "warning": "Warning",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "caution": "Caution",
    "danger": "Danger",
    "error": "Error",
    "attention": "Attention",
    "seealso": "See also",
    "todo": "To do",
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "deprecated-removed": "Deprecated since version",
}
