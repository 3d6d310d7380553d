"""The native parsers build ``Line``, ``Block`` and ``Heading`` through their slots, not their
``__init__``: the objects must be the same as constructed ones in every way that shows."""

from __future__ import annotations

import dataclasses

import pytest

from docqa._parse import scan_html
from docqa.text.documents import Block, Heading, Line
from docqa.text.markdown_fast import parse_markdown_fast


def items() -> list[Heading | Block]:
    found = scan_html("<h2>Fees</h2>\n<p>Late <b>books</b>\ncost</p><pre>a\nb</pre>", 1, False)
    assert found is not None
    _, md = parse_markdown_fast("# Loans\n\nThree weeks.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    return [*found[2], *md]


def test_native_objects_equal_constructed_ones() -> None:
    assert items() == [
        Heading("Fees", 2, 1),
        Block("text", (Line(2, "Late books"), Line(3, "cost"))),
        Block("code", (Line(3, "a"), Line(4, "b"))),
        Heading("Loans", 1, 1),
        Block("text", (Line(3, "Three weeks."),)),
        Block("table", (Line(5, "| a | b |"), Line(7, "| 1 | 2 |"))),
    ]


def test_native_objects_are_frozen_hashable_and_typed() -> None:
    for item in items():
        rebuilt = type(item)(**{f.name: getattr(item, f.name) for f in dataclasses.fields(item)})
        assert type(item) is type(rebuilt) and hash(item) == hash(rebuilt)
        assert repr(item) == repr(rebuilt)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(item, dataclasses.fields(item)[0].name, "changed")
        lines = item.lines if isinstance(item, Block) else ()
        assert all(type(line.number) is int and type(line.text) is str for line in lines)
