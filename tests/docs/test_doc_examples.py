"""The doc-example machinery itself: parsing, directives, masks, exit codes and rewrites."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_examples import NOTES, ROOT, Runner, blocks, mask, matches, pages, rewrite

PAGE = """# A page

<!-- doc-test: setup printf 'x\\n' > made.txt -->
```
$ docqa --version
docqa 0.0.0-wrong
$ cat made.txt
x
$ docqa search --index nowhere \\
    "a question"
...
(exit 2)
```

<!-- doc-test: skip needs the moon -->
```console
$ docqa ask "q"
an answer
```

```
$ ls
not an example: it runs no docqa
```
"""


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "page.md"
    path.write_text(PAGE)
    return path


def test_blocks_steps_and_directives_are_read(page: Path) -> None:
    first, second = blocks(page)
    assert first.setup == ["printf 'x\\n' > made.txt"] and first.skip is None
    assert [s.command for s in first.steps][1:] == [
        "cat made.txt",
        'docqa search --index nowhere \\\n    "a question"',
    ]
    assert first.steps[0].expected == ["docqa 0.0.0-wrong"]
    assert second.skip == "needs the moon"


def test_masks_cover_what_changes_between_runs(tmp_path: Path) -> None:
    shown = (
        "indexed into /tmp/demo2/ix; 4.71 s\n2026-12-01 09:32:37,943 (pid 20554) 4 questions/s  "
    )
    printed = f"indexed into {tmp_path}/ix; 0.05 s\n2027-01-02 10:00:00,001 (pid 7) 31 questions/s"
    assert mask(shown) == mask(printed, tmp_path)
    assert mask("0.3216 score") != mask("0.3217 score")  # scores are not durations


def test_a_wrong_output_or_exit_code_does_not_match(tmp_path: Path) -> None:
    assert matches(["a", "...", "z"], "a\nb\nc\nz\n", 0, tmp_path)
    assert not matches(["a", "z"], "a\nb\nz\n", 0, tmp_path)
    assert matches(["boom", "(exit 2)", ""], "boom\n", 2, tmp_path)
    assert not matches(["boom", "(exit 2)"], "boom\n", 1, tmp_path)


def test_a_page_is_run_and_a_stale_output_rewritten(page: Path, tmp_path: Path) -> None:
    runner = Runner(tmp_path / "work")
    block = blocks(page)[0]
    for command in block.setup:
        runner.run(command)
    results = [runner.run(step.command) for step in block.steps]
    verdicts = [
        matches(s.expected, out, code, runner.workspace)
        for s, (out, code) in zip(block.steps, results, strict=True)
    ]
    assert verdicts == [False, True, True]
    rewrite(page, {block.first: [results[0], None, None]}, runner.workspace)
    (fresh, _) = blocks(page)
    assert fresh.steps[0].expected == [results[0][0].strip()]
    assert fresh.steps[0].expected[0].startswith("docqa ") and "wrong" not in page.read_text()
    assert fresh.steps[2].expected == ["...", "(exit 2)"]  # a step that matched is kept


def test_the_guide_is_run_and_the_dated_notes_are_not() -> None:
    found = pages()
    assert found[0] == ROOT / "README.md"
    assert ROOT / "docs" / "guide" / "indexing.md" in found
    assert not [page for page in found if page.is_relative_to(NOTES)]
    assert list(NOTES.glob("*.md")), "docs/notes/ holds the dated notes"
