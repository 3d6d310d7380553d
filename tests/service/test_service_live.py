"""The live index: a replaced directory is picked up, a broken replacement is not, and the
snapshot a request holds keeps working after its directory is gone."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from service_helpers import write_docs

from docqa.build import build_index
from docqa.cli.serving import _serve_guard
from docqa.index.meta import update_meta
from docqa.retrieve import guard
from docqa.retrieve.guard import GuardConfig
from docqa.service.live import LiveIndex, identity


def test_reload_keeps_old_snapshots_working_and_skips_a_broken_index(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    index = tmp_path / "index"
    build_index([docs], index)
    live = LiveIndex(index)
    live.warm()
    old = live.current()
    assert identity(index) == old.identity
    question = "How much is the overdue fine for a book?"
    assert "ten cents" in old.retriever("hybrid", None).search(question, 1)[0].chunk.text  # type: ignore[union-attr]

    fines = docs / "acme" / "fines.md"
    fines.write_text(fines.read_text().replace("ten cents", "twenty cents"), encoding="utf-8")
    time.sleep(0.01)  # a distinct manifest mtime
    build_index([docs], index)  # atomically replaces the directory; the old one is removed
    deadline = time.monotonic() + 20
    while live.current() is old and time.monotonic() < deadline:
        time.sleep(0.02)
    new = live.current()
    assert new is not old
    assert "twenty cents" in new.retriever("hybrid", None).search(question, 1)[0].chunk.text  # type: ignore[union-attr]
    # a request that still holds the old snapshot reads the old (deleted) files through its maps
    assert "ten cents" in old.retriever("keyword", None).search(question, 1)[0].chunk.text  # type: ignore[union-attr]

    broken = tmp_path / "broken"
    shutil.copytree(index, broken)
    (broken / "manifest.json").write_text("{not json", encoding="utf-8")
    aside = tmp_path / "aside"
    os.rename(index, aside)
    os.rename(broken, index)
    for _ in range(50):  # many requests notice the change; one reload is tried and fails
        assert live.current() is new
        time.sleep(0.01)
    assert live.current() is new and live._failed == identity(index)


class Recorder:
    """A semantic model that records what it embeds (the guard's drift model, scripted)."""

    name, dim, guard_drift = "recorder-v1", 3, 0.1

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.calls.append(list(texts))
        return np.full((len(texts), self.dim), 3**-0.5, dtype=np.float32)

    def config(self) -> dict[str, Any]:
        return {"kind": "recorder"}


def test_warming_loads_the_guards_model_before_the_service_is_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_docs(tmp_path / "docs")
    build_index([docs], tmp_path / "index")  # hashing: the drift model is the guard's own
    model = Recorder()
    monkeypatch.setattr(guard, "guard_model", lambda required=False: model)
    live = LiveIndex(tmp_path / "index")
    assert model.calls == [] and not live.ready  # nothing loaded by opening the index
    live.warm()
    assert live.ready and model.calls == [["warm up the guard"]]  # once, for every mode


def test_serve_options_change_the_indexs_own_guard_not_replace_it(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    build_index([docs], tmp_path / "index")
    calibrated = GuardConfig(min_coverage=0.4, unknown_share_from=0)  # as calibrate stores it
    update_meta(tmp_path / "index", "guard", calibrated.to_dict())
    changes = _serve_guard(0.2, "embedder")
    assert changes == {"min_cosine": 0.2, "min_keyword": 0.2, "drift_model": "embedder"}
    assert _serve_guard(None, None) is True
    snapshot = LiveIndex(tmp_path / "index", guard=changes).current()
    for mode in ("dense", "keyword", "hybrid"):
        retriever = snapshot.retriever(mode, None)
        assert isinstance(retriever, guard.GuardedRetriever)
        assert retriever.config == replace(calibrated, **changes)  # calibration kept
