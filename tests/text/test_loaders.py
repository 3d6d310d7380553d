"""Loaders: folders and files become documents; bad files are skipped with a reason."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from docqa.errors import InputError
from docqa.text import SkippedFileWarning, load_path, load_paths, parse_document, section_ids
from docqa.text.html import parse_html
from docqa.text.loaders import LINKS, OTHER_FORMATS, STATIC_FILES, find_files

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    write(tmp_path, "good.md", "# Good\n\nFine text.\n")
    write(tmp_path, "guide/deep/page.html", "<h1>Deep</h1><p>Deep text.</p>")
    write(tmp_path, "notes.txt", "Notes\n\nPlain words.\n")
    write(tmp_path, "latin.md", "# Caf\xe9\n\nna\xefve\n".encode("latin-1"))
    write(tmp_path, "image.md", PNG)
    write(tmp_path, "empty.txt", b"")
    write(tmp_path, "meta-only.md", "---\ntitle: Nothing else\n---\n")
    write(tmp_path, "broken-yaml.md", "---\ntitle: [unclosed\n---\n# X\n\ny\n")
    write(tmp_path, "picture.png", PNG)  # other types are ignored in a folder
    write(tmp_path, ".hidden/secret.md", "# Hidden\n\nno\n")
    return tmp_path


def test_folder_loads_the_good_files_and_skips_the_bad_with_reasons(mixed: Path) -> None:
    with pytest.warns(SkippedFileWarning) as caught:
        documents, report = load_path(mixed)
    assert [d.source for d in documents] == ["good.md", "guide/deep/page.html", "notes.txt"]
    assert report.loaded == ("good.md", "guide/deep/page.html", "notes.txt")
    reasons = {s.path: s.reason for s in report.skipped}
    assert set(reasons) == {"latin.md", "image.md", "empty.txt", "meta-only.md", "broken-yaml.md"}
    assert reasons["latin.md"].startswith("not valid UTF-8 (byte 0xe9 at offset 5)")
    assert "binary" in reasons["image.md"]
    assert reasons["empty.txt"] == "empty file"
    assert reasons["meta-only.md"] == "no text outside the front matter"
    assert "front matter is not valid YAML" in reasons["broken-yaml.md"]
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("skipped latin.md: not valid UTF-8") for m in messages)
    assert len(messages) == 5
    assert report.summary().startswith("3 documents loaded, 5 files skipped (")


def test_a_page_that_asks_not_to_be_indexed_is_skipped_with_the_reason(tmp_path: Path) -> None:
    # mdBook's print.html repeats every chapter; the Rust book's old chapters are stubs
    body = "<body><h1>Ch</h1><p>Every chapter again.</p></body>"
    write(tmp_path, "print.html", f'<head><meta name="robots" content="noindex" /></head>{body}')
    write(tmp_path, "old.html", f"<HEAD><META CONTENT='noindex,follow' NAME=robots></HEAD>{body}")
    write(
        tmp_path,
        "gz.html.gz",
        gzip.compress(f'<meta name="robots" content="noindex">{body}'.encode()),
    )
    write(tmp_path, "kept.html", f'<head><meta name="robots" content="index,follow"></head>{body}')
    write(tmp_path, "says.html", f'{body}<p><meta name="robots" content="noindex"> in a body</p>')
    write(tmp_path, "guide.md", '# Guide\n\n<meta name="robots" content="noindex">\n')
    with pytest.warns(SkippedFileWarning):
        documents, report = load_path(tmp_path)
    assert [d.source for d in documents] == ["guide.md", "kept.html", "says.html"]
    assert sorted(s.path for s in report.skipped) == ["gz.html.gz", "old.html", "print.html"]
    assert all("asks not to be indexed" in s.reason for s in report.skipped)
    # a page the user names is read
    documents, report = load_paths([tmp_path / "print.html", tmp_path / "gz.html.gz"])
    assert [d.source for d in documents] == ["print.html", "gz.html.gz"] and not report.skipped


def test_a_page_that_sends_its_reader_on_at_once_is_skipped_unless_named(tmp_path: Path) -> None:
    # Texinfo's stub for each node of a split manual (zsh's), rustdoc's, SQLite's sqlite.html
    stub = "<body><p>The node you are looking for is at <a href='G.html#A'>Aliasing</a>.</p>"
    write(
        tmp_path,
        "Aliasing.html",
        f'<head><meta http-equiv="Refresh" content="0; url=G.html#A"></head>{stub}',
    )
    write(
        tmp_path,
        "moved.html",
        f"<head><META HTTP-EQUIV=refresh CONTENT='0;URL=\"new.html\"'></head>{stub}",
    )
    write(
        tmp_path,
        "sqlite.html.gz",
        gzip.compress(
            b'<head><meta http-equiv="refresh" content="0; ./cli.html"></head><body>Redirect</body>'
        ),
    )
    # a page that reloads itself, or moves on only after a while, is a page
    page = "<body><h1>Status</h1><p>The queue holds three jobs.</p></body>"
    write(tmp_path, "live.html", f'<head><meta http-equiv="refresh" content="30"></head>{page}')
    write(
        tmp_path,
        "later.html",
        f'<head><meta http-equiv="refresh" content="5; url=new.html"></head>{page}',
    )
    write(tmp_path, "body.html", f'{page}<p><meta http-equiv="refresh" content="0; url=x"></p>')
    with pytest.warns(SkippedFileWarning, match="sends its reader on at once"):
        documents, report = load_path(tmp_path)
    assert [d.source for d in documents] == ["body.html", "later.html", "live.html"]
    assert sorted(s.path for s in report.skipped) == ["Aliasing.html", "moved.html",
                                                      "sqlite.html.gz"]  # fmt: skip
    assert all("give its path to index it" in s.reason for s in report.skipped)
    documents, report = load_paths([tmp_path / "Aliasing.html"])
    assert [d.text for d in documents] == ["The node you are looking for is at Aliasing."]
    assert not report.skipped


def test_a_sites_page_not_found_is_skipped_unless_named(tmp_path: Path) -> None:
    # Sphinx themes and MkDocs write 404.html, served for addresses a site does not have
    body = "<title>Page Not Found</title><h1>Page Not Found</h1><p>The page does not exist.</p>"
    write(tmp_path, "html/404.html", body)
    write(tmp_path, "site/404.htm.gz", gzip.compress(body.encode()))
    write(tmp_path, "html/options.html", "<h1>Options</h1><p>Pass required=True.</p>")
    write(tmp_path, "status/404.md", "# 404 Not Found\n\nThe server has no such page.\n")
    write(tmp_path, "html/4040.html", "<h1>Port 4040</h1><p>The web UI listens there.</p>")
    with pytest.warns(SkippedFileWarning, match="a site.s page for addresses"):
        documents, report = load_path(tmp_path)
    assert [d.source for d in documents] == ["html/4040.html", "html/options.html", "status/404.md"]
    assert sorted(s.path for s in report.skipped) == ["html/404.html", "site/404.htm.gz"]
    assert all("give its path to index it" in s.reason for s in report.skipped)
    documents, report = load_paths([tmp_path / "html" / "404.html"])
    assert [d.title for d in documents] == ["Page Not Found"] and not report.skipped


def test_a_sphinx_builds_static_files_are_passed_over_unless_named(tmp_path: Path) -> None:
    # Borg's manual (borgbackup-doc): the theme's fonts come with their READMEs in _static
    readme = "# Source Serif Pro\n\n## Installation instructions\n\nCopy the fonts.\n"
    write(tmp_path, "html/objects.inv", b"# Sphinx inventory version 2\n")
    write(tmp_path, "html/searchindex.js", "Search.setIndex({})")
    write(tmp_path, "html/installation.html", "<h1>Installation</h1><p>Run pip install.</p>")
    write(tmp_path, "html/_static/fonts/README.md", readme)
    write(tmp_path, "html/_static/fonts/ReadMe.html", "<h1>Fonts</h1><p>Install them.</p>")
    write(tmp_path, "html/_static/basic.css", "body {}")
    write(tmp_path, "html/usage/_static/notes.md", "# Notes\n\nA page the author put here.\n")
    write(tmp_path, "site/_static/guide.md", "# Guide\n\nNot a Sphinx build: read.\n")
    others: Counter[str] = Counter()
    found, _ = find_files([tmp_path], others)
    assert [source for _, source in found] == [
        "html/installation.html",
        "html/usage/_static/notes.md",
        "site/_static/guide.md",
    ]
    assert others[STATIC_FILES] == 2 and others[".css"] == 1
    named = tmp_path / "html" / "_static" / "fonts" / "README.md"
    assert [d.title for d in load_paths([named])[0]] == ["Source Serif Pro"]
    found, _ = find_files([tmp_path / "html" / "_static"])  # its own folder: no build around it
    assert [source for _, source in found] == ["fonts/README.md", "fonts/ReadMe.html"]


def test_titles_and_formats(mixed: Path) -> None:
    with pytest.warns(SkippedFileWarning):
        documents, _ = load_path(mixed)
    by_source = {d.source: d for d in documents}
    assert by_source["good.md"].title == "Good"
    assert by_source["guide/deep/page.html"].title == "Deep"
    assert by_source["notes.txt"].title == "Notes"
    assert [d.metadata["format"] for d in documents] == ["markdown", "html", "text"]


def test_empty_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(
        InputError,
        match=r"no \.md, \.rst, \.adoc, \.txt, \.html, \.htm or \.pdf files or manual pages "
        r"\(also gzipped\) found in",
    ):
        load_path(tmp_path)


def test_folder_of_only_bad_files_is_an_error_listing_them(tmp_path: Path) -> None:
    write(tmp_path, "a.md", PNG)
    with pytest.warns(SkippedFileWarning), pytest.raises(InputError, match=r"a\.md: binary"):
        load_path(tmp_path)


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"does not exist"):
        load_path(tmp_path / "nope")


def test_files_given_directly(tmp_path: Path) -> None:
    md = write(tmp_path, "sub/a.md", "# A\n\ntext\n")
    docx = write(tmp_path, "b.docx", b"PK\x03\x04")
    with pytest.warns(SkippedFileWarning, match=r"unsupported file type '\.docx'"):
        documents, report = load_paths([md, docx])
    assert [d.source for d in documents] == ["a.md"]
    assert report.skipped[0].path.endswith("b.docx")
    # a gzipped file is named by both its suffixes (Debian gzips its OpenAPI files)
    spec = write(tmp_path, "v1.41.yaml.gz", b"\x1f\x8b")
    with pytest.warns(SkippedFileWarning, match=r"unsupported file type '\.yaml\.gz'"):
        load_paths([md, spec])


def test_same_source_twice_is_an_error(tmp_path: Path) -> None:
    one = write(tmp_path, "x/a.md", "# A\n\none\n")
    two = write(tmp_path, "y/a.md", "# A\n\ntwo\n")
    with pytest.raises(InputError, match=r"would both be 'a\.md'"):
        load_paths([one, two])


def test_a_page_in_several_formats_is_read_once_in_the_format_a_writer_keeps(
    tmp_path: Path,
) -> None:
    # as Node.js's API docs (vm.md beside vm.html) and Debian's docs (a page's .html beside
    # its .txt.gz) ship them: the same ids twice, else
    write(tmp_path, "api/vm.md", "# vm\n\nContexts.\n")
    write(tmp_path, "api/vm.html", "<h1>vm</h1><p>Contexts.</p>")
    write(tmp_path, "guide.txt.gz", gzip.compress(b"Guide\n\nThe built page.\n"))
    write(tmp_path, "guide.html", "<h1>Guide</h1><p>The built page.</p>")
    write(tmp_path, "intro.rst", "Intro\n=====\n\nThe source, *built*.\n")
    write(tmp_path, "intro.htm", "<h1>Intro</h1><p>The source, <em>built</em>.</p>")
    write(tmp_path, "notes.md.gz", gzip.compress(b"# Notes\n\nPlain.\n"))
    write(tmp_path, "notes.md", "# Notes\n\nPlain.\n")
    write(tmp_path, "report.pdf", b"%PDF-1.4 not read here")  # ids keep .pdf: no clash
    write(tmp_path, "report.txt", "Report\n")
    write(tmp_path, "other/vm.html", "<h1>vm</h1><p>Another folder.</p>")
    others: Counter[str] = Counter()
    found, _ = find_files([tmp_path], others)
    assert [source for _, source in found] == [
        "api/vm.md",
        "guide.html",
        "intro.rst",
        "notes.md",
        "other/vm.html",
        "report.pdf",
        "report.txt",
    ]
    assert others == {OTHER_FORMATS: 4}
    # the page left is read in the next format once the kept one is gone
    (tmp_path / "api" / "vm.md").unlink()
    assert "api/vm.html" in [source for _, source in find_files([tmp_path])[0]]


def test_files_of_one_name_and_different_texts_are_not_taken_for_copies(
    tmp_path: Path,
) -> None:
    write(tmp_path, "good.md", "# Good\n\nApples grow on trees in the orchard.\n")
    write(tmp_path, "good.txt", "Rockets need fuel to reach orbit around the planet.\n")
    write(tmp_path, "good.html", "<h1>Other</h1><p>Whales sing under the cold sea.</p>")
    write(tmp_path, "same.md", "# Same\n\nThe page, as its writer keeps it.\n")
    write(tmp_path, "same.html", "<h1>Same</h1><p>The page, as its writer keeps it.</p>")
    write(tmp_path, "same.txt", "Same\n\nThe page, as its writer keeps it.\n")
    others: Counter[str] = Counter()
    copies: list[tuple[str, str]] = []
    found, unknown = find_files([tmp_path], others, None, copies)
    assert [source for _, source in found] == ["good.html", "good.md", "good.txt", "same.md"]
    assert others == {OTHER_FORMATS: 2} and unknown == []
    assert copies == [("same.html", "same.md"), ("same.txt", "same.md")]
    documents, _ = load_paths([tmp_path])
    assert [section_ids(d)[0] for d in documents] == [
        "good.html#other", "good.md#good", "good.txt#intro", "same#same",
    ]  # fmt: skip


def test_a_file_met_twice_through_a_symlink_is_read_once_under_its_own_name(
    tmp_path: Path,
) -> None:
    # Debian's python3 docs: index.html -> python-policy.html
    write(tmp_path, "python-policy.html", "<h1>Policy</h1><p>Packaging.</p>")
    (tmp_path / "index.html").symlink_to("python-policy.html")
    write(tmp_path, "outside/notes.md", "# Notes\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").symlink_to(tmp_path / "outside" / "notes.md")
    others: Counter[str] = Counter()
    found, _ = find_files([tmp_path], others)
    assert [source for _, source in found] == ["outside/notes.md", "python-policy.html"]
    assert others == {LINKS: 2}
    # a link to a file outside the walk is read, under the link's name
    found, _ = find_files([tmp_path / "docs"])
    assert [source for _, source in found] == ["notes.md"]


def test_files_given_by_name_that_would_share_ids_keep_their_suffixes(tmp_path: Path) -> None:
    md = write(tmp_path, "a.md", "# A\n\none\n")
    html = write(tmp_path, "a.html", "<h1>A</h1><p>two</p>")
    documents, _ = load_paths([md, html])
    assert [section_ids(d) for d in documents] == [["a.md#a"], ["a.html#a"]]
    with pytest.raises(InputError, match=r"a\.md and .*a\.md would both be 'a\.md'; "):
        load_paths([md, md])


def test_utf8_bom_and_uppercase_suffix(tmp_path: Path) -> None:
    write(tmp_path, "BOM.MD", "\ufeff# Title\n\nbody\n".encode())
    documents, _ = load_path(tmp_path)
    assert documents[0].title == "Title"
    assert documents[0].sections[0].start_line == 1


def test_markdown_sections_and_lines() -> None:
    text = "Lead.\n\n# Title\n\n## A\n\nOne\ntwo.\n\n```\n# code\n```\n\nSetext\n------\n\nz\n"
    doc = parse_document("p.md", text)
    assert [(s.heading, s.level, s.start_line, s.end_line) for s in doc.sections] == [
        ("", 0, 1, 1),
        ("Title", 1, 3, 3),
        ("A", 2, 5, 11),
        ("Setext", 2, 14, 17),
    ]
    assert doc.sections[2].blocks[1].lines[0].number == 11  # "# code" is code on line 11
    assert doc.text.startswith("Lead.\n\nTitle\n\nA\n\nOne two.")


def test_txt_title_falls_back_to_file_name_for_long_first_line() -> None:
    doc = parse_document("dir/opening-hours.txt", "x " * 60 + "\n\nmore\n")
    assert doc.title == "Opening hours"
    assert [len(s.blocks) for s in doc.sections] == [2]


def test_txt_saved_from_a_terminal_loses_its_escapes_and_keeps_its_lines() -> None:
    text = (
        "\x1b[1mman-db - the manual pager suite\x1b[0m\n\n"
        "    \x1b[4mGraeme\x1b[24m \x1b[4mWilford\x1b[24m wrote it.\n\n"
        "N\bNA\bAM\bME\bE\n  l\bls\bs - _\bl_\bi_\bs_\bt directory contents\n"
    )
    doc = parse_document("man-db-manual.txt", text)
    assert doc.title == "man-db - the manual pager suite"
    lines = [(ln.number, ln.text) for s in doc.sections for b in s.blocks for ln in b.lines]
    assert lines == [
        (1, "man-db - the manual pager suite"),
        (3, "Graeme Wilford wrote it."),
        (5, "NAME"),
        (6, "ls - list directory contents"),
    ]
    plain = parse_document("plain.txt", "A tab\there and a caret ^[ stay.\n")
    assert plain.sections[0].blocks[0].lines[0].text == "A tab here and a caret ^[ stay."


# --- HTML ---------------------------------------------------------------------------------


def test_html_drops_script_style_navigation_and_comments() -> None:
    html = (
        "<html><head><title>T</title><style>p{}</style><script>if (a < b) x();</script></head>"
        "<body><header>banner</header><nav><nav>inner</nav>still nav</nav>"
        "<div role='navigation'>menu</div><aside>side</aside><!-- hidden -->"
        "<article><header><h1>Kept header</h1></header><p>Body text</p>"
        "<footer>article footer</footer></article><footer>site footer</footer></body></html>"
    )
    title, items = parse_html(html)
    texts = [getattr(i, "text", "") for i in items]
    assert title == "T"
    assert texts == ["Kept header", "Body text", "article footer"]


def test_html_headings_levels_lines_and_title_from_h1() -> None:
    html = "<p>lead</p>\n<h1>Top</h1>\n<h3>Third</h3>\n<p>a\nb <b>c</b></p>\n"
    doc = parse_document("p.html", html)
    assert doc.title == "Top"
    assert [(s.heading, s.level, s.start_line, s.end_line) for s in doc.sections] == [
        ("", 0, 1, 1),
        ("Top", 1, 2, 2),
        ("Third", 3, 3, 5),
    ]
    assert doc.sections[2].text == "a b c"


def test_html_tolerates_broken_markup() -> None:
    title, items = parse_html("<h2>Open heading<p>para <b>bold <i>never closed")
    assert title == ""
    assert [getattr(i, "text", "") for i in items] == ["Open heading", "para bold never closed"]
