"""Progress of a long ``docqa index`` on stderr: files and MB done, MB/s and the time left.

Drawn with rich only when stderr is a terminal and ``--quiet`` was not given; otherwise the
callback does nothing, so logs and pipes see just the final summary line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)


def _ignore(stage: str, done: int, total: int) -> None:
    """The callback when nothing is drawn."""


@contextmanager
def build_progress(console: Console, *, quiet: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A ``(stage, done, total)`` callback for ``build_index``: ``"files"`` counts files,
    ``"bytes"`` their bytes."""
    if quiet or not console.is_terminal:
        yield _ignore
        return
    bars = Progress(
        TextColumn("indexing {task.fields[files]}"),
        BarColumn(),
        DownloadColumn(binary_units=False),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        auto_refresh=False,  # redrawn at each update: no refresh thread, so the build's
        # workers can be forked (with a thread running they come from a fork server, whose
        # start costs ~0.3 s, and results cannot come back through shared memory)
    )
    task: TaskID = bars.add_task("index", total=None, files="")

    def update(stage: str, done: int, total: int) -> None:
        if stage == "files":
            bars.update(task, files=f"{done}/{total} files")
        elif stage == "bytes":
            bars.update(task, completed=done, total=total, refresh=True)

    with bars:
        yield update
