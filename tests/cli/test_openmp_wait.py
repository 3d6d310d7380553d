"""The commands' OpenMP threads sleep when idle (``OMP_WAIT_POLICY=PASSIVE``) unless the user
chose a policy: checked on the runtime itself, which prints its settings when asked to
(``OMP_DISPLAY_ENV``) as it loads at the first parallel search. libgomp prints ``PASSIVE`` for
an unset policy too, but then spins 300,000 rounds (``GOMP_SPINCOUNT``) before sleeping."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from docqa_cli import clean_env

from docqa.build import IndexSettings, build_index

ROOT = Path(__file__).resolve().parents[2]
SETTING = re.compile(r"(OMP_WAIT_POLICY|GOMP_SPINCOUNT) = '(\w+)'")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("omp") / "ix"
    build_index([ROOT / "examples" / "library"], out, IndexSettings())
    return out


def settings_seen(index: Path, **env: str) -> dict[str, str]:
    """The wait settings the OpenMP runtime of a ``docqa search --mode dense`` process used."""
    base = {k: v for k, v in clean_env().items() if not k.startswith("OMP_")}
    result = subprocess.run(
        [sys.executable, "-m", "docqa", "search", "loan period", "--index", str(index),
         "--mode", "dense", "-k", "1"],
        env={**base, "OMP_DISPLAY_ENV": "verbose", **env},
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert "loans#loan-periods" in result.stdout
    found = dict(SETTING.findall(result.stderr))
    if not found:
        pytest.skip("Numba's threading layer here is not OpenMP (nothing printed its settings)")
    return found


def test_passive_by_default(index: Path) -> None:
    seen = settings_seen(index)
    assert seen["OMP_WAIT_POLICY"] == "PASSIVE"
    assert seen.get("GOMP_SPINCOUNT", "0") == "0"  # libgomp: sleeps at once


def test_the_users_choice_stands(index: Path) -> None:
    seen = settings_seen(index, OMP_WAIT_POLICY="ACTIVE")
    assert seen["OMP_WAIT_POLICY"] == "ACTIVE"
    assert seen.get("GOMP_SPINCOUNT", "1") != "0"
