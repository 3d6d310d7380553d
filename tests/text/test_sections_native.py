"""The native ``docqa._parse.build_sections`` groups a parser's items exactly as its twin
``docqa.text.documents.build_sections`` does (generated streams: headings first or not,
blocks without lines, headings without bodies), and ``ids.id_base`` cuts a source as
``PurePosixPath`` does (``id_base_reference``), on generated paths and the sample library."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa import _parse
from docqa.text.documents import Block, Heading, Line, Section, build_sections
from docqa.text.ids import id_base, id_base_reference
from docqa.text.loaders import find_files

ROOT = Path(__file__).resolve().parents[2]

LINES = st.lists(
    st.builds(Line, st.integers(1, 99), st.sampled_from(["a", "b c", "", "é"])), max_size=3
).map(tuple)
ITEMS = st.lists(
    st.one_of(
        st.builds(
            Heading, st.sampled_from(["A", "", "B b"]), st.integers(1, 6), st.integers(1, 99)
        ),
        st.builds(Block, st.sampled_from(["text", "table", "code"]), LINES),
    ),
    max_size=12,
)


def fields(sections: tuple[Section, ...]) -> list[tuple[object, ...]]:
    return [
        (s.heading, s.level, s.start_line, s.end_line, s.blocks, s.page, type(s)) for s in sections
    ]


@settings(max_examples=300, deadline=None)
@given(ITEMS)
def test_generated_streams_group_the_same(items: list[Heading | Block]) -> None:
    got, expected = _parse.build_sections(items), build_sections(items)
    assert got == expected
    assert fields(got) == fields(expected)


def test_the_sections_are_frozen_dataclasses_as_usual() -> None:
    (section,) = _parse.build_sections([Heading("A", 1, 1), Block("text", (Line(2, "x"),))])
    assert section == Section("A", 1, 1, 2, (Block("text", (Line(2, "x"),)),))
    assert hash(section) == hash(Section("A", 1, 1, 2, (Block("text", (Line(2, "x"),)),)))
    with pytest.raises(AttributeError):
        section.heading = "B"  # type: ignore[misc]


def test_an_item_that_is_neither_fails_as_in_the_twin() -> None:
    with pytest.raises(AttributeError):
        build_sections([object()])  # type: ignore[list-item]
    with pytest.raises(AttributeError):
        _parse.build_sections([object()])  # type: ignore[list-item]


PART = st.sampled_from(
    ["a", "b.md", ".x", "..", ".", "c.PDF", "d.tar.gz", "e.", "", "日.html", "f.md.gz", ".gz",
     "..gz", "g.GZ", "h.pdf.gz", "i.gz.gz"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(PART, min_size=1, max_size=4).map("/".join), st.booleans())
def test_generated_sources_give_the_same_id_base(source: str, absolute: bool) -> None:
    source = "/" + source if absolute else source
    try:
        expected = id_base_reference(source)
    except ValueError:
        with pytest.raises(ValueError):
            id_base(source)
        return
    assert id_base(source) == expected


def test_library_sources_give_the_same_id_base() -> None:
    files, _ = find_files([ROOT / "examples" / "library", Path(__file__).parent / "data"])
    sources = [source for _, source in files]
    assert len(sources) >= 10
    for source in sources:
        assert id_base(source) == id_base_reference(source)
