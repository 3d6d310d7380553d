"""Tenants: which rows of an index one caller may read (pure; no I/O).

A chunk's tenant is ``chunk.metadata["tenant"]`` (a str), set at indexing time by front matter
(``tenant: acme``) or by ``docqa index --tenant-from-folder`` (the first folder of the file's
path under the indexed folder: ``acme/guide.md`` belongs to ``acme``). A chunk without one
belongs to no tenant: only an unrestricted reader sees it.

Searches are restricted with a boolean row mask handed to the kernels (``mask=``), never by
filtering results afterwards: ``tenant_codes`` turns the chunks into one small-int code per row
once per opened index, ``tenant_rows`` turns a set of tenant names into the mask.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from docqa.errors import InputError
from docqa.text import Document

TENANT = "tenant"
NO_TENANT = -1
"""The code of a row whose chunk has no tenant."""


def tenant_of(metadata: Mapping[str, Any]) -> str | None:
    """The tenant recorded in chunk or document ``metadata`` (None when there is none)."""
    value = metadata.get(TENANT)
    if value is None or value == "":
        return None
    return str(value)


def folder_tenant(document: Document) -> Document:
    """``document`` with its tenant set from the first folder of its ``source``.

    A file at the top of the indexed folder keeps the tenant of its front matter, if any.
    Raises ``InputError`` when front matter names a different tenant than the folder.
    """
    folder, sep, _ = document.source.partition("/")
    if not sep:
        return document
    declared = tenant_of(document.metadata)
    if declared is not None and declared != folder:
        raise InputError(
            f"{document.source}: front matter says tenant {declared!r} but the file is in "
            f"folder {folder!r} (--tenant-from-folder); move the file or fix its front matter"
        )
    return dataclasses.replace(document, metadata={**document.metadata, TENANT: folder})


def tenant_codes(metadatas: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, ...], np.ndarray]:
    """``(names, codes)``: the distinct tenants in first-seen order and one int32 code per row,
    an index into ``names`` or :data:`NO_TENANT`."""
    names: dict[str, int] = {}
    codes = []
    for metadata in metadatas:
        tenant = tenant_of(metadata)
        codes.append(NO_TENANT if tenant is None else names.setdefault(tenant, len(names)))
    return tuple(names), np.asarray(codes, dtype=np.int32).reshape(-1)


def tenant_rows(names: tuple[str, ...], codes: np.ndarray, tenants: Iterable[str]) -> np.ndarray:
    """A C-contiguous bool ``(N,)`` mask of the rows belonging to any of ``tenants`` (a tenant
    with no rows simply adds none)."""
    wanted = [names.index(t) for t in set(tenants) if t in names]
    return np.ascontiguousarray(np.isin(codes, np.asarray(wanted, dtype=np.int32)))


class TenantRows:
    """The tenants of an index's rows, read once, and the mask of each set asked for (kept,
    read-only), so a repeated ``mask`` costs a dict lookup."""

    def __init__(self, chunks: Iterable[Any]) -> None:
        self.names, self._codes = tenant_codes(c.metadata for c in chunks)
        self._masks: dict[frozenset[str], np.ndarray] = {}

    def mask(self, tenants: Iterable[str]) -> np.ndarray:
        """Bool ``(N,)``: the rows of any of ``tenants``."""
        wanted = frozenset(tenants)
        found = self._masks.get(wanted)
        if found is None:
            found = tenant_rows(self.names, self._codes, wanted)
            found.setflags(write=False)
            self._masks[wanted] = found
        return found


class TenantLookup:
    """``tenant_mask`` and ``tenants`` for a collection with ``chunks`` and a ``_tenants:
    TenantRows | None`` field (single and sharded collections share them)."""

    _tenants: TenantRows | None
    chunks: Any

    def tenant_mask(self, tenants: Iterable[str]) -> np.ndarray:
        """Bool ``(N,)``: the rows whose chunk belongs to one of ``tenants``. The rows'
        tenants are read once per opened index and each mask is kept, so a repeated call costs
        a dict lookup; pass it to a search as ``mask=``."""
        return self._tenant_rows().mask(tenants)

    def tenants(self) -> tuple[str, ...]:
        """The distinct tenants of the collection's chunks, first-seen order."""
        return self._tenant_rows().names

    def _tenant_rows(self) -> TenantRows:
        if self._tenants is None:
            self._tenants = TenantRows(self.chunks)
        return self._tenants
