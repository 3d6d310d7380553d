"""``docqa store local``: a PostgreSQL with pgvector from the wheel, in the foreground, whose
printed URL the store commands take; stopped by SIGTERM (as by Ctrl-C), its temporary data
deleted, or kept in ``--data-dir`` for the next start."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from docqa_cli import clean_env, docqa
from store_helpers import pgserver  # noqa: F401  (skips this module without the wheel)

LIBRARY = Path(__file__).resolve().parents[2] / "examples" / "library"


def _start(tmp: Path, *args: str) -> tuple[subprocess.Popen[str], str, Path]:
    """``docqa store local ARGS``, once it printed its URL: the process, URL, data dir."""
    out = tmp / f"local{len(list(tmp.glob('local*')))}.out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "docqa", "store", "local", *args],
        stdout=out.open("w"),
        stderr=subprocess.PIPE,
        env=clean_env(),
        text=True,
    )
    deadline = time.monotonic() + 120
    while "Ctrl-C stops it" not in out.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.1)
    text = out.read_text()
    url = re.search(r"export DOCQA_STORE_URL='(.+)'", text)
    data = re.search(r"data directory: (.+) \(", text)
    assert url and data and "with pgvector" in text, text
    return proc, url.group(1), Path(data.group(1))


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return err


def test_a_throwaway_server_serves_the_store_and_leaves_nothing(tmp_path: Path) -> None:
    proc, url, data = _start(tmp_path)
    try:
        built = docqa("index", str(LIBRARY), "--store", url, "--embedder", "hashing", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        found = docqa("search", "board games loan period", "--store", url, cwd=tmp_path)
        assert found.returncode == 0 and "loans#loan-periods" in found.stdout, found.stderr
    finally:
        err = _stop(proc)
    assert "data deleted" in err and not data.exists()


def test_a_data_dir_keeps_the_collection_for_the_next_start(tmp_path: Path) -> None:
    kept = tmp_path / "pg"
    proc, url, data = _start(tmp_path, "--data-dir", str(kept))
    try:
        assert data == kept
        built = docqa("index", str(LIBRARY), "--store", url, "--embedder", "hashing", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
    finally:
        assert "data kept" in _stop(proc)
    proc, url, _ = _start(tmp_path, "--data-dir", str(kept))
    try:
        check = docqa("verify", "--store", url, cwd=tmp_path)
        assert check.returncode == 0 and "51 rows" in check.stdout, check.stderr
    finally:
        _stop(proc)
