"""The summary line of ``docqa index``, apart from ``render`` so that a quiet build imports
no rich (~0.13 s of a build's serial start-up)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from docqa.cli.words import count
from docqa.controls import escape_controls
from docqa.text.loaders import COPIES, OTHER_FORMATS, READS, STATIC_FILES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from docqa.build import BuildReport
    from docqa.text import SkippedFile

# Up to this many skipped files are named one by one in the summary; beyond it they are
# grouped by reason (the first few names of each) and listed one per line by ``skipped_lines``.
LISTED = 5
NAMED_PER_REASON = 3
SUFFIXES_SHOWN = 4  # of the files of other types, by suffix
COPIES_NAMED = 3  # of the pages passed over as the same page in another format


def build_summary(r: BuildReport) -> str:
    skipped = skipped_text(r.skipped)
    line = (
        f"indexed {count(r.documents, 'document')}, {count(r.chunks, 'chunk')} "
        f"({r.embedded} embedded, {r.reused} reused) into {_shown_path(r.path)}; "
        f"{'' if r.delta is None else 'written as a delta of ' + count(r.delta, 'row') + '; '}"
        f"skipped {len(r.skipped)} ({skipped}); {passed_over_text(r.passed_over, r.copies)}"
        f"embedder {r.embedder}; vocabulary {count(r.vocabulary, 'term')}; {r.seconds:.2f} s"
    )
    return escape_controls("\n".join([line, *(f"warning: {w}" for w in r.warnings)]))


def skipped_lines(files: Sequence[SkippedFile]) -> list[str]:
    """One line per skipped file, when there are too many to name in the summary line."""
    if len(files) <= LISTED:
        return []
    return [escape_controls(f"skipped: {s.path}: {s.reason}") for s in files]


def skipped_text(files: Sequence[SkippedFile]) -> str:
    """The skipped files named one by one, or when there are many, grouped by reason."""
    if not files:
        return "none"
    if len(files) <= LISTED:
        return "; ".join(f"{s.path}: {s.reason}" for s in files)
    groups: dict[str, list[str]] = {}
    for s in files:
        groups.setdefault(s.reason, []).append(s.path)
    parts = []
    for reason, paths in groups.items():
        named = ", ".join(paths[:NAMED_PER_REASON])
        more = len(paths) - NAMED_PER_REASON
        parts.append(f"{len(paths)} × {reason}: {named}{f' and {more} more' if more > 0 else ''}")
    return "; ".join(parts) + "; each is listed on stderr"


def passed_over_text(
    counts: Sequence[tuple[str, int]], named: Sequence[tuple[str, str]] = ()
) -> str:
    """The copies of pages read that were passed over (``COPIES``), the first few pages in
    another format named with the file read for each (``named``: ``(copy, file read)``),
    then the files of Sphinx builds' ``_static`` folders, then the files of other types met
    in the folders, by suffix (the most common first); nothing when there were none."""
    copies = [(what, n) for what, n in counts if what in COPIES]
    static = sum(n for what, n in counts if what == STATIC_FILES)
    types = [(suffix, n) for suffix, n in counts if suffix not in (*COPIES, STATIC_FILES)]
    out = ""
    if copies:
        total = sum(n for _, n in copies)
        shown = ", ".join(
            f"{what} {n}{_pairs(named) if what == OTHER_FORMATS else ''}" for what, n in copies
        )
        out += f"passed over {count(total, 'copy', 'copies')} of pages read ({shown}); "
    if static:
        out += f"passed over {count(static, 'file')} of Sphinx's _static folder (its theme's); "
    if types:
        total = sum(n for _, n in types)
        shown = ", ".join(f"{suffix} {n}" for suffix, n in types[:SUFFIXES_SHOWN])
        more = ", ..." if len(types) > SUFFIXES_SHOWN else ""
        out += f"passed over {count(total, 'file')} of other types ({shown}{more}; {READS}); "
    return out


def _pairs(named: Sequence[tuple[str, str]]) -> str:
    """``": vm.md read for vm.html, ... and 2 more"``: the first ``COPIES_NAMED`` pairs."""
    if not named:
        return ""
    shown = ", ".join(f"{read} read for {copy}" for copy, read in named[:COPIES_NAMED])
    more = len(named) - COPIES_NAMED
    return f": {shown}{f' and {more} more' if more > 0 else ''}"


def _shown_path(path: Any) -> str:
    """``path`` relative to the current folder when it lies inside it (as the user typed it),
    else as it is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return rel if not rel.startswith("..") else str(path)
