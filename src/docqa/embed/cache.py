"""A persistent embedding cache for embedders that cost something (a model, a paid API).

One SQLite file (stdlib ``sqlite3``, WAL journal, so readers never block the one writer and
two processes can share it): a row per (model fingerprint, sha256 of the exact text embedded,
with ``q:`` or ``d:`` in front for questions and documents) holding the float32 vector. Every
read stamps the rows it used; when the vectors stored pass ``max_bytes`` the least recently
used are evicted down to 90% of it. Writes are one ``BEGIN IMMEDIATE`` transaction each, so a
crash leaves the file as it was before or after, never in between.

``CachedEmbedder(inner, cache)`` is ``inner`` (same name, dim and config, so the manifest
names the model) that embeds only the texts the cache does not hold.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from docqa.embed.protocol import Embedder
from docqa.errors import InputError

DEFAULT_MAX_BYTES = 1 << 30
EVICT_TO = 0.9
WAL_ATTEMPTS = 10  # about 5 s of waiting in all (see _prepare)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL, key BLOB NOT NULL, vec BLOB NOT NULL, used INTEGER NOT NULL,
    PRIMARY KEY (model, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used);
CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 0), bytes INTEGER NOT NULL);
INSERT OR IGNORE INTO totals VALUES (0, 0);
"""


def default_cache_dir() -> Path:
    """``$DOCQA_CACHE_DIR``, else ``$XDG_CACHE_HOME/docqa`` or ``~/.cache/docqa``."""
    root = os.environ.get("DOCQA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "docqa"
    )
    return Path(root)


def default_cache_path() -> Path:
    """``embeddings.sqlite3`` in :func:`default_cache_dir`."""
    return default_cache_dir() / "embeddings.sqlite3"


def text_key(text: str, *, query: bool) -> bytes:
    """sha256 of the text as embedded, questions and documents apart."""
    return hashlib.sha256(("q:" if query else "d:").encode() + text.encode("utf-8")).digest()


def fingerprint(embedder: Embedder) -> str:
    """``name`` plus a digest of ``config()`` and, for an embedder that computes its vectors
    with code of docqa's own, its ``code_digest`` (MiniLM's: the source that builds its graph):
    two embedders share rows only if all agree, so vectors an older graph computed are never
    read back after the code that builds it changed."""
    settings = embedder.config()
    code = getattr(embedder, "code_digest", None)
    if code is not None:
        settings = {**settings, "code_digest": code}
    blob = json.dumps(settings, sort_keys=True, default=str).encode("utf-8")
    return f"{embedder.name}:{hashlib.sha256(blob).hexdigest()[:16]}"


@dataclass(frozen=True, slots=True)
class CacheStats:
    path: Path
    entries: int
    bytes: int
    max_bytes: int
    models: dict[str, int]  # fingerprint -> entries


def _prepare(con: sqlite3.Connection) -> None:
    """WAL journal and the schema, on a connection that may be one of several processes'
    first to a new file. Switching a new file to WAL takes an exclusive lock that SQLite's
    busy timeout does not wait for, so two build workers creating the cache at once could get
    "database is locked": the switch is made only when the file is not in WAL yet (the mode
    persists), and retried a few times, briefly, while another process makes it."""
    for attempt in range(WAL_ATTEMPTS):
        try:
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(0.01 * 2**attempt)
    con.execute("PRAGMA synchronous=NORMAL")
    con.executescript(_SCHEMA)


class EmbeddingCache:
    """The cache file at ``path`` (see the module docstring); vectors beyond ``max_bytes``
    are evicted, least recently used first."""

    def __init__(self, path: str | Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES):
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise InputError(f"cache max_bytes must be an int >= 1, got {max_bytes!r}")
        self.path = Path(path) if path is not None else default_cache_path()
        self.max_bytes = max_bytes

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise InputError(
                f"cannot open the embedding cache {self.path}: {exc}; set DOCQA_CACHE_DIR "
                "to a writable folder"
            ) from exc
        try:
            _prepare(con)
            yield con
        except sqlite3.DatabaseError as exc:
            raise InputError(
                f"the embedding cache {self.path} is unusable ({exc}); "
                "delete it or run `docqa cache clear`"
            ) from exc
        finally:
            con.close()

    def get(self, model: str, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
        """The cached ``(dim,)`` float32 vectors of ``keys`` under ``model`` (missing keys
        are absent); the rows found are stamped as just used."""
        found: dict[bytes, np.ndarray] = {}
        if not keys:
            return found
        now = time.time_ns()
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            for start in range(0, len(keys), 500):
                part = list(keys[start : start + 500])
                marks = ",".join("?" * len(part))
                rows = con.execute(
                    f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                    [model, *part],
                ).fetchall()
                for key, vec in rows:
                    if len(vec) == 4 * dim:
                        found[bytes(key)] = np.frombuffer(vec, dtype=np.float32)
                con.execute(
                    f"UPDATE vectors SET used = ? WHERE model = ? AND key IN ({marks})",
                    [now, model, *part],
                )
            con.execute("COMMIT")
        return found

    def put(self, model: str, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Store ``vectors`` (``(len(keys), d)`` float32) under ``model``, then evict."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(keys):
            raise ValueError(f"vectors must be ({len(keys)}, d), got shape {vectors.shape}")
        now = time.time_ns()
        rows = [(model, k, v.tobytes(), now) for k, v in zip(keys, vectors, strict=True)]
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            cur = con.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)", rows)
            added = max(cur.rowcount, 0) * 4 * vectors.shape[1]
            con.execute("UPDATE totals SET bytes = bytes + ? WHERE id = 0", (added,))
            self._evict(con, now)
            con.execute("COMMIT")

    def _evict(self, con: sqlite3.Connection, now: int) -> None:
        """Once the bound is passed, delete least recently used rows until the stored bytes
        are at most 90% of it; rows stamped ``now`` (just written) go only while the bound
        itself is still passed."""
        (total,) = con.execute("SELECT bytes FROM totals WHERE id = 0").fetchone()
        if total <= self.max_bytes:
            return
        target = int(self.max_bytes * EVICT_TO)
        freed, doomed = 0, []
        for model, key, size, used in con.execute(
            "SELECT model, key, length(vec), used FROM vectors ORDER BY used, model, key"
        ):
            left = total - freed
            if left <= target or (used >= now and left <= self.max_bytes):
                break
            doomed.append((model, key))
            freed += size
        con.executemany("DELETE FROM vectors WHERE model = ? AND key = ?", doomed)
        con.execute("UPDATE totals SET bytes = bytes - ? WHERE id = 0", (freed,))

    def stats(self) -> CacheStats:
        with self._connect() as con:
            (total,) = con.execute("SELECT bytes FROM totals WHERE id = 0").fetchone()
            models = dict(con.execute("SELECT model, COUNT(*) FROM vectors GROUP BY model"))
        return CacheStats(self.path, sum(models.values()), int(total), self.max_bytes, models)

    def clear(self, model: str | None = None) -> int:
        """Delete every row (or those of ``model``); returns how many were deleted."""
        where, args = ("WHERE model = ?", [model]) if model is not None else ("", [])
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            count, size = con.execute(
                f"SELECT COUNT(*), COALESCE(SUM(length(vec)), 0) FROM vectors {where}", args
            ).fetchone()
            con.execute(f"DELETE FROM vectors {where}", args)
            con.execute("UPDATE totals SET bytes = MAX(bytes - ?, 0) WHERE id = 0", (size,))
            con.execute("COMMIT")
        if model is None:
            with self._connect() as con:
                con.execute("VACUUM")
        return int(count)


class CachedEmbedder:
    """``inner`` behind ``cache``: the same name, dim and config; ``embed`` asks ``inner``
    only for the distinct texts the cache lacks. ``hits`` / ``misses`` count texts."""

    def __init__(self, inner: Embedder, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def config(self) -> dict[str, Any]:
        return self.inner.config()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a sequence of str, got a single str; wrap it in a list")
        keys = [text_key(t, query=query) for t in texts]
        model = fingerprint(self.inner)
        found = self.cache.get(model, keys, self.dim)
        todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
        if todo:
            fresh = self.inner.embed(list(todo.values()), query=query)
            self.cache.put(model, list(todo), fresh)
            found.update(zip(todo, np.asarray(fresh, dtype=np.float32), strict=True))
        self.hits += len(keys) - sum(1 for k in keys if k in todo)
        self.misses += sum(1 for k in keys if k in todo)
        out = np.zeros((len(keys), self.dim), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = found[key]
        return out

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, {str(self.cache.path)!r})"
