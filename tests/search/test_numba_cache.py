"""The Numba cache of a kernel is keyed on the files it inlines, not only its own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DEP = "from numba import njit\n\n\n@njit(inline='always')\ndef value():\n    return {}\n"
KERNEL = textwrap.dedent(
    """
    from numba import njit

    import dep
    {track}


    @njit(cache=True)
    def kernel():
        return dep.value()


    print(kernel())
    """
)


def _run(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(folder / "kern.py")],
        check=False,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("tracked", [True, False])
def test_editing_an_inlined_file_recompiles_only_when_tracked(
    tmp_path: Path, tracked: bool
) -> None:
    track = (
        "from docqa.search import numba_cache\nnumba_cache.track(__file__, dep.__file__)"
        if tracked
        else ""
    )
    (tmp_path / "dep.py").write_text(DEP.format(1))
    (tmp_path / "kern.py").write_text(KERNEL.format(track=track))
    assert _run(tmp_path) == "1"
    assert list((tmp_path / "__pycache__").glob("kern.kernel-*.nbi"))  # it was cached
    dep = tmp_path / "dep.py"
    dep.write_text(DEP.format(2))
    # The same size, and on a fast machine the same second as the first run's dep.pyc:
    # Python would load that stale bytecode (it checks the source's mtime in whole seconds
    # and its size). Move the mtime on, so what is tested is the Numba cache alone.
    later = dep.stat().st_mtime + 10
    os.utime(dep, (later, later))
    # Tracked: the dependency's new bytes change the stamp, so the kernel is recompiled.
    # Untracked (Numba's own rule): the stale cached kernel still answers 1 -- the trap.
    assert _run(tmp_path) == ("2" if tracked else "1")


def test_the_topk_kernels_are_keyed_on_lanes_py() -> None:
    from docqa.search import kernels, lanes, numba_cache

    deps = numba_cache._DEPENDENCIES[str(Path(kernels.__file__).resolve())]
    assert str(Path(lanes.__file__).resolve()) in deps
    locator = kernels.scan_serial._cache._impl._locator
    assert type(locator).__name__.startswith("DependencyTracking")
