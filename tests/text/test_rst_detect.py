"""A ``.txt`` file whose text is reStructuredText is read as reStructuredText: lighttpd's
manual (``rewrite.txt``) quoted its ``====`` lines, ``:Author:`` fields and ``::`` markers,
and ran its configuration examples together into one line."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from docqa.text.loaders import load_path
from docqa.text.reading import STREAM_CHARS, document_stream, parse_document, text_format
from docqa.text.rst_detect import MARKUP, looks_like_rst

# the head of lighttpd's rewrite.txt, as Debian's lighttpd-doc ships it
LIGHTTPD = """============
URL Rewrites
============

-------------------
Module: mod_rewrite
-------------------

:Author: Jan Kneschke

.. contents:: Table of Contents

Description
===========

internal redirects, url rewrite

Options
=======

url.rewrite-once
  rewrites a set of URLs internally in the webserver BEFORE they are handled.

  e.g. ::

    url.rewrite-once = ( "<regex>" => "<relative-uri>",
                         "^/id/([0-9]+)$" => "/index.php?id=$1" )
"""


def test_a_txt_file_in_restructuredtext_is_read_as_restructuredtext() -> None:
    document = parse_document("rewrite.txt", LIGHTTPD)
    assert document.metadata["format"] == "rst"
    assert document.title == "URL Rewrites"
    assert [(s.heading, s.level) for s in document.sections] == [
        ("URL Rewrites", 1),
        ("Module: mod_rewrite", 2),
        ("Description", 3),
        ("Options", 3),
    ]
    options = document.sections[-1]
    # the example keeps its lines, a term its description, and no markup is quoted back
    assert options.text == (
        "url.rewrite-once: rewrites a set of URLs internally in the webserver BEFORE they are"
        ' handled.\n\ne.g.\n\nurl.rewrite-once = ( "<regex>" => "<relative-uri>",\n'
        '                     "^/id/([0-9]+)$" => "/index.php?id=$1" )'
    )
    every = "\n".join(s.text for s in document.sections)
    assert "::" not in every and "====" not in every and ".. contents" not in every
    # read as plain text before: the markup quoted back
    assert (
        parse_document("rewrite.txt", LIGHTTPD.replace(".. contents", "contents")).metadata[
            "format"
        ]
        == "text"
    )


@pytest.mark.parametrize(
    "text",
    [
        # a title underlined by hand and no rst markup: plain text (man-db's manual, NEWS files)
        "Overview of Changes\n===================\n\n* Fixed a crash.\n\nUsage\n-----\nRun it.\n",
        # markup with no title as rst adorns one
        ".. note:: a transcript line\n\nNo titles here.\n",
        # an underline shorter than its title is no title
        "A long title here\n=====\n\n.. note::\n\n   A note.\n",
        # a rule over a rule is no title
        "-----\n=====\n\n.. note::\n\n   A note.\n",
        # Markdown showing rst in a fenced block (Black's index.md.txt)
        "# Title\n\nfaq\n===\n\n```rst\n.. image:: badge.svg\n```\n",
    ],
    ids=["underlined", "no-title", "short-underline", "rules", "markdown"],
)
def test_plain_text_and_markdown_stay_plain_text(text: str) -> None:
    assert not looks_like_rst(text)
    assert text_format(text) == "text"
    assert parse_document("notes.txt", text).metadata["format"] == "text"


@pytest.mark.parametrize(
    "text",
    [
        LIGHTTPD,
        # an inset title between two lines (Docutils' own pages)
        "===========\n Inside it\n===========\n\n.. include:: header.txt\n\nText.\n",
        # a title underlined by backticks (lighttpd's security.txt) and a target
        "Limiting\n````````\n\n.. _limits:\n\nText.\n",
        # a substitution definition
        "Logo\n~~~~\n\n.. |logo| image:: logo.png\n\nText.\n",
    ],
    ids=["lighttpd", "inset", "backticks", "substitution"],
)
def test_restructuredtext_is_claimed(text: str) -> None:
    assert looks_like_rst(text)
    assert text_format(text) == "rst"


def test_a_long_restructuredtext_file_is_parsed_whole_not_streamed_as_plain_text() -> None:
    parts = "".join(f"Part {i}\n{'-' * 10}\n\nWords of part {i}.\n\n" for i in range(40000))
    text = LIGHTTPD + "\n" + parts
    assert len(text) > STREAM_CHARS
    found = document_stream("big.txt", text, "f00d")
    assert isinstance(found, tuple)
    document, streamed = found
    assert streamed is None and document.metadata["format"] == "rst"
    assert document.sections[-1].heading == "Part 39999"


def test_a_folder_loads_a_restructuredtext_txt_file_as_restructuredtext(tmp_path: Path) -> None:
    (tmp_path / "rewrite.txt").write_text(LIGHTTPD)
    (tmp_path / "ssl.txt.gz").write_bytes(gzip.compress(LIGHTTPD.encode()))
    (tmp_path / "NEWS.txt").write_text("Changes\n=======\n\n* Fixed a crash.\n")
    documents, report = load_path(tmp_path)
    assert {d.source: d.metadata["format"] for d in documents} == {
        "NEWS.txt": "text",
        "rewrite.txt": "rst",
        "ssl.txt.gz": "rst",
    }
    assert report.loaded == ("NEWS.txt", "rewrite.txt", "ssl.txt.gz") and not report.skipped


def test_a_target_or_substitution_left_open_is_no_markup() -> None:
    # each is read within its line: before, ".. _x" scanned on to the next ":" anywhere below
    # (once for every such line, so a file of them took seconds to judge)
    assert not MARKUP.search(".. _x\nfoo: bar\n")
    assert not MARKUP.search(".. |x\n| y\n")
    assert MARKUP.search(".. _options:\n") and MARKUP.search(".. |logo| image:: a.png\n")
    text = "Title\n=====\n\n" + ".. _x\n" * 2000 + "Default: none\n"
    assert not looks_like_rst(text) and text_format(text) == "text"
