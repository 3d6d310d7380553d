"""``docqa watch``: a real watcher over a real folder, and the update loop fed bursts by hand.

The end-to-end tests start ``python -m docqa watch`` and read its summary lines; every wait
is bounded (``LINE_WAIT``). The loop tests give ``cmd_watch`` the bursts themselves (what the
watcher would report), so that a change made before the watcher starts, a failing update and
a folder that goes away are each met exactly once; the builds in them are real.
"""

from __future__ import annotations

import argparse
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from docqa_cli import clean_env

from docqa.cli.main import build_parser
from docqa.cli.watch import cmd_watch, relevant
from docqa.collection import Collection
from docqa.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "examples" / "library"
LINE_WAIT = 30.0  # seconds for a summary line to come; an update here takes ~0.05 s
QUIET = 2.5  # seconds without a line that show no update ran (the watcher's quiet second + margin)
# a change made before the watcher is up (it starts after the first build) is caught up
SUMMARY = re.compile(r"^(?:(?:\d+ changes?|caught up): )?indexed (\d+) documents")


def _docs(root: Path, names: tuple[str, ...] = ("loans.md", "holds.md", "fines.md")) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(LIBRARY / name, root / name)
    return root


def _args(*argv: str) -> argparse.Namespace:
    return build_parser("watch").parse_args(["watch", *argv])


def test_relevant_changes() -> None:
    docs, ix = Path("/w/docs"), Path("/w/docs/ix")
    roots: list[tuple[Path, Path | None]] = [(docs, None), (Path("/w/one"), Path("/w/one/a.md"))]
    assert relevant("/w/docs/a.md", roots, ix)
    assert relevant("/w/docs/sub/b.html", roots, ix)
    assert relevant("/w/docs/sub", roots, ix)  # a folder moved away: its files are gone
    assert not relevant("/w/docs", roots, ix)  # the folder itself: its entries say what changed
    assert not relevant("/w/docs/.git/index", roots, ix)  # hidden, as the walk leaves it out
    assert not relevant("/w/docs/sub/.a.md.swp", roots, ix)
    assert not relevant("/w/docs/ix/manifest.json", roots, ix)  # the index's own writes
    assert not relevant("/w/docs/ix", roots, ix)
    assert not relevant("/w/docs/.ix.tmp-1/manifest.json", roots, ix)  # a build's temporary
    assert relevant("/w/one/a.md", roots, ix)  # a watched file, through its folder
    assert not relevant("/w/one/b.md", roots, ix)  # ... and nothing else in that folder
    assert not relevant("/w/elsewhere/a.md", roots, ix)


def test_parser_has_the_build_options_and_no_store() -> None:
    args = _args("docs", "--index", "ix", "--max-words", "80", "--debounce", "200", "--poll")
    assert (args.max_words, args.debounce, args.poll, args.quiet) == (80, 200, True, False)
    with pytest.raises(SystemExit):
        build_parser("watch").parse_args(["watch", "docs", "--store", "postgresql://x"])


class _Lines:
    """The stdout lines of a process, read on a thread, each awaited for at most a bound."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self._q: queue.Queue[str] = queue.Queue()
        assert proc.stdout is not None
        stream = proc.stdout
        threading.Thread(target=lambda: [self._q.put(x) for x in stream], daemon=True).start()

    def next(self, wait: float = LINE_WAIT) -> str:
        try:
            return self._q.get(timeout=wait).rstrip("\n")
        except queue.Empty:
            raise AssertionError(
                f"no line within {wait} s (exit code {self.proc.poll()})"
            ) from None

    def none_for(self, wait: float) -> None:
        try:
            line = self._q.get(timeout=wait)
        except queue.Empty:
            return
        raise AssertionError(f"an update ran that nothing asked for: {line!r}")


def _watch(tmp: Path, *args: str) -> tuple[subprocess.Popen[str], _Lines]:
    env = clean_env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "docqa", "watch", *args],
        cwd=tmp,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, _Lines(proc)


def _documents(line: str) -> int:
    match = SUMMARY.match(line)
    assert match, line
    return int(match.group(1))


def _stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=LINE_WAIT)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    return err


def test_watch_follows_new_edited_and_deleted_files(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    proc, lines = _watch(tmp_path, "docs", "--index", "ix", "--quiet")
    try:
        assert _documents(lines.next()) == 3
        (docs / "garden.md").write_text(
            "# The reading garden\n\nDogs on a lead are welcome in the reading garden.\n"
        )
        assert _documents(lines.next()) == 4
        keyword = Collection.open(tmp_path / "ix").retriever("keyword")
        assert keyword.search("reading garden dogs", 1)[0].id.startswith("garden#")
        with open(docs / "loans.md", "a", encoding="utf-8") as out:
            out.write("\n\nMagazines are lent for a week, never renewed.\n")
        line = lines.next()
        assert _documents(line) == 4 and "0 embedded" not in line  # loans.md read again
        (docs / "holds.md").unlink()
        assert _documents(lines.next()) == 3
        ids = {c.id.split("#")[0] for c in Collection.open(tmp_path / "ix").chunks}
        assert ids == {"loans", "fines", "garden"}
    finally:
        if proc.poll() is None:
            err = _stop(proc)
    assert err.strip().splitlines()[-1] == "docqa watch: stopped"


def test_its_own_index_and_hidden_files_are_no_changes(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    # the index inside the watched folder: its writes must not set off another update
    proc, lines = _watch(tmp_path, "docs", "--index", "docs/ix")
    try:
        assert _documents(lines.next()) == 3
        (docs / ".drafts").mkdir()
        (docs / ".drafts" / "secret.md").write_text("# Draft\n\nNot for the index.\n")
        (docs / ".notes.md").write_text("# Notes\n\nHidden too.\n")
        lines.none_for(QUIET)  # nor does the first quiet second's look-round print anything
        (docs / "fines.md").unlink()
        assert _documents(lines.next()) == 2
        lines.none_for(QUIET)  # the update's own writes in docs/ix
    finally:
        if proc.poll() is None:
            err = _stop(proc)
    assert "docqa watch: watching docs (Ctrl-C to stop)" in err


def _bursts(*steps: object) -> Iterator[set[tuple[object, str]]]:
    """Bursts as the watcher gives them: each step is a callable run before its burst (a
    change to the files) or an exception to raise."""
    for step in steps:
        if isinstance(step, BaseException):
            raise step
        if callable(step):
            step()
            yield {(1, "changed")}
        else:
            yield set()  # the watcher's quiet second


def test_a_change_made_before_the_watcher_started_is_caught_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _docs(tmp_path / "docs")

    def watcher_starts_late(args: argparse.Namespace, index_dir: Path) -> Iterator[object]:
        (docs / "late.md").write_text("# Late\n\nWritten while the first build ran.\n")
        return _bursts(None, None, KeyboardInterrupt())  # two quiet seconds, then Ctrl-C

    code = cmd_watch(_args(str(docs), "--index", str(tmp_path / "ix"), "--quiet"),
                     watcher_starts_late)  # fmt: skip
    out, err = capsys.readouterr()
    first, caught = out.splitlines()  # the second quiet second runs nothing
    assert (_documents(first), code) == (3, 0)
    assert caught.startswith("caught up: indexed 4 documents")
    assert err.strip() == "docqa watch: stopped"


def test_nothing_to_catch_up_prints_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _docs(tmp_path / "docs")
    cmd_watch(_args(str(docs), "--index", str(tmp_path / "ix"), "--quiet"),
              lambda a, i: _bursts(None, KeyboardInterrupt()))  # fmt: skip
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_a_failed_update_is_reported_and_the_watch_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs, ix = _docs(tmp_path / "docs"), tmp_path / "ix"

    def clobber() -> None:  # the index folder replaced by a file: the update cannot write
        shutil.rmtree(ix)
        ix.write_text("not an index")

    def mend_and_add() -> None:
        ix.unlink()
        (docs / "new.md").write_text("# New\n\nAdded after the mend.\n")

    code = cmd_watch(_args(str(docs), "--index", str(ix), "--quiet"),
                     lambda a, i: _bursts(clobber, mend_and_add, KeyboardInterrupt()))  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    first, after = out.splitlines()
    assert (_documents(first), _documents(after)) == (3, 4)
    error = err.splitlines()[0]
    assert error.startswith("docqa: error: ") and error.endswith("(still watching)")
    assert "is not a docqa index" in error and str(ix) in error


def test_a_stop_whose_raise_was_dropped_ends_the_watch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], drop_a_stop: Callable[[], None]
) -> None:
    # SIGTERM's handler ran where its Interrupted was dropped (a weakref callback, as in an
    # import): the watch still stops, at the next burst, before updating for it.
    docs = _docs(tmp_path / "docs")

    def never() -> None:
        raise AssertionError("the watch went on after the stop")

    code = cmd_watch(_args(str(docs), "--index", str(tmp_path / "ix"), "--quiet"),
                     lambda a, i: _bursts(drop_a_stop, never))  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, len(out.splitlines()), err.strip()) == (0, 1, "docqa watch: stopped")


def test_a_watched_folder_that_is_gone_ends_the_watch(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    args = _args(str(docs), "--index", str(tmp_path / "ix"), "--quiet")
    with pytest.raises(InputError, match=r"docs no longer exists; the watch stops"):
        cmd_watch(args, lambda a, i: _bursts(lambda: shutil.rmtree(docs)))


def test_a_missing_path_fails_before_watching(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "docqa", "watch", "nowhere", "--index", "ix"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=LINE_WAIT,
        check=False,
    )
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "docqa: error: 'nowhere' does not exist; give a folder or files to load"
    )


def test_without_watchfiles_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path / "docs")
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # `import watchfiles` fails
    with pytest.raises(InputError, match=re.escape("pip install 'docqa[watch]'")):
        cmd_watch(_args(str(docs), "--index", str(tmp_path / "ix"), "--quiet"))
    assert (tmp_path / "ix" / "manifest.json").exists()  # the first build still landed


def test_a_burst_of_writes_lands_whole(tmp_path: Path) -> None:
    """Five files written together: the updates they set off (one, unless the machine is
    slow enough to part them) end in an index holding all five."""
    docs = _docs(tmp_path / "docs")
    proc, lines = _watch(tmp_path, "docs", "--index", "ix", "--quiet", "--debounce", "400")
    try:
        lines.next()
        for i in range(5):
            (docs / f"burst-{i}.md").write_text(f"# Burst {i}\n\nPart {i} of a burst.\n")
        counts = [_documents(lines.next())]
        while counts[-1] < 8 and len(counts) < 5:
            counts.append(_documents(lines.next()))
        assert counts[-1] == 8 and counts == sorted(counts), counts
        ids = {c.id.split("#")[0] for c in Collection.open(tmp_path / "ix").chunks}
        assert {f"burst-{i}" for i in range(5)} <= ids
    finally:
        if proc.poll() is None:
            _stop(proc)


def test_sigterm_in_the_first_build_leaves_the_previous_index(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    ix = tmp_path / "ix"
    subprocess.run([sys.executable, "-m", "docqa", "index", str(docs), "--index", str(ix),
                    "--quiet"], check=True, capture_output=True, timeout=LINE_WAIT)  # fmt: skip
    manifest = (ix / "manifest.json").read_bytes()
    text = (LIBRARY / "loans.md").read_text()
    for i in range(6000):  # a first build long enough to be stopped in
        (docs / f"copy-{i:04d}.md").write_text(text + f"\n\nCopy {i}.\n")
    proc, _ = _watch(tmp_path, "docs", "--index", "ix", "--workers", "2", "--quiet")
    deadline = time.monotonic() + LINE_WAIT
    while not list(tmp_path.glob(".ix.tmp-*")) and time.monotonic() < deadline:
        assert proc.poll() is None
        time.sleep(0.01)
    err = _stop(proc)
    assert err.strip() == "docqa watch: stopped"
    assert (ix / "manifest.json").read_bytes() == manifest  # the build did not land
    assert list(tmp_path.glob(".ix.*")) == []  # nor was left half-done, nor its lock file
