"""Pages laid out with tables (libxml's and libxslt's sites, DocBook's FAQ): the cells of a
layout table are the page's flow, its navigation boxes go, and data tables stay tables."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.text import load_chunks
from docqa.text.documents import Block, Heading
from docqa.text.html import parse_html
from docqa.text.html_layout import TableSurvey, may_lay_out

# the shape of libxslt's pages (/usr/share/doc/libxslt1-dev/html): a banner table with the
# h1 and h2, then a table whose left cell holds the menu boxes and whose right cell, three
# tables down, holds the content
OLD_SITE = """<html><head><title>Writing extensions</title></head><body>
<table border="0" width="100%"><tr><td><img src="logo.gif" alt="Logo" /></td>
<td><table><tr><td><h1>The XSLT C library</h1><h2>Writing extensions</h2></td></tr></table></td>
</tr></table>
<table border="0" width="100%"><tr><td valign="top" width="200">
<table width="100%"><tr><td><b>Main Menu</b></td></tr>
<tr><td><form action="search.php"><input name="query" /></form><ul>
<li><a href="index.html">Home</a></li><li><a href="intro.html">Introduction</a></li>
<li><a href="FAQ.html">FAQ</a></li><li><a href="news.html">News</a></li></ul></td></tr></table>
<table width="100%"><tr><td><b>Related links</b></td></tr>
<tr><td><ul><li><a href="t.html">Tutorial</a></li><li><a href="m.html">Mail archive</a></li>
<li><a href="b.html">Bug Tracker</a></li></ul></td></tr></table>
</td><td valign="top"><table><tr><td><table><tr><td>
<h3><a name="Basics">Basics</a></h3>
<p>Extensions are bound to a namespace, see <a href="a.html">one</a>, <a href="b.html">two</a>
and <a href="c.html">three</a> for the details of each kind.</p>
<pre>int xsltRegisterExtFunction(ctxt, name, URI, function);</pre>
<table border="1"><tr><th>Kind</th><th>Call</th></tr><tr><td>function</td><td>register</td></tr></table>
<h3><a name="Future">Future work</a></h3><p>More examples.</p>
</td></tr></table></td></tr></table></td></tr></table>
</body></html>
"""


def blocks_under(items: list[Heading | Block]) -> dict[str, list[Block]]:
    """Each heading's text -> the blocks after it, up to the next heading."""
    out: dict[str, list[Block]] = {"": []}
    current = ""
    for item in items:
        if isinstance(item, Heading):
            current = item.text
            out[current] = []
        else:
            out[current].append(item)
    return out


@pytest.mark.parametrize("fast", [True, False])
def test_an_old_site_reads_as_its_sections_without_its_menus(fast: bool) -> None:
    title, items = parse_html(OLD_SITE, fast=fast)
    assert title == "Writing extensions"
    headings = [(i.text, i.level) for i in items if isinstance(i, Heading)]
    assert headings == [
        ("The XSLT C library", 1),
        ("Writing extensions", 2),
        ("Basics", 3),
        ("Future work", 3),
    ]
    under = blocks_under(items)
    assert under[""] == [] and under["The XSLT C library"] == []
    assert under["Writing extensions"] == []  # menus, their labels and the logo: gone
    basics = under["Basics"]
    assert [b.kind for b in basics] == ["text", "code", "table"]
    assert basics[0].lines[0].text.startswith("Extensions are bound to a namespace, see one")
    assert basics[1].lines[0].text == "int xsltRegisterExtFunction(ctxt, name, URI, function);"
    assert [line.text for line in basics[2].lines] == [
        "| Kind | Call |",
        "| function | register |",
    ]  # a data table inside a layout cell stays a table
    assert [line.text for b in under["Future work"] for line in b.lines] == ["More examples."]


def test_the_survey_names_the_layout_tables_and_the_menus() -> None:
    layout, nav = TableSurvey().survey(OLD_SITE)
    # tables in order: banner, its header, the two-column body, Main Menu, Related links,
    # the content's two wrappers, the data table
    assert sorted(layout) == [0, 1, 2, 3, 4, 5, 6]
    # cells in order: logo, banner's second cell, header, left column, "Main Menu", its
    # links, "Related links", its links, right column, the wrappers' cells, then the data's
    assert sorted(nav) == [4, 5, 6, 7]


@pytest.mark.parametrize(
    ("table", "is_layout"),
    [
        ("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>", False),
        ("<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>", False),
        ("<table><caption>c</caption><tr><td>only one</td></tr></table>", False),
        ("<table><tr><th>only a header row</th><th>b</th></tr></table>", False),
        ("<table><tr><td>one row</td><td>two cells</td></tr></table>", False),
        ("<table><tr><td>one cell</td></tr></table>", True),
        ("<table><tr><td>one column</td></tr><tr><td>two rows</td></tr></table>", True),
        (
            "<table role='presentation'><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>",
            True,
        ),
        (
            "<table><tr><td><h4>heading</h4></td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>",
            True,
        ),
    ],
)
def test_which_tables_lay_out_the_page(table: str, is_layout: bool) -> None:
    layout, _ = TableSurvey().survey(table)
    assert (0 in layout) == is_layout
    assert may_lay_out(table) or not is_layout  # the pre-check never misses one
    kinds = [b.kind for b in parse_html(table)[1] if isinstance(b, Block)]
    assert ("table" not in kinds) == is_layout


def test_a_texinfo_cartouche_is_text_and_a_cell_with_few_links_stays() -> None:
    page = (
        "<h2>Loans</h2><table class='cartouche'><tr><td><p>Note: books are due in "
        "<a href='#w'>three</a> <a href='#x'>weeks</a>, see <a href='y.html'>fines</a> and "
        "the rules on renewals, holds and the reading room.</p></td></tr></table>"
    )
    _, items = parse_html(page)
    assert [b.kind for b in items if isinstance(b, Block)] == ["text"]
    assert "the rules on renewals" in items[1].lines[0].text  # type: ignore[union-attr]


def test_a_docbook_faq_table_reads_as_questions_and_answers() -> None:
    page = """<table summary="Q and A Div"><tr class="qandadiv"><td colspan="2">
<h3>2. Compiling</h3></td></tr>
<tr class="toc"><td colspan="2">2.1. <a href="faq.html#a">make dies</a><br>2.2.
<a href="faq.html#b">ld fails</a><br>2.3. <a href="faq.html#c">no glibc</a></td></tr>
<tr class="question"><td><b>2.1.</b></td><td><b>When building, make dies:</b>
<pre>make: expand.c:489: assertion failed</pre></td></tr>
<tr class="answer"><td></td><td><p>It's probably a bug in make.</p></td></tr></table>"""
    _, items = parse_html(page)
    under = blocks_under(items)
    assert [b.kind for b in under["2. Compiling"]] == ["text", "text", "code", "text"]
    assert [b.lines[0].text for b in under["2. Compiling"]] == [
        "2.1.",
        "When building, make dies:",
        "make: expand.c:489: assertion failed",
        "It's probably a bug in make.",
    ]  # the section's list of its questions (all links) is navigation


def test_an_old_site_folder_loads_with_ids_per_section(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "extensions.html").write_text(OLD_SITE)
    chunks, report = load_chunks([tmp_path / "docs"])
    assert report.loaded == ("extensions.html",)
    assert [c.id for c in chunks] == ["extensions#basics", "extensions#future-work"]
    assert chunks[0].heading_path == (
        "Writing extensions",
        "The XSLT C library",
        "Writing extensions",
        "Basics",
    )
    assert not any("Main Menu" in c.text or "Bug Tracker" in c.text for c in chunks)


CELL = st.sampled_from(
    ["<td>x</td>", "<th>h</th>", "<td><h3>t</h3></td>", "<td><a href=a>l</a></td>"]
)
ROW = st.lists(CELL, min_size=0, max_size=3).map(lambda cells: "<tr>" + "".join(cells) + "</tr>")
TABLE = st.recursive(
    st.lists(ROW, min_size=0, max_size=3).map(lambda rows: "<table>" + "".join(rows) + "</table>"),
    lambda inner: st.tuples(st.lists(ROW, max_size=2), inner).map(
        lambda t: "<table>" + "".join(t[0]) + "<tr><td>" + t[1] + "</td></tr></table>"
    ),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(TABLE, st.just("<p>text</p>"), st.just("<!-- <table> -->")), max_size=4))
def test_the_pre_check_never_misses_a_layout_table(parts: list[str]) -> None:
    page = "".join(parts)
    layout, _ = TableSurvey().survey(page)
    assert may_lay_out(page) or not layout
    assert parse_html(page) == parse_html(page, fast=False)


OWN_TOC = """<h1>Writing extensions</h1>
<h3>Table of content</h3><ul>
  <li><a href="extensions.html#Basics">Basics</a></li>
  <li><a HREF='extensions.html#Future'>Future work</a></li>
</ul>
<h3><a name="Basics">Basics</a></h3><p>See <a href="extensions.html#Future">future work</a>.</p>
<h3><a name="Future">Future work</a></h3><p>More examples.</p>"""


@pytest.mark.parametrize("fast", [True, False])
def test_a_list_of_links_to_the_page_by_its_own_name_is_its_table_of_contents(fast: bool) -> None:
    _, items = parse_html(OWN_TOC, fast=fast, page="extensions.html")
    under = blocks_under(items)
    assert under["Table of content"] == []  # its list of links to itself went
    assert [line.text for b in under["Basics"] for line in b.lines] == ["See future work."]
    # another page's name, or none, keeps the list: those are links to other pages
    for page in ("", "internals.html"):
        _, kept = parse_html(OWN_TOC, fast=fast, page=page)
        assert [line.text for b in blocks_under(kept)["Table of content"] for line in b.lines] == [
            "Basics",
            "Future work",
        ]


def test_own_anchors_rewrites_only_links_and_keeps_the_lines() -> None:
    from docqa.text.html import own_anchors

    text = 'x <a class=k href="faq.html#q1">q</a>\n<p>href="faq.html#q2" as text</p>\n<A HREF=faq.html#q3>'
    out = own_anchors(text, "faq.html")
    assert out == 'x <a class=k href="#q1">q</a>\n<p>href="faq.html#q2" as text</p>\n<A HREF=#q3>'
    assert own_anchors(text, "FAQ.html") == text  # the name as written
    assert own_anchors(text, "") == text


def test_the_loader_passes_each_page_its_own_name(tmp_path: Path) -> None:
    import gzip

    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "sub" / "extensions.html").write_text(OWN_TOC)
    (tmp_path / "docs" / "zipped").mkdir()
    (tmp_path / "docs" / "zipped" / "extensions.html.gz").write_bytes(
        gzip.compress(OWN_TOC.encode())
    )
    chunks, _ = load_chunks([tmp_path / "docs"])
    for prefix in ("sub/extensions", "zipped/extensions"):
        ids = [c.id for c in chunks if c.id.startswith(prefix + "#")]
        assert ids == [f"{prefix}#basics", f"{prefix}#future-work"]  # no table-of-content chunk
