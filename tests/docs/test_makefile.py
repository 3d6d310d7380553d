"""``make``'s long steps say what they do before pip, which runs quietly, starts on them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("target", ["demo", "test", "check", "bench", "docs"])
def test_every_quiet_pip_step_is_announced(target: str, tmp_path: Path) -> None:
    # a dry run of a fresh checkout: every step of the target, nothing executed
    plan = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, f"VENV={tmp_path / 'venv'}"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    steps = [i for i, line in enumerate(plan) if re.search(r"pip install .*--quiet", line)]
    assert steps, plan
    for i in steps:
        assert plan[i - 1].startswith("echo "), (plan[i - 1], plan[i])
    if target == "demo":
        build = next(i for i in steps if "-Cbuild-dir" in plan[i])
        assert "about a minute" in plan[build - 1]
        runs = [i for i, line in enumerate(plan) if "bin/docqa " in line]
        assert len(runs) == 4 and all(plan[i - 1].startswith("echo") for i in runs)
