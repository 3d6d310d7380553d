"""``docqa eval``, ``verify`` and ``serve`` with ``--store``, in subprocesses, against the
session's PostgreSQL: each answers as the same command over an index folder of the same pages
(``calibrate --store``: ``test_store_guard_equals_index``)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from docqa_cli import clean_env, docqa
from store_helpers import drop_database, new_database, psycopg, url_for

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"
QUESTIONS = ROOT / "examples" / "questions.jsonl"


@pytest.fixture(scope="module")
def both(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The sample library in a store and in an index folder, both by the CLI."""
    name = new_database(pg_server)
    url = url_for(pg_server, dbname=name)
    tmp = tmp_path_factory.mktemp("both")
    for place in (("--store", url), ("--index", str(tmp / "index"))):
        built = docqa("index", str(LIBRARY), *place, "--embedder", "hashing", cwd=tmp)
        assert built.returncode == 0, built.stderr
    yield url, tmp / "index"
    drop_database(pg_server, name)


def test_eval_on_a_store_reports_the_folder_indexs_figures(both: Any, tmp_path: Path) -> None:
    url, index = both
    args = ("eval", str(QUESTIONS), "--mode", "keyword,dense,hybrid", "--json")
    mine = docqa(*args, "--index", str(index), cwd=tmp_path)
    theirs = docqa(*args, "--store", url, cwd=tmp_path)
    assert mine.returncode == theirs.returncode == 0, mine.stderr + theirs.stderr
    assert json.loads(theirs.stdout) == json.loads(mine.stdout)
    rerank = docqa("eval", str(QUESTIONS), "--mode", "hybrid+rerank", "--store", url, cwd=tmp_path)
    assert rerank.returncode == 2 and "+rerank works on an index folder" in rerank.stderr


def _verify(url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return docqa("verify", "--store", url, cwd=cwd)


def test_verify_passes_a_store_and_names_what_is_inconsistent(
    pg_server: Any, tmp_path: Path
) -> None:
    name = new_database(pg_server)
    url = url_for(pg_server, dbname=name)
    try:
        built = docqa("index", str(LIBRARY), "--store", url, "--embedder", "hashing", cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        ok = _verify(url, tmp_path)
        assert ok.returncode == 0, ok.stderr
        assert re.match(
            r"ok: collection 'default' at postgresql://\S+: \d+ rows, \d+ terms", ok.stdout
        )
        damage = {
            "UPDATE term_df SET df = df + 1 WHERE term = (SELECT min(term) FROM term_df)": (
                "term_df: 1 of"
            ),
            "UPDATE collections SET n_docs = n_docs + 1": "collections records",
            "UPDATE collections SET max_norm = 0.5": "max_norm 0.5 is below the largest row norm",
            "DELETE FROM postings WHERE row_id = (SELECT min(row_id) FROM postings)": (
                "chunks: 1 rows' kw_length differs"
            ),
            "UPDATE postings SET length = length + 1 WHERE row_id = (SELECT max(row_id) FROM "
            "postings)": "chunks: 2 rows' kw_length differs from their postings' tf or length",
            "UPDATE chunks SET embedding = '[1,2]' WHERE row_id = (SELECT min(row_id) FROM chunks)": (
                "1 vectors are not 256-dim"
            ),
        }
        with psycopg.connect(url, autocommit=True) as conn:  # it would refuse other sizes
            (hnsw,) = conn.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE "
                                   "'chunks_hnsw_%'").fetchone()  # fmt: skip
            conn.execute(f"DROP INDEX {hnsw}")
        for statement, named in damage.items():
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(statement)
            bad = _verify(url, tmp_path)
            lines = bad.stderr.strip().splitlines()
            assert bad.returncode == 2 and len(lines) == 1, bad.stderr
            assert named in lines[0] and "is inconsistent" in lines[0] and "DELETE FROM" in lines[0]
    finally:
        drop_database(pg_server, name)


def _serve(url: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    """``docqa serve --store URL --port 0``, started; its process and base URL."""
    out = open(log, "w+", encoding="utf-8")  # noqa: SIM115 (the child holds it)
    proc = subprocess.Popen(
        [sys.executable, "-m", "docqa", "serve", "--store", url, "--port", "0"],
        env=clean_env(),
        stdout=out,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"docqa serve: (http://127\.0\.0\.1:\d+)/", log.read_text())
        if found and httpx.get(found.group(1) + "/ready").status_code == 200:
            return proc, found.group(1)
        time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"docqa serve --store did not start:\n{log.read_text()}")


def test_serve_over_a_store_answers_as_search_does(both: Any, tmp_path: Path) -> None:
    url, _ = both
    proc, base = _serve(url, tmp_path / "serve.log")
    try:
        assert "collection 'default' at postgresql://" in (tmp_path / "serve.log").read_text()
        for mode in ("keyword", "dense", "hybrid"):
            question = "What is the loan period for board games?"
            body = {"question": question, "k": 4, "mode": mode}
            served = httpx.post(base + "/search", json=body, timeout=60).json()["hits"]
            cli = docqa("search", question, "--store", url, "--mode", mode, "-k", "4", "--json",
                        cwd=tmp_path)  # fmt: skip
            assert served == json.loads(cli.stdout)["hits"] and served
        ready = httpx.get(base + "/ready").json()
        assert ready["ready"] and ready["chunks"] > 0
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
