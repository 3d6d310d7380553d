"""Section chunking: golden ids, heading paths, windows that never split a row or code line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.text import (
    chunk_document,
    chunk_words,
    embed_text,
    load_chunks,
    parse_document,
    section_ids,
    slugify,
)
from docqa.text.sections import window_bounds
from docqa.text.windows import min_tail

DATA = Path(__file__).parent / "data"
LIBRARY = Path(__file__).parents[2] / "examples" / "library"


def golden_chunks() -> list[dict[str, object]]:
    chunks, _ = load_chunks([DATA / "golden.md"])
    return [
        {
            "id": c.id,
            "section": c.section,
            "heading_path": list(c.heading_path),
            "start_line": c.start_line,
            "end_line": c.end_line,
            "text": c.text,
        }
        for c in chunks
    ]


def test_golden_markdown_ids_paths_lines_and_text() -> None:
    expected = json.loads((DATA / "golden_ids.json").read_text(encoding="utf-8"))
    assert golden_chunks() == expected


def test_golden_markdown_rules_spelled_out() -> None:
    doc = parse_document("golden.md", (DATA / "golden.md").read_text(encoding="utf-8"))
    ids = section_ids(doc)
    # duplicate "Setup" gets -2; "Setup 2" then collides and gets -2-2; empty heading kept
    assert ids == [
        "golden#intro",
        "golden#golden-page",
        "golden#setup",
        "golden#setup-2",
        "golden#fees-charges",
        "golden#setup-2-2",
        "golden#empty-heading",
        "golden#last-words",
    ]
    texts = " ".join(c.text for c in chunk_document(doc))
    assert "# not a heading" in texts  # code, not a heading: no section for it
    assert "secret" not in texts  # block and inline HTML comments dropped
    assert "fixture" not in texts and "title:" not in texts  # front matter is metadata
    assert doc.metadata["tags"] == ["fixture", "golden"]
    assert doc.metadata["updated"] == "2024-05-01"
    assert "golden#empty-heading" not in {c.section for c in chunk_document(doc)}


def test_html_chunks_keep_headings_and_drop_chrome() -> None:
    chunks, _ = load_chunks([DATA / "page.html"])
    assert [(c.id, c.heading_path, c.start_line, c.end_line) for c in chunks] == [
        ("page#main-heading", ("Sample page", "Main heading"), 13, 14),
        ("page#details", ("Sample page", "Main heading", "Details"), 17, 24),
        ("page#deep", ("Sample page", "Main heading", "Details", "Deep"), 28, 28),
    ]
    assert chunks[0].text == "First paragraph & more across two lines."
    assert "| max_renewals | 3 |" in chunks[1].text
    assert "line one\n  line two" in chunks[1].text
    assert "secret" not in " ".join(c.text for c in chunks)


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Loan periods", "loan-periods"),
        ("  Fees & charges (2024)! ", "fees-charges-2024"),
        ("Müller's Café", "müller-s-café"),
        ("max_renewals", "max-renewals"),
        ("!!!", "section"),
    ],
)
def test_slugify(heading: str, slug: str) -> None:
    assert slugify(heading) == slug


def test_heading_path_skips_levels_and_title_without_h1() -> None:
    text = "---\ntitle: Guide\n---\n## A\n\nx\n\n#### Deep\n\ny\n\n## B\n\nz\n"
    chunks = chunk_document(parse_document("dir/guide.md", text))
    assert [(c.id, c.heading_path) for c in chunks] == [
        ("dir/guide#a", ("Guide", "A")),
        ("dir/guide#deep", ("Guide", "A", "Deep")),
        ("dir/guide#b", ("Guide", "B")),
    ]


def long_section(words: int) -> str:
    return "# T\n\n## Long one\n\n" + " ".join(f"w{i}" for i in range(words)) + "\n"


def test_long_section_windows_get_p_ids_and_keep_section() -> None:
    doc = parse_document("loans.md", long_section(25))
    chunks = chunk_document(doc, max_words=10, overlap=2)
    assert [c.id for c in chunks] == ["loans#long-one", "loans#long-one-p2", "loans#long-one-p3"]
    assert {c.section for c in chunks} == {"loans#long-one"}
    assert [c.position for c in chunks] == [0, 1, 2]
    assert [c.text for c in chunks] == chunk_words(" ".join(f"w{i}" for i in range(25)), 10, 2)


def test_table_rows_and_code_lines_never_split() -> None:
    rows = "\n".join(f"| row {i} | a b c | d |" for i in range(6))
    code = "\n".join(f"x{i} = call(a, b, c)  # note" for i in range(5))
    text = f"# T\n\nSome words here.\n\n| k | v | w |\n|---|---|---|\n{rows}\n\n```\n{code}\n```\n"
    chunks = chunk_document(parse_document("t.md", text), max_words=12, overlap=3)
    table_lines = {f"| row {i} | a b c | d |" for i in range(6)}
    code_lines = {f"x{i} = call(a, b, c)  # note" for i in range(5)}
    whole = table_lines | code_lines | {"| k | v | w |", ""}
    assert len(chunks) > 3
    for chunk in chunks:
        for line in chunk.text.split("\n"):
            assert line in whole or line in "Some words here.", line
    joined = "\n".join(c.text for c in chunks)
    assert all(line in joined for line in table_lines | code_lines)


CODE = "import a\n\n\ndef f():\n    x = 1\n\n    return x"
INDENTED = "\n".join(f"    {line}" if line else "" for line in CODE.split("\n"))


@pytest.mark.parametrize(
    ("name", "page"),
    [
        ("t.md", f"# T\n\nIntro.\n\n```python\n{CODE}\n```\n\nAfter.\n"),
        ("t.html", f"<h1>T</h1><p>Intro.</p><pre>{CODE}\n</pre><p>After.</p>"),
        ("t.rst", f"Title\n=====\n\nIntro. ::\n\n{INDENTED}\n\nAfter.\n"),
    ],
)
def test_a_code_block_with_blank_lines_stays_one_block_in_the_passage(name: str, page: str) -> None:
    # a blank line in a passage is where one block ends: the code's own blank lines are left
    # out, so the extractive answer can tell the code from the prose around it
    (chunk,) = chunk_document(parse_document(name, page))
    assert chunk.text.split("\n\n") == [
        "Intro.",
        "import a\ndef f():\n    x = 1\n    return x",
        "After.",
    ]


def test_oversized_row_is_its_own_chunk() -> None:
    row = "| " + " ".join(f"c{i}" for i in range(30)) + " |"
    text = f"# T\n\n| h |\n|---|\n{row}\n"
    chunks = chunk_document(parse_document("t.md", text), max_words=5)
    assert row in [c.text for c in chunks]


def test_chunk_fields_hash_metadata_and_lines() -> None:
    chunks, _ = load_chunks([LIBRARY / "loans.md"])
    periods = next(c for c in chunks if c.id == "loans#loan-periods")
    assert periods.heading_path == ("Borrowing and loans", "Loan periods")
    assert periods.source == "loans.md"
    assert periods.content_hash == hashlib.sha256(periods.text.encode()).hexdigest()
    assert periods.metadata["audience"] == "all members"
    assert periods.metadata["title"] == "Borrowing and loans"
    lines = (LIBRARY / "loans.md").read_text(encoding="utf-8").splitlines()
    assert lines[periods.start_line - 1].startswith("The loan period")
    assert lines[periods.end_line - 1].startswith("renewed or placed on hold")


def test_embed_text_puts_heading_path_in_front_switchably() -> None:
    chunks, _ = load_chunks([LIBRARY / "loans.md"])
    chunk = next(c for c in chunks if c.id == "loans#loan-periods")
    assert embed_text(chunk) == "Borrowing and loans > Loan periods\n\n" + chunk.text
    assert embed_text(chunk, headings=False) == chunk.text


def test_bad_window_arguments_raise_before_loading(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"max_words=10 and overlap=10"):
        load_chunks([tmp_path / "does-not-exist"], max_words=10, overlap=10)


def test_window_id_collision_is_an_error() -> None:
    text = "# T\n\n## A\n\n" + "w " * 30 + "\n\n## A p2\n\nx\n"
    with pytest.raises(InputError, match=r"'t#a-p2' is used twice"):
        chunk_document(parse_document("t.md", text), max_words=20)


def test_sample_library_ids_unique_and_expected_ones_exist() -> None:
    chunks, report = load_chunks([LIBRARY])
    ids = [c.id for c in chunks]
    assert len(ids) == len(set(ids))
    assert {"loans#loan-periods", "renewals#when-a-renewal-is-refused", "hours#intro"} <= set(ids)
    assert not report.skipped and len(report.loaded) >= 12
    assert all("TODO" not in c.text and "Old prices" not in c.text for c in chunks)


def test_a_sections_last_words_are_not_a_window_of_their_own() -> None:
    # Borg's manual: a 303-word section was cut into 300 words and "package in the
    # repositories", the end of its last sentence, which ranked second for "How do I create
    # a new repository?" with MiniLM
    body = " ".join(f"w{i}" for i in range(299)) + " Current status of package in the repositories."
    document = parse_document("install.md", f"# Distribution package\n\n{body}\n")
    [chunk] = chunk_document(document)
    assert chunk.text.endswith("Current status of package in the repositories.")
    assert len(chunk.text.split()) == 306
    longer = parse_document("install.md", f"# Distribution package\n\n{body} {body}\n")
    texts = [c.text for c in chunk_document(longer)]
    assert [len(t.split()) for t in texts] == [300, 312]  # 12 words after two windows: kept
    assert chunk_words(" ".join(["w"] * 1010), 200, 0)[-1] == " ".join(["w"] * 210)
    assert len(chunk_words(" ".join(["w"] * 1050), 200, 0)) == 6  # 50 new words: a window
    assert min_tail(300) == 50 and min_tail(5) == 0


# --- window_bounds properties --------------------------------------------------------------


@given(st.lists(st.integers(0, 12), max_size=60), st.integers(1, 20), st.data())
def test_window_bounds_properties(weights: list[int], max_words: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, max_words - 1))
    bounds = window_bounds(weights, max_words, overlap)
    if not weights:
        assert bounds == []
        return
    assert bounds[0][0] == 0 and bounds[-1][1] == len(weights)
    last = len(bounds) - 1
    for k, (start, end) in enumerate(bounds):
        assert start < end
        size = sum(weights[start:end])
        if k < last:
            assert size <= max_words or end - start == 1  # only a lone oversized unit exceeds
        else:  # the last may hold a short tail the greedy cut left for a window of its own
            biggest = max(weights[start:end])
            assert size <= max(max_words, biggest) + max(min_tail(max_words) - 1, 0)
        if k:
            prev_start, prev_end = bounds[k - 1]
            assert prev_start < start <= prev_end < end  # contiguous, new units each time
            assert sum(weights[start:prev_end]) <= overlap
    if last and not overlap:  # no short last window (with an overlap: a window's step)
        assert sum(weights[bounds[-2][1] :]) >= min_tail(max_words)


@given(st.integers(0, 150), st.integers(1, 30), st.data())
def test_window_bounds_with_unit_weights_equal_chunk_words(
    n: int, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    words = [f"w{i}" for i in range(n)]
    cut = [" ".join(words[s:e]) for s, e in window_bounds([1] * n, size, overlap)]
    assert cut == chunk_words(" ".join(words), size, overlap)


pieces = [*"ab #|-`<>!/\n", "\n\n", "<!--", "-->", "```", "<h2>", "</h2>", "<p>", "---\n"]
markup = st.lists(st.sampled_from(pieces), max_size=80).map("".join)


@settings(max_examples=100)
@given(markup, st.sampled_from(["x.md", "x.html", "x.txt"]), st.integers(1, 8))
def test_any_text_parses_and_chunk_lines_stay_in_the_file(
    text: str, source: str, max_words: int
) -> None:
    try:
        document = parse_document(source, text)
    except InputError as exc:  # the only refusal: YAML that is not a mapping
        assert source == "x.md" and text.startswith("---") and "front matter" in str(exc)
        return
    chunks = chunk_document(document, max_words=max_words)
    n_lines = max(1, len(text.splitlines()))
    ids = [c.id for c in chunks]
    assert len(ids) == len(set(ids))
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= n_lines
        assert chunk.text.strip()
