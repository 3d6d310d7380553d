"""``docqa index/search/ask --store`` in a subprocess against the session's PostgreSQL."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from docqa_cli import docqa as run_docqa
from store_helpers import PASSWORD_USER, drop_database, new_database

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"


def _uri(server: Any, dbname: str, user: str = "postgres", password: str = "") -> str:
    socket_dir = server.get_uri().split("host=", 1)[1]
    secret = f":{password}" if password else ""
    return f"postgresql://{user}{secret}@/{dbname}?host={socket_dir}"


@pytest.fixture(scope="module")
def store_db(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The sample library (two folders as tenants) indexed into a database by the CLI."""
    name = new_database(pg_server)
    docs = tmp_path_factory.mktemp("docs")
    for tenant, files in {"east": ["renewals.md", "fines.md"], "west": ["loans.md"]}.items():
        (docs / tenant).mkdir()
        for f in files:
            text = (LIBRARY / f).read_text(encoding="utf-8")
            body = text.split("---\n", 2)[2] if text.startswith("---\n") else text
            (docs / tenant / f).write_text(f"---\ntenant: {tenant}\n---\n{body}", encoding="utf-8")
    yield _uri(pg_server, name), docs
    drop_database(pg_server, name)


def test_index_then_reindex_reports_what_changed(store_db: Any, tmp_path: Path) -> None:
    url, docs = store_db
    first = docqa("index", str(docs), "--store", url=url, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "into collection 'default' at postgresql://postgres@/" in first.stdout
    assert "0 unchanged, 0 deleted" in first.stdout
    again = docqa("index", str(docs), "--store", url=url, cwd=tmp_path)
    assert (
        again.returncode == 0
        and "(0 written, 14 unchanged" in again.stdout
        and "0 deleted" in again.stdout
    )
    assert not (tmp_path / ".docqa").exists()  # nothing written to a folder index


def test_a_reload_keeps_the_collections_window_size(store_db: Any, tmp_path: Path) -> None:
    """Loaded with ``--max-words 40``, a collection loaded again without it keeps 40 (its
    unchanged files stay as they are); ``--max-words`` given is what it says."""
    url, docs = store_db
    args = ("index", str(docs), "--store", "--collection", "windows")
    first = docqa(*args, "--max-words", "40", url=url, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = docqa(*args, url=url, cwd=tmp_path)
    assert again.returncode == 0 and "(0 written, " in again.stdout, again.stdout
    other = docqa(*args, "--max-words", "80", url=url, cwd=tmp_path)
    assert other.returncode == 0 and "(0 written, " not in other.stdout, other.stdout


def test_a_store_build_counts_the_files_of_other_types(store_db: Any, tmp_path: Path) -> None:
    url, _ = store_db
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    (docs / "index.tex").write_text("\\section{Parking}\n")
    (docs / "usage.tex").write_text("\\section{Usage}\n")
    run = docqa("index", str(docs), "--store", "--collection", "others", url=url, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "skipped 0 (none); passed over 2 files of other types (.tex 2; docqa reads" in run.stdout


def test_search_and_ask_through_the_store_per_tenant(store_db: Any, tmp_path: Path) -> None:
    url, docs = store_db
    assert docqa("index", str(docs), "--store", url=url, cwd=tmp_path).returncode == 0
    question = "What does error RNW-409 mean?"
    found = docqa(
        "search", question, "--store", "--tenant", "east", "--json", url=url, cwd=tmp_path
    )
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits[0]["id"] == "east/renewals#when-a-renewal-is-refused"
    assert all(h["id"].startswith("east/") for h in hits)
    west = docqa(
        "search",
        question,
        "--store",
        url,
        "--tenant",
        "west",
        "--mode",
        "dense",
        "--json",
        url=None,
        cwd=tmp_path,
    )
    assert west.returncode in (0, 1), west.stderr
    if west.returncode == 0:
        assert all(h["id"].startswith("west/") for h in json.loads(west.stdout)["hits"])
    answer = docqa(
        "ask", question, "--store", "--tenant", "east", "--ef-search", "40", url=url, cwd=tmp_path
    )
    assert answer.returncode == 0, answer.stderr
    assert "[east/renewals#when-a-renewal-is-refused]" in answer.stdout
    refused = docqa(
        "ask", "Who won the football match yesterday?", "--store", url=url, cwd=tmp_path
    )
    assert refused.returncode == 1 and "refused" in refused.stdout


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_cli_errors_are_one_line_and_never_show_the_password(
    pg_server: Any, store_db: Any, tmp_path: Path
) -> None:
    url, docs = store_db
    wrong = _uri(pg_server, "postgres", PASSWORD_USER, "hunter2-wrong")
    line = _one_line_error(docqa("search", "x", "--store", url=wrong, cwd=tmp_path))
    assert "refused the credentials" in line and "hunter2-wrong" not in line and ":***@" in line
    line = _one_line_error(docqa("index", str(docs), "--store", url=wrong, cwd=tmp_path))
    assert "hunter2-wrong" not in line
    line = _one_line_error(docqa("search", "x", "--store", url=None, cwd=tmp_path))
    assert "DOCQA_STORE_URL" in line
    line = _one_line_error(docqa("search", "x", "--ef-search", "40", url=None, cwd=tmp_path))
    assert "--ef-search applies to a database store" in line
    line = _one_line_error(
        docqa("search", "x", "--store", "--collection", "nope", url=url, cwd=tmp_path)
    )
    assert "no collection 'nope'" in line
    line = _one_line_error(
        docqa("index", str(docs), "--store", "--dim", "64", url=url, cwd=tmp_path)
    )
    assert "256-dim" in line


def docqa(*args: str, url: str | None, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_docqa(*args, cwd=cwd, env={} if url is None else {"DOCQA_STORE_URL": url})
