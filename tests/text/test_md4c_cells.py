"""The md4c walk's table check splits rows with ``split_cells``: ``str.split`` where no pipe
is escaped, markdown-it's ``escapedSplit`` (the spec) otherwise; the same cells for any row,
and the rows md4c reads otherwise are handed back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.rules_block.table import escapedSplit

from docqa.text.markdown import parse_markdown
from docqa.text.markdown_fast import parse_markdown_fast
from docqa.text.markdown_md4c import split_cells, walk_md4c

ROW = st.text(alphabet="|\\`a b\t:-é", max_size=40)


@settings(max_examples=500)
@given(ROW)
def test_split_cells_is_escaped_split(row: str) -> None:
    assert split_cells(row) == escapedSplit(row)


def test_rows_with_and_without_escaped_pipes() -> None:
    assert split_cells("| a | b |") == ["", " a ", " b ", ""]
    assert split_cells("a \\| b | c") == escapedSplit("a \\| b | c") == ["a | b ", " c"]
    assert split_cells("\\\\|x") == escapedSplit("\\\\|x")


# Rows md4c 0.4.8 reads otherwise than markdown-it: an empty cell without a space, a pipe after
# an escaped backslash, an escaped pipe in a code span, a code span across a pipe. The walk
# hands each back, and the pyromark path gives the spec's table.
TABLE_DIVERGENCES = ["||:", "a||b", "\\\\|", "`\\|`", "``|``"]


@pytest.mark.parametrize("row", TABLE_DIVERGENCES)
def test_rows_md4c_reads_otherwise_are_handed_back(row: str) -> None:
    text = "| a | b |\n|---|---|\n" + row + "\n"
    assert walk_md4c(text) is None
    assert parse_markdown_fast(text) == parse_markdown(text)


@settings(max_examples=400, deadline=None)
@given(ROW, ROW)
def test_md4c_reads_any_two_rows_as_markdown_it_or_hands_them_back(one: str, two: str) -> None:
    text = "| a | b |\n|---|---|\n" + one + "\n" + two + "\n"
    found = walk_md4c(text)
    assert found is None or found == parse_markdown(text)[1]


PIPE_IN_CELLS = (
    "| Operator | Meaning |\n|---|---|\n| `a \\| b` | union |\n| x \\| y | either \\| or |\n"
)


def test_a_pipe_inside_a_cell_is_written_escaped_on_every_path() -> None:
    from docqa.text.markdown_fast import walk_pyromark

    want = ["| Operator | Meaning |", "| a \\| b | union |", "| x \\| y | either \\| or |"]
    reference = parse_markdown(PIPE_IN_CELLS)[1]
    assert [line.text for line in reference[0].lines] == want  # type: ignore[union-attr]
    assert walk_pyromark(PIPE_IN_CELLS) == reference
    md4c = walk_md4c(PIPE_IN_CELLS.replace("`a \\| b`", "a \\| b"))  # md4c hands code spans back
    assert md4c == parse_markdown(PIPE_IN_CELLS.replace("`a \\| b`", "a \\| b"))[1]
    assert md4c is not None and md4c[0].lines[2].text == "| x \\| y | either \\| or |"  # type: ignore[union-attr]


def test_the_answer_reads_a_cell_holding_a_pipe_as_one_cell() -> None:
    from docqa.models.sentences import sentences
    from docqa.text import parse_document

    document = parse_document("ops.md", "# Operators\n\n" + PIPE_IN_CELLS)
    assert list(sentences(document.sections[0].text)) == [
        "Operator: a | b; Meaning: union",
        "Operator: x | y; Meaning: either | or",
    ]
