"""``docqa index``'s progress, seen as a user sees it: drawn on a real terminal (a pty), with
files and MB done, and nothing on stderr with ``--quiet`` or when stderr is not a terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from docqa_cli import clean_env

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def corpus(root: Path, n: int = 400) -> Path:
    text = (LIBRARY / "loans.md").read_text()
    for i in range(n):
        (root / f"part-{i // 100}").mkdir(parents=True, exist_ok=True)
        (root / f"part-{i // 100}" / f"loans-{i:04d}.md").write_text(f"{text}\n\nCopy {i}.\n" * 4)
    return root


def index_on_a_terminal(*args: str, cwd: Path, tty: bool) -> tuple[int, str, str]:
    """Run ``docqa index ARGS`` with stderr on a pty (``tty``) or a pipe; returns the exit
    code, stdout and stderr (escape sequences removed)."""
    env = {
        k: v
        for k, v in clean_env().items()
        if k not in {"FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"}
    }
    env.update(TERM="xterm-256color", COLUMNS="120")
    command = [sys.executable, "-m", "docqa", "index", *args]
    if not tty:
        done = subprocess.run(
            command, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=120
        )
        return done.returncode, done.stdout, done.stderr
    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the child closed its end
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=follower, text=True
        )
        os.close(follower)
        out, _ = proc.communicate(timeout=120)
        reader.join(timeout=10)
    finally:
        os.close(leader)
    return proc.returncode, out, ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus(tmp_path_factory.mktemp("progress") / "docs")


def test_a_terminal_sees_files_and_megabytes_done(docs: Path, tmp_path: Path) -> None:
    code, out, err = index_on_a_terminal(str(docs), "--index", "ix", cwd=tmp_path, tty=True)
    assert code == 0, err
    assert out.startswith("indexed 400 documents") and out.count("\n") == 1  # the summary
    frames = [f.strip() for f in re.split(r"[\r\n]", err) if f.strip()]
    assert frames and all(f.startswith("indexing") for f in frames), frames
    assert any("400/400 files" in f for f in frames), frames
    sizes = [m for f in frames for m in re.findall(r"([\d.]+)/([\d.]+) [kM]?B\b", f)]
    assert sizes and sizes[-1][0] == sizes[-1][1], frames  # the last frame: all bytes done
    assert any(re.search(r"[\d.]+ [kM]?B/s", f) for f in frames), frames  # the speed, once known
    assert "indexed" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("flags", "tty"), [(["--quiet"], True), ([], False)], ids=["quiet", "not-a-terminal"]
)
def test_nothing_is_drawn_when_quiet_or_not_a_terminal(
    docs: Path, tmp_path: Path, flags: list[str], tty: bool
) -> None:
    code, out, err = index_on_a_terminal(str(docs), "--index", "ix", *flags, cwd=tmp_path, tty=tty)
    assert code == 0, err
    assert out.startswith("indexed 400 documents") and out.count("\n") == 1
    assert err == ""
