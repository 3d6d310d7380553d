"""``slugify`` (a regular expression) equals its definition: every character that is not
``str.isalnum`` after lower-casing is a separator."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.text.sections import slugify


def by_definition(heading: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in heading.lower())
    return "-".join(part for part in slug.split("-") if part) or "section"


@settings(max_examples=500)
@given(st.text(max_size=40))
def test_any_heading(heading: str) -> None:
    assert slugify(heading) == by_definition(heading)


@given(st.text(alphabet="aZ9_-é İΣς٣²½ⅷ\u0300\u00b7\t!", max_size=30))
def test_tricky_characters(heading: str) -> None:
    assert slugify(heading) == by_definition(heading)


def test_every_code_point() -> None:
    for code in range(0x110000):
        heading = f"a{chr(code)}b"
        assert slugify(heading) == by_definition(heading), hex(code)
