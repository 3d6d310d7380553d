"""The threshold that tells a page in another format from a different text of the same name,
checked on Node.js's API pages where Debian ships them (``x.md`` beside ``x.html``)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from docqa.text.same_page import same_page

NODE_API = Path("/usr/share/doc/nodejs/api")


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
