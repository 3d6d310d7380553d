"""Whether neighbouring blocks of a passage make one unit of the extractive answer: a caption
over the code it names, a block that stands inside a sentence, a sentence that goes on after
a block of code, a list's next item, a sentence that cannot end where it stops. Pure
functions of the blocks' text; :mod:`docqa.models.units` cuts passages with them.
"""

from __future__ import annotations

import re

from docqa.models.blocks import code_marked, is_code, is_table, reads_as_prose
from docqa.models.sentences import split_sentences
from docqa.text.stopwords import ENGLISH_STOP_WORDS

MAX_BLOCK_CHARS = 600
"""A block longer than this is not attached to the sentence introducing it, nor quoted alone."""
CAPTION_WORDS = 6
"""A line of at most this many words before a block of code is its caption ("Filename:
src/main.rs"): a sentence ending in ``:`` above it takes both along."""

STARTS_SENTENCE = re.compile(r"[A-Z0-9\"'`(\[$>#*/-]")
"""How a sentence may begin."""
WORD = re.compile(r"\w+")
FULL_STOP = re.compile(r"[.!?][\"')\]]*\s*$")
"""A full stop, perhaps inside closing quotes or brackets, ending a text."""
_FIRST_WORD = re.compile(r"([a-z]+)\s")
OWN_TERM = re.compile(
    r"(?:property [\w.]+|(?:[a-z]+ )?[A-Za-z_][\w.]*\([^()\n]*\)(?:\[source\])?): \S"
)
"""A paragraph opening with a term of its own, as an API reference's next entry does:
``get_template(name, parent=None): Load a template ...``, ``property env: str: What ...``
(not a protocol request's argument, ``drawable: Drawable``, which goes on from its name)."""


def caption_line(blocks: list[str], b: int) -> bool:
    """Whether ``blocks[b]`` is the caption of a block of code right after it (mdBook's
    "Filename: src/main.rs"): one line of at most :data:`CAPTION_WORDS` words that ends
    like no sentence, before a block of several lines that is no table and no prose."""
    if b + 1 >= len(blocks) or "\n" in blocks[b].strip() or FULL_STOP.search(blocks[b]):
        return False
    lines = [ln for ln in blocks[b + 1].splitlines() if ln.strip()]
    return len(WORD.findall(blocks[b])) <= CAPTION_WORDS and is_code(lines)


def captions(blocks: list[str], b: int) -> bool:
    """Whether ``blocks[b]`` is a caption (:func:`caption_line`) quoted with its code: both
    within :data:`MAX_BLOCK_CHARS`."""
    return caption_line(blocks, b) and len(blocks[b]) + len(blocks[b + 1]) < MAX_BLOCK_CHARS


def names_unquoted_code(blocks: list[str], b: int) -> bool:
    """Whether ``blocks[b]`` is a caption that only names the code after it ("Filename:
    src/main.rs", not a sentence introducing it, "Basic skipping looks like this:") and that
    code is too long to quote: alone, the caption shows nothing."""
    return (
        caption_line(blocks, b) and not captions(blocks, b) and not blocks[b].rstrip().endswith(":")
    )


def inserted(block: str) -> bool:
    """Whether ``block`` can stand inside a sentence: up to :data:`MAX_BLOCK_CHARS`, one
    piece that does not end like a sentence and does not read as prose (a command, code, a
    formula; not a paragraph, nor a list's item: "inside an action list no filters ...")."""
    return (
        len(block) <= MAX_BLOCK_CHARS
        and len(split_sentences(block)) == 1
        and not FULL_STOP.search(block)
        and not reads_as_prose(block)
    )


def resumes(code: str, block: str) -> bool:
    """Whether ``block`` goes on with the sentence that introduced ``code`` (the block before
    it): ``code`` is code, and ``block`` is prose whose first word is a lower-case stop word
    ("will run ...", "where pattern is ...", "on a Cachegrind output file."), not a name
    (``group() returns ...``, ``git status shows ...`` begin sentences of their own)."""
    lines = [ln for ln in code.splitlines() if ln.strip()]
    first = _FIRST_WORD.match(block)
    return (
        first is not None and first[1] in ENGLISH_STOP_WORDS and is_code(lines) and continues(block)
    )


def list_item(block: str) -> bool:
    """Whether ``block`` can be a list's next item: one piece, no table, no code, none of
    code's punctuation unless it reads as prose."""
    lines = [ln for ln in block.splitlines() if ln.strip()]
    return (
        len(split_sentences(block)) == 1
        and not is_table(lines)
        and not is_code(lines)
        and (not code_marked(block) or reads_as_prose(block))
    )


def needs_more(piece: str) -> bool:
    """Whether ``piece`` stops where no sentence can end: on a stop word ("the command is",
    "replaced with either ... or"), not on a noun ("... the environment variable", where a
    manual left out a full stop before the next option's name)."""
    words = WORD.findall(piece)
    return bool(words) and words[-1].lower() in ENGLISH_STOP_WORDS


def continues(block: str) -> bool:
    """Whether ``block`` goes on with a sentence begun above the block before it: it starts
    as no sentence does (in lower case: "directs only the standard output ..."), and is no
    table and no code (lighttpd's "e.g.:" over ``accesslog.filename = "/var/log/..."``: code
    starting in lower case, which would be quoted as one line)."""
    lines = [ln for ln in block.splitlines() if ln.strip()]
    return (
        not STARTS_SENTENCE.match(block)
        and not OWN_TERM.match(block)
        and not is_table(lines)
        and not is_code(lines)
    )
