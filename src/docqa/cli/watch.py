"""``docqa watch``: keep an index up to date while the folders it was built from change.

It builds (or updates) the index once, then waits for changes and runs the same update as
``docqa index`` after each burst of them (new, edited, moved or deleted files), in this one
process. So an update pays none of a command's start-up: at 106 MB the interpreter, NumPy's
and docqa's imports are ~0.2 s of a ~0.3 s ``docqa index`` after a 1% edit, and nothing of
an update here (docs/notes/2026-12-indexing.md, "docqa watch"). ``docqa serve`` on the same index reloads
each update as it lands (``docqa.service.live``).

The changes only say *when* to look: every update scans the folders itself, as
``docqa index`` does (sizes, times, hashes of what moved), so a change the watcher missed
(an overflowing event queue, a file system that sends none) is still found by the next one.
Changes come from ``watchfiles`` (inotify on Linux, FSEvents on macOS, polling with
``--poll``, for network file systems and some containers). What the walk leaves out
(hidden files and folders) and the index's own files are not changes.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from pathlib import Path

from docqa.build import BuildReport, Progress, build_index, default_index_dir
from docqa.cli.exits import EXIT_OK
from docqa.cli.index import index_settings, print_report, progress_bar
from docqa.errors import (
    DocqaError,
    InputError,
    check_interrupted,
    clear_interrupted,
    raise_interrupted,
)

Changes = AbstractSet[tuple[object, str]]
# The watcher starts only once the first build is done, so what changed during that build
# after its scan is looked for once, at the watcher's first quiet second.
QUIET_MS = 1000


def relevant(path: str, roots: list[tuple[Path, Path | None]], index_dir: Path) -> bool:
    """Whether a change at ``path`` (absolute) can change the index: it lies under one of
    ``roots`` (a watched folder, or the folder of a watched file and that file), with no
    hidden part below it, and not in ``index_dir`` nor its hidden siblings (the lock and
    the temporary folder of a build)."""
    changed = Path(path)
    if changed == index_dir or index_dir in changed.parents:
        return False
    for folder, only in roots:
        if only is not None:
            if changed == only:
                return True
            continue
        try:
            parts = changed.relative_to(folder).parts
        except ValueError:
            continue
        if parts and not any(part.startswith(".") for part in parts):
            return True
    return False


def _roots(paths: list[Path]) -> list[tuple[Path, Path | None]]:
    """What to watch for each path given: a folder itself, a file through its folder (an
    editor that saves by writing a new file and renaming it over the old one would end a
    watch on the file itself)."""
    out: list[tuple[Path, Path | None]] = []
    for given in paths:
        path = Path(os.path.abspath(given))
        out.append((path, None) if path.is_dir() else (path.parent, path))
    return out


@contextmanager
def _stop_on_sigterm() -> Iterator[None]:
    """SIGTERM (a service manager's stop) ends the watch as Ctrl-C does: between updates,
    or in one, which then leaves the index as it was."""

    previous = signal.signal(signal.SIGTERM, raise_interrupted)  # not a bare KeyboardInterrupt
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        clear_interrupted()  # the stop was handled


def _changes(args: argparse.Namespace, index_dir: Path) -> Iterator[Changes]:
    """Bursts of relevant changes, as watchfiles groups them (``--debounce``); raises
    ``InputError`` at once when watchfiles is not installed."""
    try:
        import watchfiles
    except ImportError:
        raise InputError(
            "docqa watch needs watchfiles; install it with `pip install 'docqa[watch]'`"
        ) from None
    roots = _roots(args.paths)
    index_dir = Path(os.path.abspath(index_dir))

    def wanted(change: object, path: str) -> bool:
        return relevant(path, roots, index_dir)

    folders = sorted({str(folder) for folder, _ in roots})
    bursts: Iterator[Changes] = watchfiles.watch(
        *folders,
        watch_filter=wanted,
        debounce=args.debounce,
        raise_interrupt=True,
        force_polling=True if args.poll else None,
        rust_timeout=QUIET_MS,
        yield_on_timeout=True,  # an empty burst: QUIET_MS without a change
    )
    return bursts


def cmd_watch(
    args: argparse.Namespace,
    changes: Callable[[argparse.Namespace, Path], Iterator[Changes]] = _changes,
) -> int:
    """Build, then update after every burst of ``changes`` until Ctrl-C or SIGTERM (exit 0;
    in a build, the index is left as it was or as that build wrote it, never half of each).
    An update that fails (another build holds the index, the disk is full, a folder cannot
    be read) is reported on one line and the watch goes on: the next change tries again. A
    watched path that is gone ends it (exit 2)."""
    settings = index_settings(args)
    index_dir = args.index if args.index is not None else default_index_dir()

    def update(progress: Progress | None = None) -> BuildReport:
        return build_index(args.paths, index_dir, settings, progress=progress, workers=args.workers)

    caught_up = False
    with _stop_on_sigterm():  # from the first build on: stopped in a build, it lands or not
        try:
            with progress_bar(args.quiet) as progress:  # the first build may be long: a bar
                first = update(progress)  # a bad path or option fails here, before watching
            print_report(first)
            bursts = changes(args, index_dir)
            if not args.quiet:
                shown = ", ".join(str(p) for p in args.paths)
                print(f"docqa watch: watching {shown} (Ctrl-C to stop)", file=sys.stderr,
                      flush=True)  # fmt: skip
            for burst in bursts:  # an empty one at least every QUIET_MS
                check_interrupted()  # a stop whose raise was dropped ends the watch here
                if not burst and caught_up:
                    continue
                gone = [p for p in args.paths if not p.exists()]
                if gone:
                    raise InputError(f"{gone[0]} no longer exists; the watch stops")
                caught_up = True  # a failed update is tried again at the next change
                try:
                    report = update()
                except (DocqaError, OSError) as exc:
                    _report(exc)
                    continue
                if burst:
                    n = len(burst)
                    print_report(report, f"{n} {'change' if n == 1 else 'changes'}: ")
                elif _changed(first, report):  # changed while the first build ran
                    print_report(report, "caught up: ")
        except KeyboardInterrupt:
            print("docqa watch: stopped", file=sys.stderr, flush=True)
    return EXIT_OK


def _changed(before: BuildReport, after: BuildReport) -> bool:
    """Whether ``after`` read a file again or holds other files than ``before`` (files that
    were only stat-checked again, being racily clean, change nothing worth a line)."""
    held = (after.documents, after.chunks, after.vocabulary)
    return after.embedded > 0 or held != (before.documents, before.chunks, before.vocabulary)


def _report(exc: DocqaError | OSError) -> None:
    """The one line of a failed update, as ``docqa index`` would print it."""
    from docqa.cli.exits import error_line, os_error_text

    message = str(exc) if isinstance(exc, DocqaError) else os_error_text(exc)
    error_line(f"{message} (still watching)")
