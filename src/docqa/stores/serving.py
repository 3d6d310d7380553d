"""``docqa serve --store URL``: the service over a store's collection.

:class:`StoreLive` gives the service what :class:`docqa.service.live.LiveIndex` gives it over
an index folder: a retriever per mode for every tenant a key may search, each the store's own
(``PgVectorStore.retriever``: the same retrievers, fusion and guard as ``docqa search
--store``). Rows are read by each search, so a ``docqa index --store`` while serving shows in
the next search; the guard's term statistics are read once, when the service starts. One
connection serves every request (psycopg runs its statements one at a time); a key searches
one tenant, or every tenant.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from docqa.collection import MODES, Mode
from docqa.errors import InputError
from docqa.retrieve.guard import GuardRequest
from docqa.service.live import WARM_QUESTION
from docqa.stores.connection import translated
from docqa.stores.pgvector import PgVectorStore
from docqa.types import Retriever


def _one(tenants: frozenset[str] | None) -> str | None:
    if tenants is not None and len(tenants) != 1:
        raise InputError(
            f"a key of `docqa serve --store` searches one tenant (or all), got "
            f"{sorted(tenants)}; give each tenant a key of its own"
        )
    return None if tenants is None else next(iter(tenants))


class StoreSnapshot:
    """The store's collection as the service reads it: its size, when it was created, and
    the guarded retriever of each mode for each tenant (None: every tenant)."""

    def __init__(
        self,
        store: PgVectorStore,
        guard: GuardRequest,
        tenant_sets: Iterable[frozenset[str] | None],
    ) -> None:
        record, embedder = store.open_collection()
        with translated(store.url, f"counting the rows of collection {record.name!r}"):
            row = store.conn.execute(
                "SELECT (SELECT count(*) FROM chunks WHERE collection_id = %(cid)s), "
                "created_at::text FROM collections WHERE collection_id = %(cid)s",
                {"cid": record.collection_id},
            ).fetchone()
        self.chunks, self.created = (int(row[0]), str(row[1])) if row else (0, "")
        tenants = {_one(t) for t in [None, *tenant_sets]}
        self._retrievers = {
            (mode, tenant): store.retriever(mode, tenant=tenant, embedder=embedder, guard=guard)
            for mode in MODES
            for tenant in tenants
        }

    def retriever(self, mode: Mode, tenants: frozenset[str] | None) -> Retriever:
        """The guarded retriever of ``mode`` over ``tenants``' rows (None: every row)."""
        return self._retrievers[mode, _one(tenants)]

    def warm(self) -> None:
        """One search in each mode over every tenant (the guard's model loads on the first)."""
        for mode in MODES:
            self._retrievers[mode, None].search(WARM_QUESTION, 3)


class StoreLive:
    """The service's view of a store (see the module docstring)."""

    def __init__(
        self,
        store: PgVectorStore,
        *,
        guard: GuardRequest = True,
        tenant_sets: Iterable[frozenset[str] | None] = (),
    ) -> None:
        self.store = store
        self.root: Path | str = store.collection
        self.ready = False
        self._snapshot = StoreSnapshot(store, guard, tenant_sets)

    def warm(self) -> None:
        """Warm the snapshot once; the service is ready after this."""
        if not self.ready:
            self._snapshot.warm()
            self.ready = True

    def current(self) -> StoreSnapshot:
        """The snapshot every request uses."""
        return self._snapshot
