"""Ctrl-C and SIGTERM raised inside source run by ``exec`` (dataclasses, namedtuples and numba
generate such code while a command runs) end the process with the code docqa returns. CPython
treats a bare KeyboardInterrupt that passed through ``exec`` as unhandled and ends the process
by SIGINT at exit even when it was caught; docqa's handlers raise a subclass. The first test
shows CPython doing it, so the others can fail."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

# Raise the signal from inside exec'd source, catch the interrupt, exit normally.
SCRIPT = """
import os, signal, sys
{setup}
try:
    exec("os.kill(os.getpid(), signal.{sig})\\nimport time\\nfor _ in range(200): time.sleep(0.01)")
except KeyboardInterrupt as exc:
    print("caught", type(exc).__name__, file=sys.stderr)
"""


def run(setup: str, sig: str) -> subprocess.CompletedProcess[str]:
    code = SCRIPT.format(setup=setup, sig=sig)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_cpython_ends_by_sigint_after_a_bare_keyboard_interrupt_in_exec_was_caught() -> None:
    bare = "def handler(s, f):\n    raise KeyboardInterrupt\nsignal.signal(signal.SIGTERM, handler)"
    done = run(bare, "SIGTERM")
    assert "caught KeyboardInterrupt" in done.stderr
    assert done.returncode == -signal.SIGINT  # caught, and still killed by SIGINT at exit


@pytest.mark.parametrize(
    ("setup", "sig"),
    [
        (  # docqa watch's SIGTERM
            (
                "from docqa.cli.watch import _stop_on_sigterm\nstop = _stop_on_sigterm()\n"
                "stop.__enter__()"
            ),
            "SIGTERM",
        ),
        (  # the console script's Ctrl-C
            (
                "from docqa.errors import raise_interrupted\n"
                "signal.signal(signal.SIGINT, raise_interrupted)"
            ),
            "SIGINT",
        ),
    ],
    ids=["watch-sigterm", "ctrl-c"],
)
def test_docqas_handlers_in_exec_exit_normally(setup: str, sig: str) -> None:
    done = run(setup, sig)
    assert "caught Interrupted" in done.stderr
    assert done.returncode == 0, done.stderr


def test_entry_installs_the_handler_only_over_the_default_one() -> None:
    code = (
        "import importlib, signal, sys\n"
        "main = importlib.import_module('docqa.cli.main')\n"
        "sys.argv = ['docqa', '--help']\n"
        "try:\n    main.entry()\nexcept SystemExit:\n    pass\n"
        "from docqa.errors import raise_interrupted\n"
        "print(sys.unraisablehook is not sys.__unraisablehook__)\n"  # quiet_dropped_stops
        "print(signal.getsignal(signal.SIGINT) is raise_interrupted)\n"
    )
    # Python's own handler, also when the suite was started with SIGINT ignored (``cmd &``)
    own = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    default = subprocess.run([sys.executable, "-c", own + code], capture_output=True, text=True,
                             timeout=60, check=False)  # fmt: skip
    assert default.stdout.split()[-2:] == ["True", "True"], default.stderr
    ignored = subprocess.run(
        [sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n" + code],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert ignored.stdout.strip().endswith("False"), ignored.stderr  # a background job's ignore


DROPPED = """
import signal, sys, weakref
from docqa.errors import Interrupted, check_interrupted, quiet_dropped_stops, raise_interrupted
signal.signal(signal.SIGTERM, raise_interrupted)
{setup}

class Thing:
    pass

def dropped(callback):  # CPython prints and drops what a weakref callback raises
    thing = Thing()
    ref = weakref.ref(thing, callback)
    del thing

dropped(lambda _: signal.raise_signal(signal.SIGTERM))
print("went on", file=sys.stderr)
dropped(lambda _: int("not a number"))  # any other error is still printed
try:
    check_interrupted()
except Interrupted:
    print("stopped", file=sys.stderr)
"""


@pytest.mark.parametrize("quiet", [False, True], ids=["cpython", "docqa"])
def test_a_stop_dropped_by_cpython_is_noted_and_printed_only_without_docqas_hook(
    quiet: bool,
) -> None:
    setup = "quiet_dropped_stops()" if quiet else ""
    done = subprocess.run([sys.executable, "-c", DROPPED.format(setup=setup)],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines.index("went on") < lines.index("stopped")  # dropped, then raised again
    assert "ValueError: invalid literal for int()" in done.stderr
    assert ("docqa.errors.Interrupted" in done.stderr) is not quiet
    assert done.stderr.count("Exception ignored") == (1 if quiet else 2)
