"""The console entry keeps the cycle collector off the objects that live until exit: the
command's imports are frozen before the command runs (``gc.freeze``). ``main``, which a
program may call many times, freezes nothing."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc, sys
import docqa.cli.index
from docqa.cli.main import entry, main

def probe(args):  # stands in for the command: what the collector sees when it starts
    print(gc.get_freeze_count(), gc.isenabled())
    return 0

docqa.cli.index.cmd_index = probe
sys.argv = ["docqa", "index", "docs"]
code = {runner}()
print(code, gc.get_freeze_count())
"""


def _run(runner: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(runner=runner)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return out.stdout.split()


def test_entry_freezes_the_imports_before_the_command_runs() -> None:
    frozen, enabled, code, after = _run("entry")
    assert int(frozen) > 10_000  # NumPy's and docqa's objects, at the least
    assert enabled == "True"  # frozen, not switched off: the command's garbage is collected
    assert code == "0" and int(after) > 10_000  # and what is left at the end


def test_main_freezes_nothing() -> None:
    frozen, enabled, code, after = _run("main")
    assert (frozen, enabled, code, after) == ("0", "True", "0", "0")
