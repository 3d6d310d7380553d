"""``docqa search-batch`` and ``docqa index --shard-rows`` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shard_helpers import QUESTIONS

from docqa.cli import main
from docqa.cli.batch import read_questions
from docqa.collection import Collection
from docqa.errors import InputError


@pytest.fixture(scope="module")
def index(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("cli") / "ix"
    assert (
        main(["index", str(corpus), "--index", str(target), "--shard-rows", "6", "--verify"]) == 0
    )
    return target


def test_index_with_shard_rows_reports_the_shards(
    index: Path, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", str(corpus), "--index", str(tmp_path / "x"), "--shard-rows", "6"]) == 0
    out = capsys.readouterr().out
    n = len(Collection.open(index).chunks)
    assert f"{n} chunks" in out and f"; {-(-n // 6)} shards" in out


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_results_are_in_input_order_and_equal_the_library(
    index: Path, tmp_path: Path, mode: str
) -> None:
    questions = tmp_path / "q.jsonl"
    rows = [{"id": f"q{i}", "question": q} for i, q in enumerate(QUESTIONS)]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    assert main(["search-batch", str(questions), "--index", str(index), "--out", str(out),
                 "-k", "3", "--mode", mode]) == 0  # fmt: skip
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [d["id"] for d in lines] == [r["id"] for r in rows]
    want = Collection.open(index).search_batch(QUESTIONS, 3, mode=mode)
    for doc, hits in zip(lines, want, strict=True):
        assert doc["chunk_ids"] == [h.id for h in hits]
        assert doc["rows"] == [h.row for h in hits]
        assert doc["scores"] == [h.score for h in hits]  # JSON keeps every bit of a float


def test_plain_text_questions_skip_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("first question\n\n  second  \n", encoding="utf-8")
    assert read_questions(path) == [(1, "first question"), (3, "second")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"id": 1, "question": "ok"}\n{broken\n', "line 2 is not JSON"),
        ('{"id": 1}\n', 'line 1 needs a "question" string'),
        ("\n\n", "holds no questions"),
    ],
)
def test_bad_questions_file_is_one_line_and_exit_2(
    index: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_questions(path)
    out = tmp_path / "r.jsonl"
    assert main(["search-batch", str(path), "--index", str(index), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not out.exists()


def test_missing_index_and_tfidf_shards_are_refused(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    q = tmp_path / "q.txt"
    q.write_text("hello\n", encoding="utf-8")
    args = ["search-batch", str(q), "--index", str(tmp_path / "none"), "--out", str(tmp_path / "r")]
    assert main(args) == 2
    assert "no index at" in capsys.readouterr().err
    args = ["index", str(corpus), "--index", str(tmp_path / "t"), "--shard-rows", "5",
            "--embedder", "tfidf"]  # fmt: skip
    assert main(args) == 2
    assert "hashing embedder" in capsys.readouterr().err
