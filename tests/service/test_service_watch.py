"""`docqa watch` and `docqa serve` on one index: a file written to the folder is answered by
the running service, with neither restarted. Both are real processes on loopback."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from docqa_cli import clean_env
from service_helpers import serving, write_docs

WAIT = 60.0  # seconds, at most, for the new passage to be served (here it takes ~1 s)


def test_a_new_file_is_served_while_both_run(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    ix = tmp_path / "ix"
    env = clean_env()
    watch = subprocess.Popen(
        [sys.executable, "-m", "docqa", "watch", str(docs), "--index", str(ix), "--quiet"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert watch.stdout is not None and "indexed 6 documents" in watch.stdout.readline()
        question = {"question": "Are dogs welcome in the reading garden?", "k": 1,
                    "mode": "keyword"}  # fmt: skip
        with serving("--index", str(ix), log=tmp_path / "serve.log", keyed=False) as server:
            client = server.client()
            before = client.post("/search", json=question).json()["hits"]
            assert all(h["source"] != "garden.md" for h in before)
            (docs / "garden.md").write_text(
                "# Garden\n\nDogs on a lead are welcome in the reading garden.\n"
            )
            deadline, hits = time.monotonic() + WAIT, before
            while time.monotonic() < deadline:
                hits = client.post("/search", json=question).json()["hits"]
                if hits and hits[0]["source"] == "garden.md":
                    break
                time.sleep(0.1)
            assert hits and hits[0]["id"] == "garden#garden", (hits, server.log())
            assert "docqa serve: reloaded" in server.log()
        line = watch.stdout.readline()  # (caught up: had the write beaten the watcher's start)
        assert re.match(r"(\d+ changes?|caught up): indexed 7 documents", line), line
    finally:
        watch.send_signal(signal.SIGTERM)
        _, err = watch.communicate(timeout=WAIT)
    assert watch.returncode == 0 and err.strip() == "docqa watch: stopped", err
