"""Build or update an index directory from folders of documents (the indexing-time edge).

``build_index`` loads, chunks, embeds and writes; when an index built with the same settings
is already at the target it is updated instead: the vectors of files whose sha256 did not
change are copied from it and only changed or new files are embedded, deleted files drop out,
and the result equals a full rebuild (rows follow the load order either way). A fitted
embedder (TF-IDF) depends on the whole collection, so any change refits and re-embeds it all.
BM25 postings are always rebuilt from the chunk texts (a streaming native pass).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docqa._checks import positive
from docqa.embed import TfidfEmbedder
from docqa.embed.choices import EMBEDDERS, make_embedder
from docqa.embed.protocol import Embedder
from docqa.errors import DocqaError, InputError
from docqa.index import open_index, write_index
from docqa.index.format import TFIDF_PREFIX
from docqa.index.lock import build_lock
from docqa.index.ownership import resolve_target
from docqa.index.reader import Index
from docqa.keyword import BM25Index
from docqa.search.compact import storage_arrays
from docqa.tenants import folder_tenant
from docqa.text import Document, SkippedFile, chunk_document, embed_text, load_paths
from docqa.text.loaders import find_files
from docqa.text.windows import check_window
from docqa.types import Chunk

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """How a collection is chunked and embedded; recorded in the manifest's ``meta``."""

    embedder: str = "hashing"
    dim: int = 256
    max_words: int = 120
    overlap: int = 0
    headings: bool = True
    storage: str = "float32"  # "int8": int8 codes beside the vectors (docqa.search.compact)
    tenant_from_folder: bool = False  # chunk tenant = first folder of the file (docqa.tenants)

    def __post_init__(self) -> None:
        if self.embedder not in EMBEDDERS:
            raise InputError(f"unknown embedder {self.embedder!r}; choose one of {EMBEDDERS}")
        positive(self.dim, "dim")
        check_window("max_words", self.max_words, "overlap", self.overlap)
        storage_arrays(self.storage, np.zeros((0, 1), np.float32))  # validates the name

    def make_embedder(self) -> Embedder | TfidfEmbedder:
        return make_embedder(self.embedder, dim=self.dim)


@dataclass(frozen=True)
class BuildReport:
    """What one ``build_index`` call did."""

    path: Path
    documents: int
    chunks: int
    skipped: tuple[SkippedFile, ...]
    embedder: str
    vocabulary: int
    embedded: int  # chunks embedded by this call
    reused: int  # chunks whose vectors came from the previous index
    seconds: float
    warnings: tuple[str, ...] = ()  # e.g. a damaged previous index that was re-embedded


def fingerprint(paths: Iterable[str | Path], settings: IndexSettings) -> str:
    """A digest of the files' names, sizes and modification times and of the settings: while
    it is unchanged, the index built from ``paths`` is up to date."""
    files, unknown = find_files(paths)
    items: list[Any] = [asdict(settings), [u.path for u in unknown]]
    for path, source in files:
        st = path.stat()
        items.append([source, str(path.resolve()), st.st_size, st.st_mtime_ns])
    return hashlib.sha256(json.dumps(items).encode("utf-8")).hexdigest()


def _previous(target: Path, settings: IndexSettings, warnings: list[str]) -> Index | None:
    """The index at ``target`` if it was built with ``settings`` and passes its checks.

    Its rows are reused only after every file's checksum and every vector's finiteness have
    been verified: a damaged previous index is not copied from, its files are re-embedded
    (``warnings`` says so), and the new index replaces it.
    """
    if settings.embedder == "tfidf" or not (target / "manifest.json").exists():
        return None  # a fitted embedder re-embeds every row anyway: nothing is reused
    try:
        index = open_index(target)
        if index.manifest.meta.get("settings") != asdict(settings):
            return None
        index.verify()
    except DocqaError as exc:
        warnings.append(f"previous index not reused, every file re-embedded: {exc}")
        return None
    return index


def _reusable_rows(previous: Index | None, doc: Document) -> tuple[int, int] | None:
    """Rows of ``doc`` in ``previous`` when the file's bytes are unchanged (and the recorded
    rows lie inside the previous index)."""
    if previous is None or not doc.content_hash:
        return None
    files = previous.manifest.meta.get("files")
    record = files.get(doc.source) if isinstance(files, dict) else None
    if not isinstance(record, dict) or record.get("sha256") != doc.content_hash:
        return None
    rows = record.get("rows")
    if not (isinstance(rows, list) and len(rows) == 2 and all(type(r) is int for r in rows)):
        return None
    start, stop = rows
    return (start, stop) if 0 <= start <= stop <= len(previous) else None


def _embed_all(
    embedder: Embedder, texts: Sequence[str], progress: Progress | None, batch: int = 2048
) -> np.ndarray:
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for start in range(0, len(texts), batch):
        out[start : start + batch] = embedder.embed(texts[start : start + batch])
        if progress:
            progress("embed", min(start + batch, len(texts)), len(texts))
    return out


# A dense TF-IDF matrix is (chunks x vocabulary): refuse one that would not fit comfortably.
MAX_DENSE_BYTES = 2 << 30


def _vectors(
    embedder: Embedder | TfidfEmbedder,
    documents: Sequence[Document],
    chunks_of: Sequence[Sequence[Chunk]],
    texts: Sequence[str],
    previous: Index | None,
    progress: Progress | None,
) -> tuple[np.ndarray, int]:
    """The ``(N, dim)`` matrix and how many rows were reused from ``previous``."""
    if isinstance(embedder, TfidfEmbedder):
        embedder.fit(texts)
        if len(texts) * embedder.dim * 4 > MAX_DENSE_BYTES:
            raise InputError(
                f"a TF-IDF index of {len(texts)} chunks x {embedder.dim} words would need "
                f"{len(texts) * embedder.dim * 4 >> 20} MiB; use --embedder hashing"
            )
        return _embed_all(embedder, texts, progress), 0
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    todo: list[int] = []
    row = 0
    for doc, chunks in zip(documents, chunks_of, strict=True):
        rows = _reusable_rows(previous, doc)
        if rows is not None and rows[1] - rows[0] == len(chunks):
            out[row : row + len(chunks)] = previous.vectors[rows[0] : rows[1]]  # type: ignore[union-attr]
        else:
            todo.extend(range(row, row + len(chunks)))
        row += len(chunks)
    if todo:
        out[todo] = _embed_all(embedder, [texts[i] for i in todo], progress)
    return out, len(texts) - len(todo)


def build_index(
    paths: Sequence[str | Path],
    index_dir: str | Path,
    settings: IndexSettings | None = None,
    *,
    progress: Progress | None = None,
    verify: bool = False,
) -> BuildReport:
    """Load ``paths``, chunk, embed and write (or update) the index at ``index_dir``.

    Holds the index's build lock throughout: a second build of the same index raises
    IndexBusy instead of racing this one.
    """
    target = resolve_target(index_dir)
    with build_lock(target):
        return _build_locked(paths, target, settings or IndexSettings(), progress, verify)


def _build_locked(
    paths: Sequence[str | Path],
    target: Path,
    settings: IndexSettings,
    progress: Progress | None,
    verify: bool,
) -> BuildReport:
    started = time.perf_counter()
    stamp = fingerprint(paths, settings)
    documents, load_report = load_paths(paths)
    if settings.tenant_from_folder:
        documents = [folder_tenant(d) for d in documents]
    chunks_of = [
        chunk_document(d, max_words=settings.max_words, overlap=settings.overlap) for d in documents
    ]
    chunks = [c for group in chunks_of for c in group]
    if not chunks:
        raise InputError(f"no text to index in {', '.join(map(str, paths))}")
    texts = [embed_text(c, headings=settings.headings) for c in chunks]
    warnings: list[str] = []
    previous = _previous(target, settings, warnings)
    embedder = settings.make_embedder()
    vectors, reused = _vectors(embedder, documents, chunks_of, texts, previous, progress)
    bm25 = BM25Index.from_texts(texts)
    arrays = dict(bm25.to_arrays())
    arrays.update(storage_arrays(settings.storage, vectors))
    if isinstance(embedder, TfidfEmbedder):
        arrays.update({TFIDF_PREFIX + k: v for k, v in embedder.state().items()})
    files, row = {}, 0
    for doc, group in zip(documents, chunks_of, strict=True):
        files[doc.source] = {"sha256": doc.content_hash, "rows": [row, row + len(group)]}
        row += len(group)
    meta = {
        "settings": asdict(settings),
        "files": files,
        "fingerprint": stamp,
        "bm25": bm25.config.to_dict(),
    }
    del previous  # release the old memory maps before the directory is replaced
    write_index(target, chunks, vectors, embedder=embedder, arrays=arrays, meta=meta)
    if verify:
        open_index(target).verify()
    return BuildReport(
        path=target,
        documents=len(documents),
        chunks=len(chunks),
        skipped=load_report.skipped,
        embedder=embedder.name,
        vocabulary=bm25.n_terms,
        embedded=len(chunks) - reused,
        reused=reused,
        seconds=time.perf_counter() - started,
        warnings=tuple(warnings),
    )


def ensure_index(
    paths: Sequence[str | Path],
    index_dir: str | Path,
    settings: IndexSettings | None = None,
    *,
    progress: Progress | None = None,
) -> BuildReport | None:
    """Build or update the index unless it is already up to date with ``paths`` (same files,
    sizes, modification times and settings); returns None when nothing was done."""
    settings = settings or IndexSettings()
    target = Path(index_dir)
    if (target / "manifest.json").exists():
        try:
            if open_index(target).manifest.meta.get("fingerprint") == fingerprint(paths, settings):
                return None
        except DocqaError:
            pass
    return build_index(paths, target, settings, progress=progress)


def default_index_dir(cwd: str | os.PathLike[str] | None = None) -> Path:
    """``.docqa/index`` under the current folder."""
    return Path(cwd or os.getcwd()) / ".docqa" / "index"
