"""Fixtures of the sharded and Ray tests: a generated corpus; one local Ray per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shard_helpers import write_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus") / "docs")


@pytest.fixture(scope="session")
def ray_session() -> Iterator[Any]:
    """A local Ray of 2 CPUs for the whole session (skipped without the ``ray`` extra)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'docqa[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
