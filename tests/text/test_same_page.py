"""The thresholds that tell a page in another format from a different text of the same name,
checked on Node.js's API pages (``x.md`` beside ``x.html``) and git's manual pages (an
AsciiDoc ``x.txt`` beside ``x.html``) where Debian ships them."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from docqa.text.same_page import same_page

NODE_API = Path("/usr/share/doc/nodejs/api")
GIT_DOC = Path("/usr/share/doc/git-doc")


def test_a_page_and_its_reformatted_copy_are_one_page_and_other_texts_are_not(tmp_path) -> None:
    md = tmp_path / "a.md"
    md.write_text("# Loans\n\nBooks are lent for **three weeks** and renewed twice.\n")
    html = tmp_path / "a.html"
    html.write_text("<h1>Loans</h1><p>Books are lent for <b>three weeks</b> and renewed twice.</p>")
    other = tmp_path / "a.txt"
    other.write_text("Parking\n\nThe car park closes at nine, and books are not lent there.\n")
    assert same_page(md, "a.md", html, "a.html")
    assert not same_page(md, "a.md", other, "a.txt")


@pytest.mark.skipif(not NODE_API.is_dir(), reason="Node.js's API docs are not installed here")
def test_nodes_pages_in_two_formats_are_one_page_and_neighbours_are_not() -> None:
    stems = sorted(p.stem for p in NODE_API.glob("*.md") if (NODE_API / f"{p.stem}.html").exists())
    assert len(stems) > 10
    for stem in stems:
        assert same_page(NODE_API / f"{stem}.md", f"{stem}.md", NODE_API / f"{stem}.html",
                         f"{stem}.html"), stem  # fmt: skip
    for a, b in itertools.pairwise(stems):  # http and http2 among them
        assert not same_page(NODE_API / f"{a}.md", f"{a}.md", NODE_API / f"{b}.html",
                             f"{b}.html"), (a, b)  # fmt: skip


def test_a_source_whose_include_is_not_followed_is_the_page_that_holds_it(tmp_path) -> None:
    """An AsciiDoc page whose ``include::`` docqa does not follow has few of the words of
    its HTML build (which holds the included text), yet all its words are in it: passing
    the source over loses no word. The HTML page is not passed over for the source."""
    options = " ".join(f"--option-{i} changes how the blame is shown" for i in range(40))
    source = tmp_path / "git-blame.txt"
    source.write_text("= git-blame(1)\n\n== NAME\n\ngit-blame - Show who changed each line\n\n"
                      "== OPTIONS\n\ninclude::blame-options.txt[]\n")  # fmt: skip
    html = tmp_path / "git-blame.html"
    html.write_text("<h1>git-blame(1)</h1><h2>NAME</h2><p>git-blame - Show who changed each "
                    f"line</p><h2>OPTIONS</h2><p>{options}</p>")  # fmt: skip
    assert same_page(source, "git-blame.txt", html, "git-blame.html")
    assert not same_page(html, "git-blame.html", source, "git-blame.txt")
    shorter = tmp_path / "shorter.txt"  # a few words short of the page's: a different text
    shorter.write_text("git-blame shows who changed each line, and when it was last released\n")
    assert not same_page(shorter, "git-blame.txt", html, "git-blame.html")


@pytest.mark.skipif(not GIT_DOC.is_dir(), reason="git's manual pages are not installed here")
def test_gits_asciidoc_sources_are_their_html_pages_and_neighbours_are_not() -> None:
    stems = sorted(p.stem for p in GIT_DOC.glob("git-*.txt") if p.with_suffix(".html").exists())
    assert len(stems) > 100
    for stem in stems:
        assert same_page(GIT_DOC / f"{stem}.txt", f"{stem}.txt", GIT_DOC / f"{stem}.html",
                         f"{stem}.html"), stem  # fmt: skip
    for a, b in itertools.pairwise(stems):  # git-diff and git-diff-files among them
        for x, y in ((a, b), (b, a)):
            assert not same_page(GIT_DOC / f"{x}.txt", f"{x}.txt", GIT_DOC / f"{y}.html",
                                 f"{y}.html"), (x, y)  # fmt: skip
