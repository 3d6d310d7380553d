"""Tenants at indexing time and as kernel masks: folder tenants, masks, --tenant on the CLI,
and the property that no key ever sees another tenant's passage."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import numpy as np
import pytest
from docqa_cli import docqa as _docqa
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import DOCS, TENANTS, bearer

from docqa.build import build_index
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.models import FakeModel
from docqa.service.app import ServeSettings, create_app
from docqa.service.keys import KeyRing
from docqa.service.live import LiveIndex
from docqa.tenants import NO_TENANT, folder_tenant, tenant_codes, tenant_rows
from docqa.text import Document


def test_folder_tenant_sets_first_folder_and_refuses_a_conflict() -> None:
    doc = Document(source="acme/sub/page.md", title="t", sections=(), metadata={"format": "md"})
    assert folder_tenant(doc).metadata == {"format": "md", "tenant": "acme"}
    top = Document(source="page.md", title="t", sections=(), metadata={"tenant": "own"})
    assert folder_tenant(top) is top
    agreeing = Document(source="acme/p.md", title="t", sections=(), metadata={"tenant": "acme"})
    assert folder_tenant(agreeing).metadata["tenant"] == "acme"
    clash = Document(source="acme/p.md", title="t", sections=(), metadata={"tenant": "globex"})
    with pytest.raises(InputError, match="front matter says tenant 'globex'.*folder 'acme'"):
        folder_tenant(clash)


def test_tenant_codes_and_rows() -> None:
    metas = [{"tenant": "b"}, {}, {"tenant": "a"}, {"tenant": "b"}, {"tenant": ""}, {"tenant": 7}]
    names, codes = tenant_codes(metas)
    assert names == ("b", "a", "7")
    assert codes.tolist() == [0, NO_TENANT, 1, 0, NO_TENANT, 2]
    assert tenant_rows(names, codes, ["b"]).tolist() == [True, False, False, True, False, False]
    assert tenant_rows(names, codes, ["a", "zzz"]).tolist() == [False, False, True] + [False] * 3
    assert not tenant_rows(names, codes, []).any()
    empty = tenant_codes([])
    assert empty[0] == () and empty[1].shape == (0,) and empty[1].dtype == np.int32


def test_collection_tenant_mask_is_cached_and_matches_the_metadata(tenant_index: Path) -> None:
    collection = Collection.open(tenant_index)
    assert set(collection.tenants()) == set(TENANTS)
    mask = collection.tenant_mask(["acme"])
    assert mask is collection.tenant_mask(("acme",))
    assert mask.dtype == np.bool_ and mask.shape == (len(collection.index),)
    assert not mask.flags.writeable
    for row, chunk in enumerate(collection.index.chunks):
        assert mask[row] == (chunk.metadata.get("tenant") == "acme")
    shared = [c for c in collection.index.chunks if c.source == "shared.md"]
    assert shared and all("tenant" not in c.metadata for c in shared)


def test_cli_tenant_flag_restricts_search_and_ask(tenant_index: Path, tmp_path: Path) -> None:
    question = "How much is an overdue fine for a book?"
    everyone = _docqa("search", question, "--index", str(tenant_index), "--json", cwd=tmp_path)
    assert everyone.returncode == 0, everyone.stderr
    assert '"source": "acme/fines.md"' in everyone.stdout
    globex = _docqa(
        "search", question, "--index", str(tenant_index), "--json", "--tenant", "globex",
        "--no-guard", cwd=tmp_path,
    )  # fmt: skip
    assert globex.returncode == 0, globex.stderr
    assert '"source": "globex/' in globex.stdout and "acme/" not in globex.stdout
    ask = _docqa("ask", question, "--index", str(tenant_index), "--tenant", "acme", cwd=tmp_path)
    assert ask.returncode == 0 and "ten cents" in ask.stdout
    unknown = _docqa(
        "search", question, "--index", str(tenant_index), "--tenant", "nope", cwd=tmp_path
    )
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == [unknown.stderr.strip()]
    assert "tenant 'nope' has no passages" in unknown.stderr and "acme" in unknown.stderr


def test_cli_index_tenant_from_folder(tmp_path: Path) -> None:
    (tmp_path / "docs" / "t1").mkdir(parents=True)
    (tmp_path / "docs" / "t1" / "a.md").write_text("# A\n\nalpha text here\n", encoding="utf-8")
    out = _docqa(
        "index", str(tmp_path / "docs"), "--index", str(tmp_path / "ix"), "--tenant-from-folder",
        cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert Collection.open(tmp_path / "ix").tenants() == ("t1",)


# --- the property: zero cross-tenant hits, for random tenants, keys and questions -----------

WORDS = sorted({w.strip(".,#?").lower() for text in DOCS.values() for w in text.split()} - {""})
tenant_names = st.sampled_from(["t0", "t1", "t2", "t3"])


def _corpus(root: Path, owners: list[str | None]) -> Path:
    """One page per owner (front matter tenant; None: no tenant), texts from a shared vocabulary."""
    for number, owner in enumerate(owners):
        words = " ".join(WORDS[(number * 7 + i) % len(WORDS)] for i in range(30))
        head = f"---\ntenant: {owner}\n---\n" if owner else ""
        (root / f"p{number}.md").write_text(f"{head}# Page {number}\n\n{words}\n", encoding="utf-8")
    return root


async def _hits_of(app: object, key: str, question: str, mode: str) -> list[dict[str, object]]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://docqa") as client:
        body = {"question": question, "k": 100, "mode": mode}
        found = await client.post("/search", json=body, headers=bearer(key))
        asked = await client.post("/ask", json={**body, "k": 10}, headers=bearer(key))
    assert found.status_code == 200 and asked.status_code == 200, (found.text, asked.text)
    return [*found.json()["hits"], *asked.json()["sources"]]


@settings(max_examples=25)
@given(
    owners=st.lists(st.one_of(st.none(), tenant_names), min_size=1, max_size=8),
    grants=st.lists(st.sets(tenant_names, min_size=1, max_size=3), min_size=1, max_size=3),
    questions=st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=1, max_size=3
    ),
    mode=st.sampled_from(["dense", "keyword", "hybrid"]),
)
def test_no_hit_ever_belongs_to_another_tenant(
    tmp_path_factory: pytest.TempPathFactory,
    owners: list[str | None],
    grants: list[set[str]],
    questions: list[list[str]],
    mode: str,
) -> None:
    root = tmp_path_factory.mktemp("prop")
    (root / "docs").mkdir()
    build_index([_corpus(root / "docs", owners)], root / "ix")
    keys = {f"key-{n:02d}-0123456789abcdef": sorted(g) for n, g in enumerate(grants)}
    ring = KeyRing(keys)
    live = LiveIndex(root / "ix", tenant_sets=[g.tenants for g in ring.grants()])
    live.warm()
    app = create_app(live, FakeModel(lambda prompt: "ok"), ServeSettings(keys=ring))
    owner_of = {f"p{n}.md": owner for n, owner in enumerate(owners)}
    for key, allowed in keys.items():
        for words in questions:
            for hit in asyncio.run(_hits_of(app, key, " ".join(words), mode)):
                assert owner_of[str(hit["source"])] in allowed, (hit["source"], allowed)


def test_the_service_masks_inside_the_kernel(live: LiveIndex) -> None:
    """A masked search asks the kernels for k rows of the tenant (no post-filter): k=2 for
    acme returns 2 acme rows even though other tenants' rows score higher."""
    snapshot = live.current()
    question = "Globex prints colour pages; Acme charges fines"
    unmasked = snapshot.retriever("keyword", None).search(question, 2)
    assert {h.chunk.source.split("/")[0] for h in unmasked if h.chunk} != {"acme"}
    masked = snapshot.retriever("keyword", frozenset({"acme"})).search(question, 2)
    assert len(masked) == 2
    assert all(h.chunk and h.chunk.metadata["tenant"] == "acme" for h in masked)
