"""The reStructuredText reader: sections, shown text, code, tables, Sphinx's directives."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.build import IndexSettings, build_index
from docqa.index import open_index
from docqa.models.blocks import table_rows
from docqa.text import load_path, parse_document
from docqa.text.documents import Block, Heading
from docqa.text.loaders import BUILT_SOURCES, find_files
from docqa.text.rst import rst_items
from docqa.text.rst_inline import inline_text


def shown(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of each item: ``("h2", title)`` or ``(block kind, block text)``."""
    return [
        (f"h{i.level}", i.text) if isinstance(i, Heading) else (i.kind, i.text)
        for i in rst_items(text)
    ]


def test_titles_take_levels_in_the_order_their_styles_appear() -> None:
    text = (
        "=====\nGuide\n=====\n\nIntro.\n\nLoans\n=====\n\nBorrow.\n\n"
        "Periods\n-------\n\nThree weeks.\n\nFines\n=====\n\nNone.\n"
    )
    assert shown(text) == [
        ("h1", "Guide"),
        ("text", "Intro."),
        ("h2", "Loans"),
        ("text", "Borrow."),
        ("h3", "Periods"),
        ("text", "Three weeks."),
        ("h2", "Fines"),
        ("text", "None."),
    ]
    heading = rst_items(text)[2]
    assert isinstance(heading, Heading) and heading.line == 7


def test_an_underline_too_short_for_its_title_is_text_and_a_transition_is_dropped() -> None:
    # docutils: an underline shorter than its title and than 4 characters is ordinary text
    assert shown("A long title\n---\n") == [("text", "A long title ---")]
    assert shown("A long title\n----\n") == [("h1", "A long title")]
    assert shown("One.\n\n----------\n\nTwo.\n") == [("text", "One."), ("text", "Two.")]


def test_an_underline_as_long_as_a_short_title_makes_it_one() -> None:
    # CMake's release notes: "C#" over "^^" (docutils reads it as a title; "--" alone is text)
    assert shown("Languages\n---------\n\nC#\n^^\n\nSupported.\n\n--\n")[:2] == [
        ("h1", "Languages"),
        ("h2", "C#"),
    ]
    assert shown("One.\n\n--\n") == [("text", "One."), ("text", "--")]


def test_titles_are_not_read_inside_a_directive_or_a_list() -> None:
    assert shown(".. note::\n\n   Not\n   ===\n")[0] == ("text", "Note")
    assert all(kind != "h1" for kind, _ in shown("- item\n\n  Not\n  ===\n"))


def test_inline_markup_shows_what_a_reader_sees() -> None:
    line = (
        "Use :func:`os.walk` or :py:meth:`~pathlib.Path.glob` with ``top``, see "
        ":ref:`the loans page <loans>`, `PyPI <https://pypi.org/>`_, `Docs`_, Wheel_, "
        "*emphasis*, **strong**, |version|, a note [1]_ and \\*stars\\*; :pep:`427`."
    )
    assert inline_text(line) == (
        "Use os.walk or pathlib.Path.glob with top, see the loans page, PyPI, Docs, Wheel, "
        "emphasis, strong, version, a note and *stars*; PEP 427."
    )


def test_a_name_with_a_placeholder_is_no_title_and_target() -> None:
    # CMake's help: Sphinx's rule would show "$", "CMAKE_<LANG>_FLAGS_" and "OUTPUT_NAME_"
    line = (
        "Use :genex:`$<TARGET_OBJECTS>` or :genex:`$<TARGET_OBJECTS:objlib>`, set "
        ":variable:`CMAKE_<LANG>_FLAGS_<CONFIG>` and :prop_tgt:`OUTPUT_NAME_<CONFIG>`; see "
        ":ref:`call<call>`, :ref:`set(<variable>) <set>`, :doc:`<tutorial>` and "
        ":ref:`Linking via \\$\\<TARGET_OBJECTS\\>` (escaped: no target) in :file:`C:\\\\dir`."
    )
    assert inline_text(line) == (
        "Use $<TARGET_OBJECTS> or $<TARGET_OBJECTS:objlib>, set CMAKE_<LANG>_FLAGS_<CONFIG> and "
        "OUTPUT_NAME_<CONFIG>; see call, set(<variable>), tutorial and "
        "Linking via $<TARGET_OBJECTS> (escaped: no target) in C:\\dir."
    )


def test_what_is_not_markup_stays_as_written() -> None:
    for text in (
        "CMAKE_<LANG>_FLAGS and CMAKE_MATCH_<n>",
        "def f(*args, **kwargs): pass",
        "2 * 3 * 4 = 24",
        "call __init__ and my_var",
        "a | b | c",
        "snake_case_name",
    ):
        assert inline_text(text) == text


def test_markup_across_lines_keeps_every_line_number() -> None:
    text = "Earlier pip `does not resolve\n<https://x.org/988>`_, but uses the first\nfound.\n"
    (block,) = rst_items(text)
    assert isinstance(block, Block)
    assert [line.number for line in block.lines] == [1, 2, 3]
    assert block.text == "Earlier pip does not resolve, but uses the first found."


def test_literal_blocks_after_double_colons() -> None:
    assert shown("Run this::\n\n    pip install x\n      --user\n\nDone.\n") == [
        ("text", "Run this:"),
        ("code", "pip install x\n  --user"),
        ("text", "Done."),
    ]
    assert shown("Run this ::\n\n    pip\n")[0] == ("text", "Run this")
    assert shown("Text.\n\n::\n\n    code\n") == [("text", "Text."), ("code", "code")]
    assert shown(">>> 1 + 1\n2\n\nAfter.\n") == [("code", ">>> 1 + 1\n2"), ("text", "After.")]


def test_code_directives_drop_their_options_and_keep_indentation() -> None:
    text = ".. code-block:: python\n   :caption: demo\n\n   def f():\n       return 1\n"
    assert shown(text) == [("code", "def f():\n    return 1")]
    assert shown(".. literalinclude:: demo.py\n   :lines: 1-3\n") == []


def test_a_parsed_literal_is_code_whose_markup_is_read() -> None:
    # CMake's synopses: "`General messages`_" and "*<mode>*" were quoted as written
    text = (
        ".. parsed-literal::\n\n"
        '  `General messages`_\n    message([*<mode>*] "text" ...)\n\n'
        '  `Reporting checks`_\n    message(<checkState> "text")\n'
    )
    synopsis = (
        'General messages\n  message([<mode>] "text" ...)\n'
        'Reporting checks\n  message(<checkState> "text")'
    )
    assert shown(text) == [("code", synopsis)]


def test_directives_show_their_label_arguments_and_body() -> None:
    text = (
        ".. versionadded:: 3.2\n   The *top* argument.\n\n"
        ".. versionchanged:: 3.4\n\n"
        ".. note:: Loans last\n   three weeks.\n\n"
        ".. py:function:: walk(top, topdown=True)\n   :noindex:\n\n   Walk a tree.\n\n"
        ".. only:: html\n\n   Shown in HTML.\n\n"
        ".. tab:: Windows\n\n   Use py.\n\n"
        ".. warning ::\n\n   A space before the colons.\n"
    )
    assert shown(text) == [
        ("text", "Added in version 3.2: The top argument."),
        ("text", "Changed in version 3.4"),
        ("text", "Note"),
        ("text", "Loans last three weeks."),
        ("text", "walk(top, topdown=True)"),
        ("text", "Walk a tree."),
        ("text", "Shown in HTML."),
        ("text", "Windows"),
        ("text", "Use py."),
        ("text", "Warning"),
        ("text", "A space before the colons."),
    ]


def test_what_shows_nothing_is_dropped() -> None:
    text = (
        ".. toctree::\n   :maxdepth: 2\n\n   loans\n   fines\n\n"
        ".. image:: logo.png\n   :alt: Logo\n\n"
        ".. _loans-label:\n\n"
        ".. |name| replace:: docqa\n\n"
        ".. A comment\n   that goes on.\n\n"
        ":orphan:\n\n"
        "Kept.\n"
    )
    assert shown(text) == [("text", "Kept.")]


def test_an_empty_comment_ends_a_list_before_a_block_quote() -> None:
    assert shown("- item\n\n..\n\n   quoted\n") == [("text", "item"), ("text", "quoted")]


def test_lists_fields_and_definitions() -> None:
    text = (
        "- first item\n  goes on\n- second\n\n  - nested\n\n"
        "1. step one\n#. step two\n\n"
        ":param top: the folder\n   to walk\n\n"
        "term\n   Its definition.\n"
    )
    assert shown(text) == [
        ("text", "first item goes on"),
        ("text", "second"),
        ("text", "nested"),
        ("text", "step one"),
        ("text", "step two"),
        ("text", "param top: the folder to walk"),
        ("text", "term: Its definition."),
    ]


def test_a_definitions_first_paragraph_is_read_with_its_term() -> None:
    # CMake's help (cmake.1.rst): an option and what it does, as the HTML reader reads a dl
    text = (
        "``-S <path-to-source>``\n Path to root directory of the CMake project to build.\n\n"
        " More about it.\n\n"
        "``--build <dir>``\n  .. code-block:: console\n\n    $ cmake --build .\n\n"
        "A paragraph.\n"
    )
    assert shown(text) == [
        ("text", "-S <path-to-source>: Path to root directory of the CMake project to build."),
        ("text", "More about it."),
        ("text", "--build <dir>"),  # a definition that begins with code: the term alone
        ("code", "$ cmake --build ."),
        ("text", "A paragraph."),
    ]
    # a paragraph of two lines with text indented right under it: no term, nor a definition
    assert shown("Two lines\nof a paragraph.\n   Indented under it.\n") == [
        ("text", "Two lines of a paragraph."),
        ("text", "Indented under it."),
    ]


def test_a_directive_first_in_a_list_item_is_read_as_one() -> None:
    # CMake's help: "* .. versionadded:: 3.15" with the text indented under it
    text = "* .. versionadded:: 3.15\n    Include the file named by\n    :variable:`X`.\n"
    assert shown(text) == [("text", "Added in version 3.15: Include the file named by X.")]


def test_grid_and_simple_tables_are_rows_of_cells_under_their_header() -> None:
    grid = (
        "+------+-------+\n| Term | Weeks |\n+======+=======+\n| Book | 3     |\n+------+-------+\n"
    )
    assert shown(grid) == [("table", "| Term | Weeks |\n| Book | 3 |")]
    simple = "=====  ======\nItem   Weeks\n=====  ======\nBook   3\nDVD    ``1``\n=====  ======\n"
    assert shown(simple) == [("table", "| Item | Weeks |\n| Book | 3 |\n| DVD | 1 |")]


def test_a_grid_row_is_every_line_between_two_borders() -> None:
    # Python's stdtypes: a cell wrapped over two lines, its markup spanning them
    grid = (
        "+-------------------+--------------------------+\n"
        "| Operation         | Result                   |\n"
        "+===================+==========================+\n"
        "| :func:`round(x[,  | x rounded to *n* digits, |\n"
        "| n]) <round>`      | half to even             |\n"
        "+-------------------+--------------------------+\n"
        "| ``x | y``         | bitwise or               |\n"
        "+-------------------+--------------------------+\n"
    )
    rows = [
        "| Operation | Result |",
        "| round(x[, n]) | x rounded to n digits, half to even |",
        "| x \\| y | bitwise or |",
    ]
    assert shown(grid) == [("table", "\n".join(rows))]


def test_a_grid_cell_spanning_columns_is_one_and_no_equals_border_means_no_header() -> None:
    grid = "+------+------+\n| one  | two  |\n+------+------+\n| both cells  |\n+------+------+\n"
    assert shown(grid) == [("table", "|  |  |\n| one | two |\n| both cells |")]


def test_a_header_cell_over_sub_columns_spans_them() -> None:
    # Python's typeobj.rst: "Info" over the columns O, T; the top border shows two columns
    grid = (
        "+------+-------+\n"
        "| Slot | Info  |\n"
        "|      +---+---+\n"
        "|      | O | T |\n"
        "+======+===+===+\n"
        "| name | X |   |\n"
        "+------+---+---+\n"
    )
    assert shown(grid) == [("table", "| Slot | Info O \\| T |  |\n| name | X |  |")]


def test_a_simple_table_row_goes_on_where_its_first_column_is_blank() -> None:
    simple = (
        "=====  =================\n"
        "Book   three weeks, then\n"
        "       renewed once\n"
        "DVD    one week\n"
        "=====  =================\n"
        "\n"
        "After.\n"
    )
    assert shown(simple) == [
        ("table", "|  |  |\n| Book | three weeks, then renewed once |\n| DVD | one week |"),
        ("text", "After."),
    ]


def test_csv_and_list_tables_take_their_header_from_their_options() -> None:
    csv_table = (
        ".. csv-table:: Loans\n"
        '   :header: "Item", "Weeks"\n'
        "   :widths: 10, 10\n"
        "\n"
        '   "Book, hardback", 3\n'
        '   "DVD", "1, renewable"\n'
    )
    assert shown(csv_table) == [
        ("table", "| Item | Weeks |\n| Book, hardback | 3 |\n| DVD | 1, renewable |")
    ]
    rows = ".. csv-table::\n   :header-rows: 1\n   :delim: ;\n\n   Item; Weeks\n   Book; 3\n"
    assert shown(rows) == [("table", "| Item | Weeks |\n| Book | 3 |")]
    list_table = (
        ".. list-table::\n"
        "   :header-rows: 1\n"
        "\n"
        "   * - Function\n"
        "     - What it does\n"
        "   * - :func:`run`\n"
        "     - Create an event loop and run a coroutine\n"
        "       until it is done.\n"
    )
    rows = [
        "| Function | What it does |",
        "| run | Create an event loop and run a coroutine until it is done. |",
    ]
    assert shown(list_table) == [("table", "\n".join(rows))]
    assert shown(".. list-table::\n\n   * - a\n     - b\n") == [("table", "|  |  |\n| a | b |")]
    # a CSV table whose data is in another file shows nothing docqa reads: no table, no header
    assert shown('.. csv-table::\n   :header: "a", "b"\n   :file: loans.csv\n') == []


def test_a_table_row_reads_as_a_sentence_naming_its_columns() -> None:
    # CMake's install(): what the answer quotes of a simple table's row
    simple = (
        "=========== =========================== ================\n"
        "Target Type GNUInstallDirs Variable     Built-In Default\n"
        "=========== =========================== ================\n"
        "``RUNTIME`` ``${CMAKE_INSTALL_BINDIR}`` ``bin``\n"
        "``LIBRARY`` ``${CMAKE_INSTALL_LIBDIR}`` ``lib``\n"
        "=========== =========================== ================\n"
    )
    [(_, text)] = shown(simple)
    assert list(table_rows(text.split("\n")))[1] == (
        "Target Type: LIBRARY; GNUInstallDirs Variable: ${CMAKE_INSTALL_LIBDIR}; "
        "Built-In Default: lib"
    )


def test_footnotes_and_line_blocks_are_text() -> None:
    assert shown(".. [1] The footnote.\n\n| one\n| two\n") == [
        ("text", "The footnote."),
        ("text", "one two"),
    ]


_PIECES = st.sampled_from(
    [
        "Title",
        "=====",
        "-----",
        "",
        "   indented",
        ".. note::",
        ".. code-block:: py",
        "   :caption: x",
        "- item",
        "1. step",
        ":field: value",
        "text ``literal`` and :role:`x <y>`",
        "`open",
        "*",
        "::",
        "+---+---+",
        "| a | b |",
        "===  ===",
        ">>> x",
        "..",
        ".. _t:",
        "\tTabbed",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_any_text_reads_without_error_and_keeps_line_order(pieces: list[str]) -> None:
    numbers: list[int] = []
    for item in rst_items("\n".join(pieces)):
        if isinstance(item, Heading):
            numbers.append(item.line)
        else:
            assert item.lines and all(line.text for line in item.lines)
            numbers.extend(line.number for line in item.lines)
    assert numbers == sorted(numbers)
    assert all(1 <= n <= len(pieces) for n in numbers)


def test_rst_files_load_as_documents(tmp_path: Path) -> None:
    page = "=========\nLoans\n=========\n\nLoan periods\n------------\n\nThree weeks.\n"
    (tmp_path / "loans.rst").write_text(page)
    (tmp_path / "fines.rst.gz").write_bytes(gzip.compress(b"Fines\n=====\n\nNone.\n"))
    (tmp_path / "_sources").mkdir()
    (tmp_path / "_sources" / "hours.rst.txt").write_text("Hours\n=====\n\nNine to five.\n")
    (tmp_path / "only-include.rst").write_text(".. include:: other.rst\n")
    with pytest.warns(UserWarning, match="only-include.rst"):
        documents, report = load_path(tmp_path)
    by_source = {d.source: d for d in documents}
    assert set(by_source) == {"loans.rst", "fines.rst.gz", "_sources/hours.rst.txt"}
    assert all(d.metadata["format"] == "rst" for d in documents)
    assert by_source["loans.rst"].title == "Loans"
    assert [s.heading for s in by_source["loans.rst"].sections] == ["Loans", "Loan periods"]
    assert [s.path for s in report.skipped] == ["only-include.rst"]
    assert parse_document("a/b.rst", "Text only.\n").title == "B"


def test_a_sphinx_build_is_read_once_its_pages_sources_passed_over(tmp_path: Path) -> None:
    page = "<html><head><title>os</title></head><body><h1>os</h1><p>Walk.</p></body></html>"
    (tmp_path / "html" / "_sources" / "library").mkdir(parents=True)
    (tmp_path / "html" / "library" / "os.html").parent.mkdir()
    (tmp_path / "html" / "library" / "os.html").write_text(page)
    (tmp_path / "html" / "_sources" / "library" / "os.rst.txt").write_text("os\n==\n\nWalk.\n")
    (tmp_path / "html" / "_sources" / "old.txt").write_text("Old\n===\n\nSphinx 1.4.\n")
    (tmp_path / "html" / "old.html").write_text(page)
    (tmp_path / "html" / "_sources" / "lone.rst.txt").write_text("Lone\n====\n\nNo page.\n")
    (tmp_path / "dirhtml" / "intro").mkdir(parents=True)
    (tmp_path / "dirhtml" / "intro" / "index.html").write_text(page)
    (tmp_path / "dirhtml" / "_sources").mkdir()
    (tmp_path / "dirhtml" / "_sources" / "intro.md.txt").write_text("# Intro\n")
    others: Counter[str] = Counter()
    found, _ = find_files([tmp_path], others)
    assert [source for _, source in found] == [
        "dirhtml/intro/index.html",
        "html/_sources/lone.rst.txt",
        "html/library/os.html",
        "html/old.html",
    ]
    assert others == {BUILT_SOURCES: 3}
    named = tmp_path / "html" / "_sources" / "library" / "os.rst.txt"  # named: read
    assert [source for _, source in find_files([named])[0]] == ["os.rst.txt"]


def test_an_index_of_other_readers_is_rebuilt_not_updated(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "loans.rst").write_text("Loans\n=====\n\nThree weeks.\n")
    older = IndexSettings(dim=32)
    object.__setattr__(older, "readers", older.readers - 1)  # as an older docqa wrote it
    build_index([tmp_path / "docs"], tmp_path / "ix", older)
    again = build_index([tmp_path / "docs"], tmp_path / "ix", IndexSettings(dim=32))
    assert again.reused == 0 and again.embedded == again.chunks
    meta = open_index(tmp_path / "ix").manifest.meta["settings"]
    assert meta["readers"] == IndexSettings().readers
    assert build_index([tmp_path / "docs"], tmp_path / "ix", IndexSettings(dim=32)).reused == 1
