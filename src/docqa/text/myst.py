"""MyST (Markdown for Sphinx) read as the page it builds: its roles and directives rewritten
into plain CommonMark, line for line, before the Markdown parser reads the text.

MyST writes reStructuredText's roles and directives in Markdown: ``{file}`requirements.txt```,
``{ref}`virtual environment <venv>```, and fences whose info string names a directive
(```` ```{note} ````). Read as plain Markdown, a reader of an answer saw
"{term}source distribution <Source Distribution (or "sdist")>", and a note's prose came out
as a code block. What becomes what (the vocabulary is reStructuredText's,
:mod:`docqa.text.rst_inline`, so a page reads the same in either syntax):

- a role -> a code span of the text its page shows (``requirements.txt``, "virtual
  environment"), outside code spans and code blocks only;
- an admonition or version directive (``{note}``, ``{versionadded} 22.1``) -> its label line
  ("Note:", "Added in version 22.1:") and its body, read as Markdown; a container
  (``{admonition} Title``, ``{tab-item} Linux``, ``{dropdown}``: :data:`_CONTAINERS`) -> its
  title and its body; a directive that only selects (``{only}``, ``{container}``) -> its body;
- a code directive (``{code-block} python``) -> a code fence; its options dropped;
- a directive that shows nothing of its own (``{toctree}``, ``{image}``) -> nothing;
- a target line (``(label)=``) and a comment line (``% ...``) -> nothing;
- any other directive (a project's own, such as pip's ``{pip-cli}``, or ``{eval-rst}``) is left
  as the fenced block it is written as: its body may be anything, and code is its likeliest
  reading.

Fences with backticks, tildes or colons (MyST's ``colon_fence``) are followed at the top level
of the text (indented at most three spaces), nested directives included; a directive inside a
list item or a block quote is left as written. A line stays a line (removed ones become empty),
so every line keeps its number. A text with no role and no directive is returned as it is
(targets and ``%`` lines included: a plain page may begin a line with ``%``); looking costs
about 3% of parsing a page.

Written here rather than with ``mdit_py_plugins``' MyST rules: those make tokens for
markdown-it alone, and docqa's fast parsers (md4c, pulldown-cmark) must read the same text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docqa.text.markdown_fast import split_front_matter
from docqa.text.rst_inline import ADMONITIONS, CODE, HIDDEN_ARGUMENTS, LABELS, SILENT, role_text

_NAME = r"[\w.+:-]+"
_FENCED = re.compile(rf" {{0,3}}(?:`{{3,}}|~{{3,}}|:{{3,}})\{{{_NAME}\}}")
_ROLE = re.compile(rf"\{{{_NAME}\}}`")
_OPENER = re.compile(r"(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)")
_DIRECTIVE = re.compile(rf"\{{(?P<name>{_NAME})\}}[ \t]*(?P<args>.*)")
_OPTION = re.compile(rf"[ \t]*:{_NAME}:(?:[ \t].*)?")
_TARGET = re.compile(r"\([^()\n]+\)=[ \t]*")  # MyST's labels may hold spaces
# a role, or a code span (skipped whole, so that a role written inside one stays as written)
_INLINE = re.compile(
    rf"(?<![\w$\\])\{{(?P<role>{_NAME})\}}(?P<ticks>`+)(?P<text>.+?)(?<!`)(?P=ticks)(?!`)"
    r"|(?P<span>`+).+?(?<!`)(?P=span)(?!`)"
)
_NEWLINES = re.compile(r"\r\n?")
# Directives whose body is Markdown and whose argument, if any, is a title: docutils' own
# and those of the Sphinx extensions MyST sites use most (sphinx-design, sphinx-tabs,
# sphinx-inline-tabs). reStructuredText reads every directive's body; MyST's unknown ones
# are kept as code (``docqa.text.rst_inline`` has the rest of the vocabulary).
_CONTAINERS = frozenset(
    {"admonition", "topic", "sidebar", "rubric", "epigraph", "pull-quote", "highlights"}
    | {"margin", "glossary", "hlist", "centered", "div"}
    | {"tab-set", "tab-item", "dropdown", "card", "grid", "grid-item", "grid-item-card"}
    | {"tabs", "tab", "group-tab"}
)


@dataclass
class _Fence:
    """A fence the scan is inside: its character and length, what its lines are (``"body"``:
    Markdown, a directive's body; ``"code"``: kept as written; ``"silent"``: dropped), what
    its closing line becomes, and whether the body's leading option lines are still to come."""

    char: str
    length: int
    kind: str
    closer: str | None = ""  # None: the closing line as written
    options: bool = True


def _closes(line: str, fence: _Fence) -> bool:
    stripped = line.lstrip(" ")
    run = len(stripped) - len(stripped.lstrip(fence.char))
    return len(line) - len(stripped) <= 3 and run >= fence.length and not stripped[run:].strip()


def _roles(line: str) -> str:
    """``line`` with each role outside a code span as a code span of its shown text."""

    def shown(m: re.Match[str]) -> str:
        if m.group("role") is None:
            return m.group(0)
        ticks = m.group("ticks")
        text = role_text(m.group("role"), m.group("text"))
        pad = " " if text.startswith("`") or text.endswith("`") else ""
        return f"{ticks}{pad}{text}{pad}{ticks}"

    return _INLINE.sub(shown, line) if "{" in line else line


def _is_fence(char: str, info: str) -> bool:
    """Whether a line of three or more ``char`` then ``info`` opens a fence: a backtick
    fence's info holds no backtick (CommonMark), a colon fence opens only a directive."""
    if char == "`":
        return "`" not in info
    return char == "~" or info.lstrip().startswith("{")


def _says(lines: list[str], start: int, char: str, length: int) -> bool:
    """Whether the body of a fence of ``char`` * ``length`` whose lines begin at ``start``
    holds a line other than an option or an empty one."""
    probe = _Fence(char, length, "body")
    for line in lines[start:]:
        if _closes(line, probe):
            return False
        if line.strip() and not _OPTION.fullmatch(line):
            return True
    return False


def _opened(indent: str, fence: str, info: str, says: bool) -> tuple[str, _Fence]:
    """The line a fence's opening line becomes, and the fence the scan is then in (``says``:
    whether the fence's body holds text)."""
    char, length = fence[0], len(fence)
    found = _DIRECTIVE.fullmatch(info.strip())
    if found is None:  # a code fence (its info a language, or none)
        return f"{indent}{fence}{info}", _Fence(char, length, "code", None, options=False)
    name = found.group("name").lower().rsplit(":", 1)[-1]
    args = _roles(found.group("args").strip())
    if name in SILENT:
        return "", _Fence(char, length, "silent")
    if name in ADMONITIONS:  # no arguments: text after the name begins the body
        return f"{indent}{LABELS[name]}: {args}".rstrip(), _Fence(char, length, "body")
    if name in LABELS:  # "Added in version 22.1", and ":" when text follows
        label = f"{LABELS[name]} {args}".rstrip() + ":" * says
        return f"{indent}{label}", _Fence(char, length, "body")
    if name in HIDDEN_ARGUMENTS or name in _CONTAINERS:  # a container's argument: its title
        title = args if name in _CONTAINERS else ""
        if title and says and title[-1] not in ".:;!?":  # "Linux: ~/.cache/pip", read as one
            title += ":"
        return f"{indent}{title}", _Fence(char, length, "body")
    # code: a code directive's options dropped, its language kept; any other directive as
    # written (a colon fence, which CommonMark does not know, becomes a tilde fence)
    code = name in CODE
    language = (
        args.split()[0] if code and args and name in ("code", "code-block", "sourcecode") else ""
    )
    if char != ":" and not code:
        return f"{indent}{fence}{info}", _Fence(char, length, "code", None, options=False)
    tilde = "~" * length if char == ":" else fence
    return f"{indent}{tilde}{language}", _Fence(char, length, "code", tilde, options=code)


def _role_in(text: str, at: int) -> bool:
    """Whether the line of ``text`` around ``at`` holds a role outside its code spans."""
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    line = text[start : end if end != -1 else len(text)]
    return any(m.group("role") for m in _INLINE.finditer(line))


def _marked(text: str) -> bool:
    """Whether ``text`` holds a directive's fence or a role outside a code span (a target
    alone does not make a page MyST). Each ``{`` is found with ``str.find`` and looked at: a
    regular expression searched over the whole text cost as much as parsing the page (0.22 s
    against 0.24 s for the 198 Markdown files, 14 MB, under ``/usr/share/doc``; this: 8 ms)."""
    at = text.find("{")
    while at != -1:
        before = text[at - 1] if at else ""
        if before in ("`", "~", ":"):
            if _FENCED.match(text, text.rfind("\n", 0, at) + 1):
                return True
        elif _ROLE.match(text, at) and _role_in(text, at):
            return True
        at = text.find("{", at + 1)
    return False


def myst_to_markdown(text: str) -> str:
    """``text`` with MyST's roles, directives, targets and comments rewritten (module doc);
    ``text`` itself when it holds none."""
    if not _marked(text):
        return text
    text = _NEWLINES.sub("\n", text)
    lines = text.split("\n")
    matter, body = split_front_matter(text)  # its lines blanked: the scan starts after them
    blank = body.split("\n")
    start = 0 if matter is None else next((i for i, t in enumerate(blank) if t), len(blank))
    open_: list[_Fence] = []
    for i in range(start, len(lines)):
        line = lines[i]
        inner = open_[-1] if open_ else None
        if inner is not None:
            if _closes(line, inner):
                open_.pop()
                lines[i] = line if inner.closer is None else inner.closer
                continue
            if inner.options and _OPTION.fullmatch(line):
                lines[i] = ""
                continue
            inner.options = False
            if inner.kind != "body":
                lines[i] = "" if inner.kind == "silent" else line
                continue
        opener = _OPENER.fullmatch(line)
        if opener is not None and _is_fence(opener.group("fence")[0], opener.group("info")):
            fence_, info = opener.group("fence"), opener.group("info")
            says = _says(lines, i + 1, fence_[0], len(fence_))
            lines[i], fence = _opened(opener.group("indent"), fence_, info, says)
            open_.append(fence)
            continue
        if _TARGET.fullmatch(line) or line.startswith("%"):
            lines[i] = ""
            continue
        lines[i] = _roles(line)
    return "\n".join(lines)
