"""``docqa.text.markdown_rules`` against the installed markdown-it-py it copies: the same
cells, entities, code point checks and inline HTML matches (and the copy imports none of
markdown-it)."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.common.entities import entities
from markdown_it.common.html_re import HTML_TAG_RE
from markdown_it.common.utils import isValidEntityCode
from markdown_it.rules_block.table import escapedSplit

from docqa.text import markdown_rules as rules

ROW = st.text(st.sampled_from("|\\` a-:é\t"), max_size=40)
HTML = st.text(st.sampled_from("<>/!?-[]CDATA x=\"' \nab1"), max_size=30)


@settings(max_examples=500, deadline=None)
@given(ROW)
def test_cells_split_as_markdown_it_splits_them(line: str) -> None:
    assert rules.escaped_split(line) == escapedSplit(line)


def test_escaped_pipes_and_edges() -> None:
    assert rules.escaped_split("a | b \\| c |") == ["a ", " b | c ", ""]
    assert rules.escaped_split("") == [""] == escapedSplit("")
    assert rules.escaped_split("\\\\|x") == escapedSplit("\\\\|x")


@settings(max_examples=500, deadline=None)
@given(st.integers(-5, 0x110005))
def test_code_points_are_checked_as_markdown_it_checks_them(c: int) -> None:
    assert rules.valid_entity_code(c) is isValidEntityCode(c)


def test_every_boundary_code_point() -> None:
    edges = [0, 8, 9, 0xB, 0xC, 0xE, 0x1F, 0x20, 0x7E, 0x7F, 0x9F, 0xA0, 0xD7FF, 0xD800,
             0xDFFF, 0xE000, 0xFDCF, 0xFDD0, 0xFDEF, 0xFDF0, 0xFFFE, 0xFFFF, 0x1FFFE,
             0x10FFFD, 0x10FFFF, 0x110000]  # fmt: skip
    assert [rules.valid_entity_code(c) for c in edges] == [isValidEntityCode(c) for c in edges]


def test_the_entity_table_and_the_tag_expression_are_markdown_its() -> None:
    assert rules.entities() == entities
    assert rules.HTML_TAG_RE.pattern == HTML_TAG_RE.pattern


@settings(max_examples=300, deadline=None)
@given(HTML)
def test_inline_html_matches_as_markdown_it_matches(text: str) -> None:
    ours, theirs = rules.HTML_TAG_RE.match(text), HTML_TAG_RE.match(text)
    assert (ours and ours.group()) == (theirs and theirs.group())


def test_the_md4c_walk_imports_no_markdown_it() -> None:
    """A document with a table, an entity and inline HTML through the md4c walk."""
    code = (
        "import sys\n"
        "from docqa.text.markdown_fast import parse_markdown_fast\n"
        "parse_markdown_fast('# T\\n\\n| a | b |\\n|---|---|\\n| 1 &amp; | <b>x</b> |\\n')\n"
        "print(sorted(m for m in sys.modules if m.startswith('markdown_it')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
