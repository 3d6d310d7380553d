"""The md4c walk's table check splits rows with ``split_cells``: ``str.split`` where no pipe
is escaped, markdown-it's ``escapedSplit`` (the spec) otherwise; the same cells for any row,
and the tables md4c still reads otherwise (known, listed)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.rules_block.table import escapedSplit

from docqa.text.markdown import parse_markdown
from docqa.text.markdown_md4c import available, split_cells, walk_md4c

ROW = st.text(alphabet="|\\`a b\t:-é", max_size=40)


@settings(max_examples=500)
@given(ROW)
def test_split_cells_is_escaped_split(row: str) -> None:
    assert split_cells(row) == escapedSplit(row)


def test_rows_with_and_without_escaped_pipes() -> None:
    assert split_cells("| a | b |") == ["", " a ", " b ", ""]
    assert split_cells("a \\| b | c") == escapedSplit("a \\| b | c") == ["a | b ", " c"]
    assert split_cells("\\\\|x") == escapedSplit("\\\\|x")


# Tables md4c's walk answers otherwise than markdown-it, on main before this change too (found
# by a property over rows of this alphabet; not handed back yet): an empty cell without a
# space, a pipe after an escaped backslash, an escaped pipe in a code span.
KNOWN_TABLE_DIVERGENCES = ["||:", "a||b", "\\\\|", "`\\|`"]


@pytest.mark.skipif(not available(), reason="the package was built without md4c")
@pytest.mark.xfail(
    strict=True, reason="known divergence of md4c's table cells (docs/notes/2026-12-indexing.md)"
)
@pytest.mark.parametrize("row", KNOWN_TABLE_DIVERGENCES)
def test_known_table_divergences(row: str) -> None:
    text = "| a | b |\n|---|---|\n" + row + "\n"
    found = walk_md4c(text)
    assert found is None or found == parse_markdown(text)[1]
