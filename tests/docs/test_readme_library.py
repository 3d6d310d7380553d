"""The README's library example runs, prints what the README shows, and stays near the top."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
EXAMPLE = re.compile(r"^```python\n(.*?)^```\n\n```\n(.*?)^```", re.MULTILINE | re.DOTALL)


def example() -> tuple[str, str, int]:
    """The first Python block of the README, the output block after it, and its first line."""
    text = README.read_text(encoding="utf-8")
    found = EXAMPLE.search(text)
    assert found, "README.md has no ```python block followed by its output"
    return found[1], found[2], text[: found.start()].count("\n") + 1


def test_the_example_is_short_and_in_the_first_100_lines() -> None:
    code, _, line = example()
    assert line + code.count("\n") <= 100, line
    assert code.count("\n") <= 12


def test_the_readme_is_at_most_12_kb() -> None:
    assert len(README.read_bytes()) <= 12 * 1024


def test_the_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    code, shown, _ = example()
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    command = [sys.executable, "-c", code]
    run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown


def test_every_link_of_the_readme_names_a_file_of_the_repository() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    assert len(local) >= 10, local
    assert [link for link in local if not (ROOT / link).is_file()] == []
