"""The AsciiDoc reader: sections, shown text of macros and attributes, blocks, tables, includes
not followed, and which .txt files are AsciiDoc."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.text import load_path, parse_document
from docqa.text.asciidoc import asciidoc_items
from docqa.text.asciidoc_detect import looks_like_asciidoc
from docqa.text.asciidoc_inline import inline_text, section_id, substitute
from docqa.text.asciidoc_tables import MAX_COLUMNS
from docqa.text.documents import Block, Heading
from docqa.text.loaders import find_files


def shown(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` of each item: ``("h2", title)`` or ``(block kind, block text)``."""
    return [
        (f"h{i.level}", i.text) if isinstance(i, Heading) else (i.kind, i.text)
        for i in asciidoc_items(text)
    ]


def test_titles_of_both_styles_give_levels_and_lines() -> None:
    text = "= Guide\n\nIntro.\n\n== Loans\n\nBorrow.\n\n=== Periods ===\n\nThree weeks.\n"
    assert shown(text) == [
        ("h1", "Guide"),
        ("text", "Intro."),
        ("h2", "Loans"),
        ("text", "Borrow."),
        ("h3", "Periods"),
        ("text", "Three weeks."),
    ]
    underlined = "git-add(1)\n==========\n\nNAME\n----\ngit-add - Add files\n\nMore\n~~~~~\n"
    assert shown(underlined) == [
        ("h1", "git-add(1)"),
        ("h2", "NAME"),
        ("text", "git-add - Add files"),
        ("h3", "More"),
    ]
    assert [i.line for i in asciidoc_items(underlined) if isinstance(i, Heading)] == [1, 4, 8]


def test_an_underline_of_another_length_is_no_title() -> None:
    # Asciidoctor: the underline is as long as the title, give or take one character
    assert shown("Title\n---\n") == [("text", "Title ---")]
    assert shown("Title\n--------\ncode\n--------\n") == [("text", "Title"), ("code", "code")]


def test_titles_stand_only_at_the_top_but_discrete_ones_anywhere() -> None:
    assert shown("====\n== Not a title\n====\n") == [("text", "== Not a title")]
    assert shown("****\n[discrete]\n== Aside\n****\n") == [("h2", "Aside")]


def test_the_header_keeps_attributes_and_shows_the_author() -> None:
    text = (
        "= Loans\nAnn Lee <ann@example.org>\n:toc:\n:period: three weeks\n// a comment\n\n"
        "A loan lasts {period}; {missing} stays; a {caret} and \\{period}.\n\n"
        ":period!:\n\nNow {period}.\n"
    )
    assert shown(text) == [
        ("h1", "Loans"),
        ("text", "Ann Lee <ann@example.org>"),
        ("text", "A loan lasts three weeks; {missing} stays; a ^ and {period}."),
        ("text", "Now {period}."),
    ]
    assert parse_document("loans.adoc", text).title == "Loans"


def test_attribute_values_may_use_earlier_ones() -> None:
    assert substitute("{b}", {"b": "x"}) == "x"
    text = ":url-org: https://example.org\n:url-repo: {url-org}/repo\n\nSee {url-repo}[the repo].\n"
    assert shown(text) == [("text", "See the repo.")]


def test_each_macro_shows_its_text() -> None:
    line = (
        "See linkgit:git-commit[1], link:loans.html[the loans page], "
        "https://example.org/a[Example], mailto:desk@example.org[the desk], "
        "xref:fines.adoc#late[Late fines], "
        "<<periods,loan periods>>, kbd:[Ctrl+T], btn:[Save], menu:File[Save > As], "
        "footnote:[Closed on Sundays.], pass:[<raw>], image:logo.png[The logo, 40], "
        "((renewal)) (((hidden, term))) [[here]]anchor:there[] and https://bare.example.org."
    )
    assert inline_text(line) == (
        "See git-commit(1), the loans page, Example, the desk, Late fines, loan periods, "
        "Ctrl+T, Save, File > Save > As, Closed on Sundays., <raw>, The logo, renewal   "
        "and https://bare.example.org."
    )


def test_cross_references_show_the_title_they_name() -> None:
    text = "= Guide\n\n[[periods]]\n== Loan periods\n\n"
    text += "See <<periods>>, <<_loan_periods>>, <<nowhere>>.\n"
    assert shown(text)[-1] == ("text", "See Loan periods, Loan periods, [nowhere].")
    assert section_id("Loan periods: *three* weeks") == "_loan_periods_three_weeks"


def test_quotes_and_passthroughs_show_their_text() -> None:
    line = (
        "*strong*, _emphasis_, `git add`, ``git commit -a'', **un**constrained, __em__phasis, "
        "#mark#, [.role]#roled#, +{not-an-attribute}+, +++<b>raw</b>+++, \\*stars\\* and a +\n"
    )
    assert inline_text(line) == (
        "strong, emphasis, git add, git commit -a, unconstrained, emphasis, mark, roled, "
        "{not-an-attribute}, <b>raw</b>, *stars* and a\n"
    )


def test_what_is_not_markup_stays_as_written() -> None:
    for text in (
        "snake_case_name and my_var_",
        "2 * 3 * 4 = 24",
        "C++ is fine",  # two would be a passthrough, as Asciidoctor reads them ({cpp} is C++)
        "std::vector and HEAD~1",
        "a | b | c",
        "mail: user@example.org",
        "it's the user's",
    ):
        assert inline_text(text) == text


def test_markup_across_lines_keeps_every_line_number() -> None:
    (block,) = asciidoc_items("Read link:a.html[the\nguide] and\n*then\nrenew*.\n")
    assert isinstance(block, Block)
    assert [line.number for line in block.lines] == [1, 2, 3, 4]
    assert block.text == "Read the guide and then renew."


def test_listing_literal_and_source_blocks_are_code() -> None:
    text = (
        "[source,python]\n----\ndef f():\n    return {x}\n----\n\n"
        "....\n  literal\n....\n\n"
        "[source]\nprint(1)\n\n"
        "```sh\n$ ls\n```\n\n"
        "Text.\n\n   indented\n   literal\n\n"
        ":v: 2.0\n\n[source,subs=\"attributes+\"]\n----\ngem 'x', '{v}'\n----\n"
    )
    assert shown(text) == [
        ("code", "def f():\n    return {x}"),
        ("code", "literal"),
        ("code", "print(1)"),
        ("code", "$ ls"),
        ("text", "Text."),
        ("code", "indented\nliteral"),
        ("code", "gem 'x', '2.0'"),
    ]


def test_compound_blocks_are_read_and_admonitions_labelled() -> None:
    text = (
        "NOTE: Loans last\nthree weeks.\n\n"
        "[WARNING]\n====\nFines *double*.\n\n* after a month\n====\n\n"
        ".Opening hours\n****\nNine to five.\n****\n\n"
        "[quote, Ann]\n____\nRead more.\n____\n\n"
        "[verse]\n'git add' [-n]\n\t  [-v]\n\n"
        "--\nIn an open block.\n--\n\n"
        "++++\n<p>Raw <b>HTML</b></p>\n++++\n"
    )
    assert shown(text) == [
        ("text", "Note"),
        ("text", "Loans last three weeks."),
        ("text", "Warning"),
        ("text", "Fines double."),
        ("text", "after a month"),
        ("text", "Opening hours"),
        ("text", "Nine to five."),
        ("text", "Read more."),
        ("text", "'git add' [-n] [-v]"),
        ("text", "In an open block."),
        ("text", "Raw HTML"),
    ]


def test_what_shows_nothing_is_dropped() -> None:
    text = (
        "// a comment\n\n////\nA block\ncomment\n////\n\n"
        "include::other.adoc[]\n\nimage::logo.png[Logo]\n\ntoc::[]\n\n'''\n\n<<<\n\n"
        "[[anchor]]\n[#id.role]\n[comment]\nHidden.\n\nKept.\n"
    )
    assert shown(text) == [("text", "Kept.")]


def test_conditionals_keep_the_text_of_every_branch() -> None:
    text = "ifdef::git-log[]\nFor log.\nendif::git-log[]\nifndef::x[]\nOther.\nendif::[]\n"
    assert shown(text) == [("text", "For log. Other.")]
    assert shown("ifdef::env-github[Shown on GitHub.]\n") == [("text", "Shown on GitHub.")]


def test_lists_and_description_lists() -> None:
    text = (
        "* first item\ngoes on\n** nested\n- [x] done\n\n. step one\n.. substep\n1. numbered\n\n"
        "--force::\n-f::\n\tOverwrite files\n\tthat exist.\n+\nMore on force.\n\n"
        "term;; its text\n\n<1> a callout\n"
    )
    assert shown(text) == [
        ("text", "first item goes on"),
        ("text", "nested"),
        ("text", "done"),
        ("text", "step one"),
        ("text", "substep"),
        ("text", "numbered"),
        ("text", "--force, -f: Overwrite files that exist."),  # terms with their definition
        ("text", "More on force."),
        ("text", "term: its text"),
        ("text", "a callout"),
    ]


def test_tables_are_rows_of_their_columns_cells_under_a_header() -> None:
    # a row's cells on lines of their own (git's manual writes them so) make one row
    text = (
        '[cols="1,2",options="header"]\n|===\n|Item |Weeks\n\n|Book\n|*3*\n'
        "2+|Both columns\na|AsciiDoc cell ^.^|centred\n|===\n\n"
        ",===\nItem,Weeks\nDVD,1\n,===\n"
    )
    assert shown(text) == [
        ("table", "| Item | Weeks |\n| Book | 3 |\n| Both columns |\n| AsciiDoc cell | centred |"),
        ("table", "|  |  |\n| Item | Weeks |\n| DVD | 1 |"),
    ]


def test_a_table_header_is_the_first_line_over_a_blank_one_unless_noheader() -> None:
    implicit = "|===\n|Item |Weeks\n\n|Book |3\n|DVD\n|one week,\nrenewable\n|===\n"
    assert shown(implicit) == [
        ("table", "| Item | Weeks |\n| Book | 3 |\n| DVD | one week, renewable |")
    ]
    assert shown("[%noheader]\n" + implicit)[0][1].startswith("|  |  |\n| Item | Weeks |")
    repeated = '[cols="3*"]\n|===\n|a |b\n|c\n\n|d |e |f\n|===\n'
    assert shown(repeated) == [("table", "|  |  |  |\n| a | b | c |\n| d | e | f |")]
    # git's reftable.txt: an empty column spec is a column ("avg obj" was read into row 2)
    empty_spec = (
        '[cols=",>,>",options="header",]\n|===\n|format |size |avg\n|reflog |173 M |1209\n|===\n'
    )
    assert shown(empty_spec) == [("table", "| format | size | avg |\n| reflog | 173 M | 1209 |")]
    assert shown("|===\n|x \\| y |z\n|===\n") == [("table", "|  |  |\n| x \\| y | z |")]
    # a letter right after a "|" is a cell, not the next cell's style ("a|")
    assert shown("|===\n|a|b\n\n|c|d\n|===\n") == [("table", "| a | b |\n| c | d |")]
    # a copy count or a column count past MAX_COLUMNS reads no wider (no table of 10^8 cells)
    [(_, huge)] = shown('[cols="99999999*"]\n|===\n99999999*|a\n|===\n')
    assert huge.split("\n")[1].count("| a") == MAX_COLUMNS


@pytest.mark.parametrize(
    "text",
    [
        "----\nunclosed listing\n\nstill code\n",
        "|===\n|a |b\n",
        "====\n* item\n\n----\n",
        "----\n....\n----\n....\n",
        "[source\n----\n",
        "= \n==\n===\n",
        "<<>> <<,>> link:[] linkgit:[] footnote:[ xref:[ {} {",
        "Title\n-----\n-----\n",
        "++++\n<unclosed\n",
        ":attr: \\\n",
        "[[\n]]\n[]\n.\n..\n+\n--\n",
        "*a " * 5000 + "link:a[" * 2000 + "<<a" * 2000,  # marks never closed, on one line
    ],
)
def test_malformed_input_never_raises(text: str) -> None:
    items = asciidoc_items(text)
    assert all(isinstance(i, Heading | Block) for i in items)


def test_an_unclosed_block_runs_to_the_end() -> None:
    assert shown("Before.\n\n----\ncode\n\nmore code\n") == [
        ("text", "Before."),
        ("code", "code\nmore code"),
    ]


_PIECES = st.sampled_from(
    [
        "= Title",
        "== Section",
        "Title",
        "=====",
        "-----",
        "----",
        "....",
        "====",
        "|===",
        "|a |b",
        "",
        "   indented",
        "[source,c]",
        "[NOTE]",
        "NOTE: text",
        "* item",
        ". step",
        "term::",
        "+",
        ".Title",
        ":attr: value",
        "{attr} and *bold* and link:x[y]",
        "include::x.adoc[]",
        "ifdef::x[]",
        "//",
        "////",
        "<<id>>",
        "\tTabbed",
        "`open",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_any_text_reads_without_error_and_keeps_line_order(pieces: list[str]) -> None:
    numbers: list[int] = []
    for item in asciidoc_items("\n".join(pieces)):
        if isinstance(item, Heading):
            numbers.append(item.line)
        else:
            assert item.lines and all(line.text for line in item.lines)
            numbers.extend(line.number for line in item.lines)
    assert numbers == sorted(numbers)
    assert all(1 <= n <= len(pieces) for n in numbers)


_WORDS = st.lists(st.from_regex(r"[a-z]{2,9}[,.]?", fullmatch=True), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=4), min_size=1, max_size=6))
def test_plain_paragraphs_lose_no_text(paragraphs: list[list[list[str]]]) -> None:
    text = "\n\n".join("\n".join(" ".join(line) for line in p) for p in paragraphs)
    expected = [("text", " ".join(" ".join(line) for line in p)) for p in paragraphs]
    assert shown(text) == expected


GIT_PAGE = (
    "git-add(1)\n==========\n\nNAME\n----\ngit-add - Add file contents to the index\n\n"
    "OPTIONS\n-------\n-n::\n--dry-run::\n\tDon't add.\n+\ninclude::dry-run.txt[]\n\n"
    "SEE ALSO\n--------\nlinkgit:git-status[1]\n"
)
FRAGMENT = "--root::\n\tDo not treat root commits as boundaries.\n+\nSee linkgit:git-blame[1].\n"
PLAIN = {
    "news": "Overview of Changes in 3.2\n==========================\n\n* Fixed a crash.\n"
    "* Faster start-up.\n\n----------------------------------------\n\nVersion 3.1\n-----------\n"
    "NOTE: the old option is gone.\n",
    "manual": "1. Introduction\n\nThis manual describes libfoo.\n\n2.1. Options\n\n"
    "   -v   be verbose\n\nSee also: foo(1), http://example.org/foo\n",
    "man": "NAME\n       ls - list directory contents\n\nSYNOPSIS\n"
    "       ls [OPTION]... [FILE]...\n",
    "markdown": "# Title\n\nSome *text* and a [link](https://example.org).\n\n```\ncode\n```\n",
    "relnotes": "Git v2.0 Release Notes\n======================\n\nFixes since v1.9\n"
    '----------------\n\n * "git add" no longer dies.\n   (merge 1234 jc/topic later to maint).\n',
    "signature": "Thanks,\n\n--\nAnn\n\n----\nquoted\n----\n",
}


def test_the_detector_claims_asciidoc_txt_files() -> None:
    assert looks_like_asciidoc(GIT_PAGE)
    assert looks_like_asciidoc(FRAGMENT)
    assert looks_like_asciidoc("= Loans\n:toc:\n\nText.\n")
    assert looks_like_asciidoc("= Loans\nAnn Lee <ann@example.org>\n\nText.\n")
    assert looks_like_asciidoc("= Loans\n\nText.\n\n== Periods\n\nMore.\n")
    assert looks_like_asciidoc("Content-type: text/asciidoc\n\nHow to\n======\n")
    assert looks_like_asciidoc("|===\n|a |b\n|===\n")
    weak = "[source,c]\n----\nint x;\n----\n\nSee <<intro>>.\n\n:toc:\n"
    assert looks_like_asciidoc(weak)


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_the_detector_leaves_plain_text_alone(name: str) -> None:
    assert not looks_like_asciidoc(PLAIN[name])
    assert parse_document(f"{name}.txt", PLAIN[name]).metadata["format"] == "text"


def test_restructuredtext_is_never_asciidoc() -> None:
    # its directive, field list and literal block look like AsciiDoc's weak signs
    rst = (
        "Title\n=====\n\n.. note::\n\n   A note.\n\n:param x: value\n\nExample::\n\n"
        "    code\n\n----\n\nterm::\n"
    )
    assert not looks_like_asciidoc(rst)
    assert parse_document("rst.txt", rst).metadata["format"] == "rst"


def test_two_weak_signs_are_not_enough() -> None:
    assert not looks_like_asciidoc("[source,c]\n----\nint x;\n----\n")
    assert not looks_like_asciidoc("----\nquoted\n----\n\nSee <<intro>>.\n")


def test_asciidoc_files_load_as_documents(tmp_path: Path) -> None:
    (tmp_path / "loans.adoc").write_text("= Loans\n\n== Periods\n\nThree weeks.\n")
    (tmp_path / "fines.asciidoc.gz").write_bytes(gzip.compress(b"= Fines\n\nNone.\n"))
    (tmp_path / "git-add.txt").write_text(GIT_PAGE)
    (tmp_path / "news.txt").write_text(PLAIN["news"])
    (tmp_path / "only-include.adoc").write_text("include::other.adoc[]\n")
    with pytest.warns(UserWarning, match="only-include.adoc"):
        documents, report = load_path(tmp_path)
    by_source = {d.source: d for d in documents}
    assert {s: d.metadata["format"] for s, d in by_source.items()} == {
        "fines.asciidoc.gz": "asciidoc",
        "git-add.txt": "asciidoc",
        "loans.adoc": "asciidoc",
        "news.txt": "text",
    }
    assert [s.heading for s in by_source["loans.adoc"].sections] == ["Loans", "Periods"]
    page = by_source["git-add.txt"]
    assert page.title == "git-add(1)"
    assert [s.heading for s in page.sections] == ["git-add(1)", "NAME", "OPTIONS", "SEE ALSO"]
    assert "include::" not in page.text and "git-status(1)" in page.text
    assert [(s.path, s.reason) for s in report.skipped] == [("only-include.adoc", "no text")]


def test_an_asciidoc_page_is_read_before_its_built_html(tmp_path: Path) -> None:
    (tmp_path / "guide.adoc").write_text("= Guide\n\nText.\n")
    (tmp_path / "guide.html").write_text("<h1>Guide</h1><p>Text.</p>")
    assert [source for _, source in find_files([tmp_path])[0]] == ["guide.adoc"]
