"""The trust commands as a user runs them: --explain-guard, calibrate, eval --judge, --context."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from docqa_cli import assert_one_line_error, docqa

from docqa.collection import Collection
from docqa.retrieve.guard import GuardConfig

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"
QUESTIONS = ROOT / "examples" / "questions.jsonl"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cwd = tmp_path_factory.mktemp("trust")
    assert (
        docqa("index", str(LIBRARY), "--index", "ix", "--embedder", "hashing", cwd=cwd).returncode
        == 0
    )
    return cwd / "ix"


def test_explain_guard_says_why(index: Path) -> None:
    refused = docqa("ask", "What is the capital of Mongolia?", "--index", str(index),
                    "--explain-guard", cwd=index.parent)  # fmt: skip
    assert refused.returncode == 1
    assert "guard: refused (hybrid, k=3)" in refused.stderr
    assert "names: Mongolia (not in the collection)" in refused.stderr
    passed = docqa("search", "What does RNW-409 mean?", "--index", str(index),
                   "--explain-guard", "--mode", "keyword", cwd=index.parent)  # fmt: skip
    assert passed.returncode == 0
    assert "guard: passed (keyword, k=5)" in passed.stderr
    assert "holding every name (RNW-409)" in passed.stderr
    off = docqa("search", "RNW-409", "--index", str(index), "--no-guard", "--explain-guard",
                cwd=index.parent)  # fmt: skip
    assert "guard: off (--no-guard)" in off.stderr


def test_drift_model_option(index: Path) -> None:
    question = "How do I renew my passport?"
    judged = docqa("ask", question, "--index", str(index), "--explain-guard", cwd=index.parent)
    assert judged.returncode == 1, judged.stderr  # MiniLM judges beside the hashing index
    assert "drift (by minilm-l6-v2-int8-v2): without passport the question is" in judged.stderr
    own = docqa("search", question, "--index", str(index), "--explain-guard",
                "--drift-model", "embedder", cwd=index.parent)  # fmt: skip
    assert own.returncode == 0, own.stderr
    assert "drift: not checked for passport" in own.stderr
    bad = docqa("search", question, "--index", str(index), "--drift-model", "bert",
                cwd=index.parent)  # fmt: skip
    assert bad.returncode == 2 and "invalid choice: 'bert'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_min_coverage_option(index: Path) -> None:
    question = "What does RNW-409 mean?"
    strict = docqa("search", question, "--index", str(index), "--min-coverage", "1",
                   cwd=index.parent)  # fmt: skip
    assert strict.returncode == 1
    bad = docqa("search", question, "--index", str(index), "--min-coverage", "2", cwd=index.parent)
    assert_one_line_error(bad)
    assert "min_coverage must be in [0, 1]" in bad.stderr


def test_calibrate_prints_the_curve_and_stores_the_choice(index: Path, tmp_path: Path) -> None:
    ix = tmp_path / "ix"
    shutil.copytree(index, ix)
    dry = docqa("calibrate", str(QUESTIONS), "--index", str(ix), "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "calibrated on 38 questions (32 answerable, 6 unanswerable)" in dry.stdout
    assert "<- chosen" in dry.stdout and "not stored (--dry-run)" in dry.stdout
    assert (
        "held out (5 folds, each judged by the setting fitted on the others): keeps" in dry.stdout
    )
    assert Collection.open(ix).guard == GuardConfig()
    run = docqa("calibrate", str(QUESTIONS), "--index", str(ix), "--mode", "keyword", "--json",
                cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["stored"] and data["mode"] == "keyword" and data["kept"] >= 0.9
    assert len(data["curve"]) > 10
    opened = Collection.open(ix)
    assert opened.guard == GuardConfig.from_dict(data["guard"])
    assert opened.index.manifest.meta["guard_calibration"]["questions"] == 38
    held = data["held_out"]
    assert held["folds"] == 5 and 0.0 <= held["kept"] <= 1.0 and 0.0 <= held["refused"] <= 1.0
    assert opened.index.manifest.meta["guard_calibration"]["held_out"] == held
    # the stored guard is what search now uses
    explain = docqa("search", "RNW-409?", "--index", str(ix), "--explain-guard", cwd=tmp_path)
    assert f"min_coverage {data['guard']['min_coverage']}" in explain.stderr


def test_calibrate_errors(index: Path, tmp_path: Path) -> None:
    only = tmp_path / "q.jsonl"
    only.write_text('{"id": "a", "q": "Loan period for books?", "relevant": ["loans#x"]}\n')
    result = docqa("calibrate", str(only), "--index", str(index), cwd=tmp_path)
    assert_one_line_error(result)
    assert "answerable and unanswerable" in result.stderr
    assert_one_line_error(docqa("calibrate", str(QUESTIONS), "--index", "none", cwd=tmp_path))
    folds = docqa("calibrate", str(QUESTIONS), "--index", str(index), "--folds", "1", cwd=tmp_path)
    assert_one_line_error(folds)
    assert "--folds: must be at least 2" in folds.stderr


def test_eval_answers_with_a_scripted_judge(index: Path) -> None:
    result = docqa("eval", str(QUESTIONS), "--index", str(index), "--mode", "keyword",
                   "--answers", "--judge", "fake", "--judge-reply", "yes", "--judge-reply", "no",
                   "--json", cwd=index.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout)["answers"]["keyword"]
    supported = answers["figures"]["supported"]
    assert supported["n"] == answers["asked"] - answers["refused"]
    assert 0.3 < supported["value"] < 0.7  # alternate yes / no verdicts
    assert supported["low"] <= supported["value"] <= supported["high"]
    assert answers["figures"]["overlap"]["value"] == 1.0  # extractive answers quote passages
    table = docqa("eval", str(QUESTIONS), "--index", str(index), "--mode", "keyword",
                  "--answers", "--judge", "fake", cwd=index.parent)  # fmt: skip
    assert "supported 1.000 [1.00, 1.00]" in table.stdout
    lonely = docqa("eval", str(QUESTIONS), "--index", str(index), "--judge", "fake",
                   cwd=index.parent)  # fmt: skip
    assert_one_line_error(lonely)
    assert "add --answers" in lonely.stderr


def test_ask_with_section_context(index: Path) -> None:
    result = docqa("ask", "What does RNW-409 mean?", "--index", str(index), "--context",
                   "section", "--max-context-tokens", "300", "--show-prompt", "--json",
                   cwd=index.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["not_retrieved"] == [] and data["cited"]
    assert data["hits"][0]["id"] == "renewals#when-a-renewal-is-refused"
    assert "RNW-410" in result.stderr  # the whole section's table was in the prompt


def test_eval_answers_prints_the_fact_rate_beside_recall(index: Path, tmp_path: Path) -> None:
    questions = tmp_path / "facts.jsonl"
    rows = [
        {"id": "a", "q": "What is the fine per day for DVDs?", "relevant": ["fines#overdue-fines"],
         "must_contain": ["$1.00"]},
        {"id": "b", "q": "What is the fine per day for DVDs?", "relevant": ["fines#overdue-fines"],
         "must_contain": ["no such words anywhere"]},
        {"id": "c", "q": "What is the loan period for board games?",
         "relevant": ["loans#loan-periods"]},
    ]  # fmt: skip
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = docqa("eval", str(questions), "--index", str(index), "--mode", "keyword,hybrid",
                   "--answers", "--json", cwd=index.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    for mode in ("keyword", "hybrid"):
        facts = json.loads(result.stdout)["answers"][mode]["figures"]["facts"]
        assert facts["n"] == 2 and facts["value"] == 0.5  # "c" has no must_contain
    table = docqa("eval", str(questions), "--index", str(index), "--mode", "keyword,hybrid",
                  "--answers", cwd=index.parent)  # fmt: skip
    row = next(line for line in table.stdout.splitlines() if "facts (answer holds" in line)
    assert row.count("0.500 [") == 2
