"""Run the ``docqa`` command in a subprocess, as a user does, for the tests that need the
whole process (exit codes, stderr, nothing leaking from the test's own interpreter).

The child gets this environment without any ``DOCQA_*`` setting (a developer's own
``DOCQA_MODEL`` must not change what a test sees) but the cache folder, which is the test
session's own (``tests/conftest.py``), plus ``env``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def clean_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without ``DOCQA_*`` settings but the session's cache
    folder, then ``env``."""
    out = {
        k: v for k, v in os.environ.items() if not k.startswith("DOCQA_") or k == "DOCQA_CACHE_DIR"
    }
    out.update(env or {})
    return out


def docqa(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m docqa ARGS`` in ``cwd``, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "docqa", *args],
        check=False,
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def docqa_bytes(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """As :func:`docqa`, its output as bytes (escapes seen as sent)."""
    return subprocess.run(
        [sys.executable, "-m", "docqa", *args],
        check=False,
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        timeout=timeout,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str]) -> None:
    """Exit code 2 and one stderr line starting ``docqa``, no traceback."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("docqa"), result.stderr
    assert "Traceback" not in result.stderr
