"""The ``docqa`` command: index, watch, search, ask, eval, calibrate, verify, serve, cache,
search-batch and store (``docqa --help`` lists each with a line on what it does).

Results go to stdout, progress and errors to stderr. Exit codes: 0 success, 1 the answer was
refused or nothing was found, 2 bad usage or bad input (one line saying what to do, never a
traceback).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import warnings
from collections.abc import Sequence

from docqa.cli.exits import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, error_line, os_error_text
from docqa.cli.parser import EMBEDDERS, build_parser
from docqa.errors import DocqaError, quiet_dropped_stops, raise_interrupted

__all__ = ["EMBEDDERS", "build_parser", "entry", "main"]

# Idle OpenMP threads of the search kernels sleep instead of spinning, unless the user chose.
# libgomp's default spins each worker for 300,000 rounds (milliseconds) after every parallel
# search; when another process holds one of the cores (a client, a second worker, the machine's
# other jobs) that spinning takes the core's time from them and from the search itself. Dense
# search over 100k rows, 2 cores (benchmarks/openmp_wait.py, docs/notes/2026-12-service.md): 23 against 16
# ms of CPU per call alone, at the same p50; 16.4 against 15.1 ms p50 beside one busy process,
# 21-23 against 12-14 ms beside a test suite and builds. Read when the OpenMP runtime loads,
# i.e. at the first parallel search, which no command runs before ``main``.
OPENMP_WAIT = ("OMP_WAIT_POLICY", "PASSIVE")
# ``docqa index`` makes no BLAS call (its kernels are its own), but NumPy's OpenBLAS starts a
# thread per core when it loads, and they spin for a while: ~0.06 s of the build's serial
# start-up (``benchmarks/build_timeline.py``). Read when NumPy loads.
INDEX_BLAS = ("OPENBLAS_NUM_THREADS", "1")
BUILDS = ("index", "watch")


def entry() -> int:
    """The console script (and ``python -m docqa``): :func:`main` for the one command this
    process runs, with the cycle collector kept off what lives until exit (``gc.freeze``).

    - The objects of the command's imports (~10^5, none of them garbage) are frozen once
      imported. Else the first collections after the imports walk all of them: 12 of the
      ~110 ms of a small ``docqa index`` update's own work.
    - Every object left at the end is frozen, so that the interpreter's exit frees them
      without a last pass over all of them: 16 ms of a 0.16 s ``docqa index`` that finds
      nothing to do (NumPy alone: 8 ms).

    Not in ``main``, which a program may call many times: what it freezes is never collected.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when ignored
        signal.signal(signal.SIGINT, raise_interrupted)  # Ctrl-C as Interrupted (errors.py)
    quiet_dropped_stops()  # a stop raised where CPython drops it is noted, not lost
    code = _main(None, freeze=True)
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    return _main(argv, freeze=False)


def _main(argv: Sequence[str] | None, *, freeze: bool) -> int:
    os.environ.setdefault(*OPENMP_WAIT)
    given = sys.argv[1:] if argv is None else list(argv)
    command = given[0] if given else None
    args = build_parser(command).parse_args(given)  # before any heavy import: --help is fast
    if args.command in BUILDS:
        os.environ.setdefault(*INDEX_BLAS)
    collecting = gc.isenabled()
    gc.disable()  # importing makes ~10^5 objects and no garbage: 7 of 100 ms go to collections
    try:
        from docqa.text import SkippedFileWarning

        if args.command == "index":  # the build needs none of the query side's imports
            from docqa.cli.index import cmd_index as handler
        elif args.command == "watch":
            from docqa.cli.watch import cmd_watch as handler
        elif args.command == "serve":
            from docqa.cli.serving import run_serve as handler
        elif args.command == "cache":
            from docqa.cli.cache import run as handler
        elif args.command == "calibrate":
            from docqa.cli.calibrate import run as handler
        elif args.command == "store":
            from docqa.cli.store_local import run as handler
        else:
            from docqa.cli.commands import run as handler
    finally:
        if freeze:
            gc.freeze()
        if collecting:
            gc.enable()
    try:
        with warnings.catch_warnings():
            # skipped files are listed, with their reasons, in the index summary line
            warnings.simplefilter("ignore", SkippedFileWarning)
            return handler(args)
    except DocqaError as exc:
        error_line(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("docqa: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`docqa search ... | head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # the file system said no (permissions, disk full): one line too
        error_line(os_error_text(exc))
        return EXIT_USAGE


if __name__ == "__main__":
    raise SystemExit(entry())
