"""The fast Markdown parser (pyromark) gives exactly the headings and blocks of the reference
parser (markdown-it-py), on fixtures, on the sample library and on generated documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.text.markdown import parse_markdown
from docqa.text.markdown_fast import parse_markdown_fast, split_front_matter

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "examples" / "library").glob("*.md")) + [
    Path(__file__).parent / "data" / "golden.md"
]

WORD = st.sampled_from(["loan", "fee", "Room", "é", "naïve", "x_y", "3.5", "&amp;", "&nbsp;"])
INLINE = st.one_of(
    WORD,
    WORD.map(lambda w: f"*{w}*"),
    WORD.map(lambda w: f"**{w}**"),
    WORD.map(lambda w: f"`{w}`"),
    WORD.map(lambda w: f"[{w}](http://x.test/{len(w)})"),
    WORD.map(lambda w: f"![{w}](i.png)"),
    WORD.map(lambda w: f"<span>{w}</span>"),
    st.just("<a\nhref='x'>"),
    st.just("<!-- note -->"),
    st.just("`a\nb`"),
    st.just("  \n"),
    st.just("\\\n"),
    st.just("#"),
)


def line(min_size: int = 1) -> st.SearchStrategy[str]:
    return st.lists(INLINE, min_size=min_size, max_size=6).map(" ".join)


# Pipes appear only in tables, and a table cell lies on one line: the two GFM implementations
# read a pipe in a list item's first line, or a row broken by a multi-line tag, differently
# (neither is a case documentation is written in).
CELL = st.lists(INLINE.filter(lambda x: "\n" not in x), min_size=1, max_size=4).map(" ".join)


BLOCK = st.one_of(
    line(),
    st.lists(line(), min_size=2, max_size=3).map("\n".join),
    st.tuples(st.integers(1, 6), line(0)).map(lambda t: "#" * t[0] + " " + t[1]),
    st.tuples(line(), st.sampled_from("=-")).map(lambda t: f"{t[0]}\n{t[1] * 3}"),
    st.lists(line(), min_size=1, max_size=3).map(lambda xs: "\n".join(f"- {x}" for x in xs)),
    st.lists(line(), min_size=1, max_size=3).map(lambda xs: "\n\n".join(f"1. {x}" for x in xs)),
    st.tuples(line(), line()).map(lambda t: f"- {t[0]}\n  - {t[1]}"),
    st.tuples(line(), line()).map(lambda t: f"> {t[0]}\n> {t[1]}"),
    st.tuples(CELL, CELL).map(lambda t: f"| {t[0]} | b |\n|---|---|\n| {t[1]} |\n| 1 | 2 | 3 |"),
    st.tuples(st.sampled_from(["```", "~~~", "```py"]), line(0)).map(
        lambda t: f"{t[0]}\n# not a heading\n\n{t[1]}\n{t[0][:3]}"
    ),
    line().map(lambda x: f"    {x}\n\n    more"),
    line().map(lambda x: f"<div>\n{x}\n</div>"),
    st.just("***"),
    st.just("- ```\n  code in a list\n  ```"),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(BLOCK, max_size=8))
    matter = draw(st.sampled_from(["", "---\ntitle: T\ntags: [a]\n---\n", "---\na: 1\n...\n"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    gap = draw(st.sampled_from(["\n\n", "\n"]))
    refs = draw(st.sampled_from(["", "\n\n[ref]: http://x.test"]))  # definitions go last
    return (matter + gap.join(blocks) + refs).replace("\n", newline)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fixtures_parse_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert parse_markdown_fast(text) == parse_markdown(text)


@given(documents())
def test_generated_documents_parse_the_same(text: str) -> None:
    assert parse_markdown_fast(text) == parse_markdown(text)


@given(st.text(alphabet="#*_`[]()<>!-=~ \n\tab1é>", max_size=120))
def test_any_markup_soup_parses_the_same(text: str) -> None:
    try:
        expected = parse_markdown(text)
    except InputError as exc:
        with pytest.raises(InputError, match="front matter"):
            parse_markdown_fast(text)
        assert "front matter" in str(exc)
        return
    assert parse_markdown_fast(text) == expected


@pytest.mark.parametrize(
    ("text", "matter"),
    [
        ("---\na: 1\n---\nbody", "a: 1"),
        ("----\na: 1\n-----\n", "a: 1"),
        ("---\na: 1\n...\n", "a: 1"),
        ("---\na: 1\n  ---  \nbody", "a: 1"),
        ("---\na: 1\n--\nno close", None),
        ("text\n---\na: 1\n---\n", None),
    ],
)
def test_front_matter_rule(text: str, matter: str | None) -> None:
    found, body = split_front_matter(text)
    assert found == matter
    assert body.count("\n") >= text.count("\n") or found is None


def test_bad_front_matter_is_an_input_error() -> None:
    with pytest.raises(InputError, match="front matter must be a YAML mapping"):
        parse_markdown_fast("---\n- a\n- b\n---\n# T\n")
