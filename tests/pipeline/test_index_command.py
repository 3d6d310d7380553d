"""``docqa index`` driven as a user would: Ctrl-C, --workers, folders that share file names."""

from __future__ import annotations

import contextlib
import io
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docqa_cli import clean_env

from docqa.build import IndexSettings, build_index
from docqa.cli.index import index_settings
from docqa.cli.parser import build_parser
from docqa.errors import InputError
from docqa.index import open_index
from docqa.pipeline.sources import discover
from docqa.text.ids import suffixed
from docqa.text.windows import MAX_WORDS

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"


# `python -m docqa ARGS` with Ctrl-C raising KeyboardInterrupt, as from a terminal, even when
# this test run was started in the background: its shell then ignores SIGINT, the child
# inherits that, and Python installs no handler over an ignored signal.
CTRL_C_AS_FROM_A_TERMINAL = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'docqa'; runpy.run_module('docqa', run_name='__main__')"
)


def docqa(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = clean_env()
    return subprocess.Popen(
        [sys.executable, "-c", CTRL_C_AS_FROM_A_TERMINAL, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def many_pages(root: Path, n: int) -> Path:
    text = (LIBRARY / "loans.md").read_text()
    for i in range(n):
        (root / f"part-{i // 500}").mkdir(parents=True, exist_ok=True)
        (root / f"part-{i // 500}" / f"loans-{i:05d}.md").write_text(text + f"\n\nCopy {i}.\n")
    return root


@pytest.mark.slow
def test_ctrl_c_leaves_the_previous_index(tmp_path: Path) -> None:
    ix = tmp_path / "ix"
    build_index([LIBRARY], ix, workers=1)
    manifest = (ix / "manifest.json").read_bytes()
    docs = many_pages(tmp_path / "docs", 6000)
    proc = docqa("index", str(docs), "--index", str(ix), "--workers", "2", cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".ix.tmp-*")) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    time.sleep(0.3)  # let some groups be written
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert err.strip().splitlines()[-1] == "docqa: interrupted", err
    assert "Traceback" not in err
    assert (ix / "manifest.json").read_bytes() == manifest
    open_index(ix).verify()
    # no temporary or half-swapped directory is left, nor the lock file (.ix.lock)
    leftovers = list(tmp_path.glob(".ix.*"))
    assert not leftovers, list(tmp_path.iterdir())


def test_workers_option_and_quiet_summary(tmp_path: Path) -> None:
    proc = docqa("index", str(LIBRARY), "--index", "ix", "--workers", "2", "--quiet", cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert out.startswith("indexed 12 documents, 51 chunks") and err == ""
    proc = docqa("index", str(LIBRARY), "--workers", "0", cwd=tmp_path)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "--workers: must be at least 1" in err


def shared_names(root: Path) -> tuple[Path, Path]:
    for name, word in (("a", "alpha"), ("b", "beta")):
        (root / name).mkdir(parents=True)
        (root / name / "admin.md").write_text(f"# Admin\n\nThe {word} admin page.\n")
    (root / "a" / "only-a.md").write_text("# Only in a\n\nNothing clashes here.\n")
    (root / "c").mkdir()
    (root / "c" / "other.md").write_text("# Other\n\nA folder that clashes with nothing.\n")
    return root / "a", root / "b"


def test_folders_that_share_file_names_get_prefixed_ids(tmp_path: Path) -> None:
    a, b = shared_names(tmp_path / "docs")
    report = build_index([a, b, tmp_path / "docs" / "c"], tmp_path / "ix", workers=1)
    ids = sorted(c.id for c in open_index(tmp_path / "ix").chunks)
    assert ids == ["a/admin#admin", "a/only-a#only-in-a", "b/admin#admin", "other#other"]
    assert report.documents == 4
    again = build_index([a, b, tmp_path / "docs" / "c"], tmp_path / "ix", workers=1)
    assert again.reused == again.chunks  # stable: the same sources, so every row is reused


def test_labels_grow_until_they_differ(tmp_path: Path) -> None:
    for parent in ("x", "y"):
        (tmp_path / parent / "docs").mkdir(parents=True)
        (tmp_path / parent / "docs" / "admin.md").write_text("# Admin\n\ntext\n")
    files, _ = discover([tmp_path / "x" / "docs", tmp_path / "y" / "docs"])
    assert [s for _, s in files] == ["x/docs/admin.md", "y/docs/admin.md"]


def test_folders_whose_pages_would_share_ids_get_prefixed_ids(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "admin.md").write_text("# Admin\n\nsource\n")
    (tmp_path / "b" / "admin.html").write_text("<h1>Admin</h1><p>built</p>")
    files, _ = discover([tmp_path / "a", tmp_path / "b"])
    assert [s for _, s in files] == ["a/admin.md", "b/admin.html"]
    named, _ = discover([tmp_path / "a" / "admin.md", tmp_path / "b" / "admin.html"])
    assert [s for _, s in named] == ["a/admin.md", "b/admin.html"]
    (tmp_path / "a" / "admin.html").write_text("<h1>Admin</h1><p>built here</p>")
    named, _ = discover([tmp_path / "a" / "admin.md", tmp_path / "a" / "admin.html"])
    assert [s for _, s in named] == ["admin.md", "admin.html"]  # one folder: no labels
    assert suffixed(s for _, s in named) == {"admin.md", "admin.html"}  # ids keep suffixes


def test_the_same_folder_twice_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="would both be"):
        discover([LIBRARY, LIBRARY])


def test_a_worker_leaves_ctrl_c_to_its_parent_and_dies_of_sigterm() -> None:
    # a forked worker starts with its parent's handlers: docqa watch's SIGTERM one raises
    # KeyboardInterrupt, which in a worker the pool terminates would print a traceback
    from docqa.pipeline.work import ignore_interrupts

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def raising(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, raising)
        ignore_interrupts()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def test_an_update_keeps_the_indexs_window_size_and_a_new_index_takes_the_default(
    tmp_path: Path,
) -> None:
    """Without ``--max-words`` a new index cuts ``MAX_WORDS``-word windows, and an update of
    an index built with another size keeps its size (a changed default does not re-cut and
    re-embed every file); ``--max-words`` given is what it says."""
    parse = build_parser().parse_args

    def settings(*args: str) -> IndexSettings:
        return index_settings(parse(["index", str(LIBRARY), "--index", str(tmp_path / "ix"),
                                     "--embedder", "hashing", *args]))  # fmt: skip

    assert settings().max_words == MAX_WORDS == IndexSettings().max_words
    build_index([LIBRARY], tmp_path / "ix", IndexSettings(max_words=40), workers=1)
    assert settings().max_words == 40 and settings("--max-words", "80").max_words == 80
    proc = docqa("index", str(LIBRARY), "--index", "ix", "--quiet", cwd=tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "(0 embedded, " in out  # every chunk reused: nothing re-cut
    assert open_index(tmp_path / "ix").manifest.meta["settings"]["max_words"] == 40
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
        parse(["index", "--help"])
    assert f"else {MAX_WORDS}" in " ".join(shown.getvalue().split())  # the help's number
