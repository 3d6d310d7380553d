"""The chunks of a store load, file after file, so a load holds one file's document at a time.

``ChunkFeed(paths, settings)`` finds the files as ``docqa.text.load_paths`` does (the same
order, sources, id suffixes and duplicate check; a file that cannot be read is skipped with its
``SkippedFileWarning``), then, while ``groups`` is iterated, loads, tenants (``--tenant-from-
folder``) and chunks one file at a time: the chunks ``load_chunks`` makes, in the same order.
After the iteration, ``report`` is the ``LoadReport``; a load that produced no document, or no
chunk, raises the ``InputError`` a whole load raises.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from docqa.errors import InputError
from docqa.pipeline.settings import IndexSettings
from docqa.tenants import folder_tenant
from docqa.text import LoadReport, SkippedFile, chunk_document
from docqa.text.ids import suffixed
from docqa.text.loaders import (
    SkippedFileWarning,
    check_unique,
    find_files,
    named_sources,
    raise_nothing_loaded,
)
from docqa.text.reading import load_file
from docqa.types import Chunk

Progress = Callable[[str, int, int], None]  # (stage, done, total)


class ChunkFeed:
    """The chunks of ``paths`` under ``settings``, a group at a time (see the module)."""

    def __init__(self, paths: Sequence[str | Path], settings: IndexSettings) -> None:
        self.paths = list(paths)
        self.settings = settings
        self.others: Counter[str] = Counter()
        self.files, unknown = find_files(self.paths, self.others)
        check_unique(self.files)
        self.skipped: list[SkippedFile] = []
        for item in unknown:
            self._skip(item.path, item.reason)
        self.loaded: list[str] = []
        self.report = LoadReport((), ())

    def _skip(self, path: str, reason: str) -> None:
        self.skipped.append(SkippedFile(path, reason))
        warnings.warn(f"skipped {path}: {reason}", SkippedFileWarning, stacklevel=2)

    def chunks(self, progress: Progress | None = None) -> Iterator[Chunk]:
        """Each file's chunks in turn (``progress("files", done, total)`` after each file)."""
        kept = suffixed(source for _, source in self.files)
        named = named_sources(self.paths, self.files)
        count = 0
        for done, (path, source) in enumerate(self.files, start=1):
            document = load_file(path, source, named=source in named)
            if isinstance(document, SkippedFile):
                self._skip(source, document.reason)
            else:
                self.loaded.append(document.source)
                document = replace(document, ids=source) if source in kept else document
                if self.settings.tenant_from_folder:
                    document = folder_tenant(document)
                s = self.settings
                chunks = chunk_document(document, max_words=s.max_words, overlap=s.overlap)
                del document
                count += len(chunks)
                yield from chunks
            if progress:
                progress("files", done, len(self.files))
        self.report = LoadReport(tuple(self.loaded), tuple(self.skipped))
        if not self.loaded:
            raise_nothing_loaded(self.paths, self.report)
        if not count:
            raise InputError(f"no text to index in {', '.join(map(str, self.paths))}")

    def groups(self, size: int, progress: Progress | None = None) -> Iterator[list[Chunk]]:
        """``chunks`` in consecutive lists of ``size`` (the last one shorter)."""
        group: list[Chunk] = []
        for chunk in self.chunks(progress):
            group.append(chunk)
            if len(group) >= size:
                yield group
                group = []
        if group:
            yield group
