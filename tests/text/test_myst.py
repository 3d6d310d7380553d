"""MyST pages read as the pages they build: roles show their text, admonitions their prose,
code directives their code; line numbers are kept; plain Markdown is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.text import load_path, parse_document
from docqa.text.documents import Heading
from docqa.text.markdown_fast import parse_markdown_fast
from docqa.text.myst import myst_to_markdown

PIP = Path("/usr/share/doc/python3-pip/html")
PARAGRAPH = (
    "Many projects use requirements.txt files; see the guide and PEP 427, or source distribution."
)


def shown(text: str) -> list[tuple[str, str, int]]:
    """``(kind, text, first line)`` of each item of the page ``text`` as docqa reads it."""
    items = parse_markdown_fast(myst_to_markdown(text))[1]
    return [
        (f"h{i.level}", i.text, i.line)
        if isinstance(i, Heading)
        else (i.kind, i.text, i.lines[0].number)
        for i in items
    ]


PAGE = """\
(getting-started)=
# Getting started

% a comment the page does not show
Many projects use {file}`requirements.txt` files; see {ref}`the guide <pypug:Guide>`
and {pep}`427`, or {term}`source distribution <Source Distribution (or "sdist")>`.

```{note}
Only ASCII characters are allowed in `.netrc` files.
```

```{versionadded} 22.1
The `--dry-run` option.
```

```{toctree}
:maxdepth: 1

topics/caching
```

```{code-block} python
:linenos:
:caption: An example

import pip
```

Last line.
"""


def test_a_myst_page_reads_as_its_built_page() -> None:
    assert shown(PAGE) == [
        ("h1", "Getting started", 2),
        ("text", PARAGRAPH, 5),
        ("text", "Note: Only ASCII characters are allowed in .netrc files.", 8),
        ("text", "Added in version 22.1: The --dry-run option.", 12),
        ("code", "import pip", 26),
        ("text", "Last line.", 29),
    ]


def test_lines_keep_their_numbers_and_nothing_else_moves() -> None:
    out = myst_to_markdown(PAGE)
    before, after = PAGE.split("\n"), out.split("\n")
    assert len(after) == len(before)
    assert after[28] == before[28] == "Last line."
    assert after[1] == before[1] == "# Getting started"


def test_a_plain_markdown_page_is_returned_as_it_is() -> None:
    text = "# Title\n\nA dict such as {a: 1} and `code`, 50% off.\n\n% not a comment here\n"
    assert myst_to_markdown(text) is text
    assert myst_to_markdown("") == ""
    shell = "Set `${lang_code}` and `--revert={cvenum}`; `Returns: {undefined}`.\n(x)=\n"
    assert myst_to_markdown(shell) is shell  # braces in code spans, a target alone: not MyST
    inside = "{ref}`a` and `x = {ref}`\n% kept? no: this page is MyST\n"
    assert myst_to_markdown(inside) == "`a` and `x = {ref}`\n\n"


def test_roles_in_code_are_left_as_written() -> None:
    text = (
        "Write ``{ref}`label` `` to link; {ref}`this one <x>` is read.\n\n"
        "```markdown\nSee {doc}`installation`.\n```\n\n"
        "````{note}\nA note with code:\n\n```python\nprint('{file}`x`')\n```\n\nAfter it.\n````\n"
    )
    assert shown(text) == [
        ("text", "Write {ref}`label` to link; this one is read.", 1),
        ("code", "See {doc}`installation`.", 4),
        ("text", "Note: A note with code:", 7),
        ("code", "print('{file}`x`')", 11),
        ("text", "After it.", 14),
    ]


def test_colon_fences_admonition_titles_and_unknown_directives() -> None:
    text = (
        ":::{warning}\nDo not run this as root.\n:::\n\n"
        "```{admonition} Why pin?\nPins make installs repeatable.\n```\n\n"
        "```{pip-cli}\n$ pip install sampleproject\n```\n\n"
        ":::{tab-item} Unix\nsource env/bin/activate\n:::\n\n"
        "```{only} html\nShown in the HTML build.\n```\n"
    )
    assert shown(text) == [
        ("text", "Warning: Do not run this as root.", 1),
        ("text", "Why pin? Pins make installs repeatable.", 5),
        ("code", "$ pip install sampleproject", 10),  # a project's own directive: as written
        ("text", "Unix: source env/bin/activate", 13),  # sphinx-design's: a title and Markdown
        ("text", "Shown in the HTML build.", 18),
    ]


def test_a_version_directive_without_a_body_is_its_label_alone() -> None:
    text = "### `pip cache dir`\n\n```{versionadded} 20.1\n\n```\n\nUse `pip cache dir`.\n"
    assert shown(text) == [
        ("h3", "pip cache dir", 1),
        ("text", "Added in version 20.1", 3),
        ("text", "Use pip cache dir.", 7),
    ]


def test_a_tab_holding_a_code_block_is_its_title_then_the_code() -> None:
    text = "````{tab} Linux\n```\n~/.cache/pip\n```\n````\n"
    assert shown(text) == [("text", "Linux:", 1), ("code", "~/.cache/pip", 3)]


def test_front_matter_is_not_rewritten() -> None:
    text = "---\ntitle: Pinning\n% kept: front matter is YAML\n---\n% a comment\n{ref}`x`\n"
    out = myst_to_markdown(text)
    assert out.split("\n")[:4] == text.split("\n")[:4]
    assert out.split("\n")[4:6] == ["", "`x`"]
    only = "---\ntitle: See {ref}`x`\n% YAML, not a comment\n---\n"
    assert myst_to_markdown(only) == only  # front matter and nothing after it


def test_a_directive_left_open_runs_to_the_end_as_commonmark_reads_it() -> None:
    assert shown("# T\n\n```{note}\nNever closed.\n") == [
        ("h1", "T", 1),
        ("text", "Note: Never closed.", 3),
    ]


@given(st.text(alphabet="{}`:~%()=abnote-\n ", max_size=200))
def test_any_text_keeps_its_line_count_and_parses(text: str) -> None:
    out = myst_to_markdown(text)
    assert out.count("\n") == text.replace("\r\n", "\n").replace("\r", "\n").count("\n")
    parse_markdown_fast(out)


@pytest.mark.skipif(not PIP.is_dir(), reason="needs Debian's python3-pip docs (MyST pages)")
def test_pips_myst_pages_show_no_markup() -> None:
    pages = sorted(PIP.rglob("*.md"))
    assert len(pages) >= 10
    for page in pages:
        docs, _ = load_path(page)
        for doc in docs:
            for section in doc.sections:
                for block in section.blocks:
                    if block.kind == "text":
                        for marker in ("{ref}", "{term}", "{doc}", "{note}", ")="):
                            assert marker not in block.text, (page, block.text)


def test_a_myst_page_through_parse_document_is_titled_and_read() -> None:
    doc = parse_document("pinning.md", "(pin)=\n# Pinning\n\nUse {command}`pip freeze`.\n")
    assert doc.title == "Pinning"
    assert [b.text for s in doc.sections for b in s.blocks] == ["Use pip freeze."]
