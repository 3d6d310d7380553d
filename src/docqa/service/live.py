"""The index the service reads, reopened when ``docqa index`` atomically replaces it.

Each request takes the current :class:`Snapshot` (an opened Collection with its retrievers) and
keeps it for its whole life, so a request that started on the old index finishes on it (the
old files stay readable through their memory maps after the directory is replaced). The check
is two ``stat`` calls per request: the directory's and the manifest's inode, mtime and size.
When they change, one background thread opens and warms the new index and then swaps it in;
until then requests keep the old one. An index that fails to open is reported once and the old
one kept until the directory changes again.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import numpy as np

from docqa.collection import MODES, AnyCollection, Collection, Mode
from docqa.errors import DocqaError
from docqa.index.format import MANIFEST
from docqa.retrieve.drift import Semantic
from docqa.retrieve.guard import GuardRequest
from docqa.retrieve.masked import MaskedRetriever
from docqa.types import Retriever

Identity = tuple[int, ...]
log = logging.getLogger("docqa.serve")

WARM_QUESTION = "warm up the search kernels"


def identity(root: Path | str, manifest: str | None = None) -> Identity | None:
    """The directory's and the manifest's (device, inode, mtime, size); None while missing.
    ``manifest``: the manifest's path, when the caller keeps it (no path joining per call)."""
    try:
        d, m = os.stat(root), os.stat(manifest or os.path.join(root, MANIFEST))
    except OSError:
        return None
    return (d.st_dev, d.st_ino, m.st_ino, m.st_mtime_ns, m.st_size)


class Served(Protocol):
    """What one request reads: the collection's size and age, and a retriever per mode and
    tenant set (a :class:`Snapshot`, or a store's, ``docqa.stores.serving``)."""

    chunks: int
    created: str

    def retriever(self, mode: Mode, tenants: frozenset[str] | None) -> Retriever: ...


class Live(Protocol):
    """What the service reads from: ``root`` names it on the page, ``warm`` readies it once,
    ``current`` is what the next request uses (:class:`LiveIndex`, or a store's)."""

    root: Path | str
    ready: bool

    def warm(self) -> None: ...

    def current(self) -> Served: ...


class Snapshot:
    """One opened index: its collection, identity, and a retriever per mode."""

    def __init__(
        self, collection: AnyCollection, ident: Identity | None, guard: GuardRequest
    ) -> None:
        self.collection = collection
        self.identity = ident
        self.created = collection.index.manifest.created
        self.chunks = len(collection.index)
        self._retrievers = {m: collection.retriever(m, guard=guard) for m in MODES}

    def retriever(self, mode: Mode, tenants: frozenset[str] | None) -> Retriever:
        """The guarded retriever of ``mode``, restricted to ``tenants`` (None: every row)."""
        base = self._retrievers[mode]
        if tenants is None:
            return base
        return MaskedRetriever(base, self.collection.tenant_mask(tenants))

    def warm(self, tenant_sets: Iterable[frozenset[str] | None]) -> None:
        """Compile the kernels (masked and not) and build every tenant mask before serving."""
        everything = np.ones(self.chunks, dtype=np.bool_)
        for mode in MODES:
            self._retrievers[mode].search(WARM_QUESTION, 3)
            self._retrievers[mode].search(WARM_QUESTION, 3, mask=everything)
        for tenants in tenant_sets:
            if tenants is not None:
                self.collection.tenant_mask(tenants)
        for retriever in self._retrievers.values():  # the guard's model, loaded once
            semantic = getattr(retriever, "semantic", None)
            if isinstance(semantic, Semantic):
                semantic.warm()
                break


class LiveIndex:
    """The current snapshot of the index at ``root`` (see the module docstring); ``guard`` is
    what each opened index is guarded by, as ``Collection.retriever`` takes it."""

    def __init__(
        self,
        root: Path,
        *,
        guard: GuardRequest = True,
        tenant_sets: Iterable[frozenset[str] | None] = (),
    ) -> None:
        self.root: Path | str = root
        self._paths = (os.fspath(root), os.path.join(root, MANIFEST))  # stat'ed per request
        self.guard = guard
        self.tenant_sets = list(tenant_sets)
        self.ready = False
        self._lock = threading.Lock()
        self._failed: Identity | None = None
        self._snapshot = self._open(identity(root))

    def _open(self, ident: Identity | None) -> Snapshot:
        return Snapshot(Collection.open(self.root), ident, self.guard)

    def warm(self) -> None:
        """Warm the first snapshot; the service is ready after this (again: nothing to do)."""
        if self.ready:
            return
        self._snapshot.warm(self.tenant_sets)
        self.ready = True

    def current(self) -> Snapshot:
        """The snapshot to use for one request; starts a reload when the directory changed."""
        snapshot = self._snapshot
        ident = identity(*self._paths)
        changed = ident is not None and ident != snapshot.identity and ident != self._failed
        if changed and self._lock.acquire(blocking=False):
            threading.Thread(target=self._reload, args=(ident,), daemon=True).start()
        return snapshot

    def _reload(self, ident: Identity) -> None:
        try:
            snapshot = self._open(ident)
            snapshot.warm(self.tenant_sets)
        except (DocqaError, OSError) as exc:
            self._failed = ident
            log.warning("docqa serve: kept the previous index; the new one failed: %s", exc)
        else:
            self._snapshot = snapshot
            log.warning(
                "docqa serve: reloaded %s (%d chunks, created %s)",
                self.root,
                snapshot.chunks,
                snapshot.created,
            )
        finally:
            self._lock.release()
