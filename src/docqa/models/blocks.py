"""What a block of a passage is, by its lines: a table and the sentences its rows read as,
code, prose wrapped by hand, a line that reads as prose, and the entries of an option table
set as text. Pure functions; :mod:`docqa.models.units` cuts a passage into the units the
extractive answer quotes with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docqa.text.plain import prose_shares
from docqa.text.stopwords import ENGLISH_STOP_WORDS

_DELIMITER = re.compile(r":?-+:?")
_PLAIN_WORD = re.compile(r"[a-z]{2,}[,;:]?")
# an option table's line: an option (or one word that ends no sentence), two spaces, its text
_COLUMNS = re.compile(r" {0,8}(?:-\S*(?: \S+)*?|\S*[^\s.!?]) {2,}\S")
_CODE_SYMBOLS = frozenset("()[]{}<>;=|\\$`*_/#@%&+~^")


_BAR = re.compile(r"(?<!\\)\|")
_LIST_OR = re.compile(r"[,;] (?:or|and)$")  # an item a list goes on from: "exist, or"
_CODE_MARK = re.compile(r"[=(){}\[\]<>]")


def _cells(line: str) -> list[str]:
    """A ``| a | b |`` row's cells; ``\\|`` is a ``|`` inside a cell."""
    inner = line.strip().removeprefix("|")
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in _BAR.split(inner)]


def table_rows(lines: list[str], headed: bool = True) -> Iterator[str]:
    """Each data row of a ``| a | b |`` table as one sentence naming its columns:
    ``"Item type: DVDs; Loan period: 7 days"`` (the first row is the header; a Markdown
    delimiter row such as ``| --- | :-: |`` is no data; an empty cell is left out). A table
    whose every first cell ends in ``:`` is a list of fields with no header (the Apache
    manual's ``Description: | ...``, ``Default: | KeepAliveTimeout 5``): each row reads as its
    cells, ``"Default: KeepAliveTimeout 5"``. When not ``headed`` (the rest of a long table
    a window cut), each row reads as its cells, ``"DVDs; 7 days"``; so does a row whose cells
    do not match the header's (Sphinx's option tables: a one-cell group label such as
    ``| options |`` over rows of an empty cell, an option and its text), and each row under a
    header of empty cells (an HTML table with no header row: ``"-quality value; JPEG
    quality"``)."""
    if lines and not any(_cells(lines[0])):  # no header row
        lines, headed = lines[1:], False
    if all(_cells(line)[0].endswith(":") for line in lines):
        for line in lines:
            yield " ".join(c for c in _cells(line) if c)
        return
    if not headed:
        for line in lines:
            cells = _cells(line)
            if not all(_DELIMITER.fullmatch(c) for c in cells):
                yield "; ".join(c for c in cells if c)
        return
    header = _cells(lines[0])
    for line in lines[1:]:
        cells = _cells(line)
        if all(_DELIMITER.fullmatch(c) for c in cells):
            continue
        if len(cells) == len(header):  # an empty cell says nothing: left out
            yield "; ".join(f"{h}: {c}" for h, c in zip(header, cells, strict=True) if c)
        else:
            yield "; ".join(c for c in cells if c)


def is_table(lines: list[str]) -> bool:
    return len(lines) > 1 and all(ln.lstrip().startswith("|") for ln in lines)


def wrapped_prose(lines: list[str]) -> bool:
    """Whether a block's ``lines`` are prose wrapped by hand rather than code: a passage
    holds a paragraph as one line (``Block.text``), but a page may set its prose in a
    ``<pre>`` (HAProxy's manual: each keyword's description). Prose: at least one sentence
    ends inside it, at most 4% of its visible characters are code's symbols (brackets, ``;``,
    ``=``, ``$``, ``#``, ...), and at least half its lines hold five lower-case words."""
    text = "".join(lines)
    visible = sum(not c.isspace() for c in text)
    symbols = sum(c in _CODE_SYMBOLS for c in text)
    wordy, ends = prose_shares(lines)
    return symbols <= 0.04 * visible and wordy >= 0.5 and ends > 0


def entries(lines: list[str]) -> list[str]:
    """The entries of a paragraph's ``lines``: one, unless its prose is wrapped by hand in an
    option table or in hanging indents. In a table (a line holds an option or a word, two or
    more spaces, then text: ``pytest --help`` in a ``<pre>``, ``  -k EXPRESSION   Only run
    tests ...``) each such line, and each indented no more than its entry's first, begins an
    entry, the lines indented under it going on with it; elsewhere a line indented less than
    the line before it, when that line went on with an entry, begins one (HAProxy's ``maxconn
    <number>`` over its indented description, then ``maxconnrate <number>``)."""
    table = any(_COLUMNS.match(line) for line in lines)
    out: list[str] = []
    start = 0
    for i in range(1, len(lines)):
        indent = _indent(lines[i])
        if (table and (indent <= _indent(lines[start]) or _COLUMNS.match(lines[i]))) or (
            indent < _indent(lines[i - 1]) and i - 1 > start
        ):
            out.append("\n".join(lines[start:i]))
            start = i
    out.append("\n".join(lines[start:]))
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def reads_as_prose(text: str) -> bool:
    """Whether ``text`` reads as a line of words rather than a command, a term, code or a
    list of names: one line (a paragraph's lines are joined; code keeps its own, comments and
    all), at least five of its space-separated tokens, and at least half of them, plain
    lower-case words, two of those stop words (``ls > dirlist 2>&1``, ``git log --oneline
    --all``, ``cat file | grep foo | sort`` and ``o ndbm (UNIX) o gdbm (GNU)`` are not)."""
    if "\n" in text.strip():
        return False
    tokens = text.split()
    plain = [t.rstrip(",;:") for t in tokens if _PLAIN_WORD.fullmatch(t)]
    stops = sum(w in ENGLISH_STOP_WORDS for w in plain)
    return len(plain) >= 5 and 2 * len(plain) >= len(tokens) and stops >= 2


def is_code(lines: list[str]) -> bool:
    """Whether a block's non-empty ``lines`` are code: several lines that are no table and no
    prose wrapped by hand."""
    return len(lines) > 1 and not is_table(lines) and not wrapped_prose(lines)


def list_goes_on(block: str) -> bool:
    """Whether ``block`` is a list's item that the next one continues: it ends in ", or",
    "; and" (and the like), or in ``,`` or ``;`` when it has no code's punctuation (a line
    of C or JavaScript ends in ``;``, a dictionary's entry in ``,``)."""
    lines = [ln for ln in block.splitlines() if ln.strip()]
    if is_code(lines):
        return False
    end = block.rstrip()
    return _LIST_OR.search(end) is not None or (end.endswith((",", ";")) and not code_marked(end))


def code_marked(text: str) -> bool:
    """Whether ``text`` holds code's punctuation (``= ( ) { } [ ] < >``), which a list's item
    written in words has not."""
    return _CODE_MARK.search(text) is not None
