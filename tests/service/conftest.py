"""Fixtures of the service tests: a multi-tenant index, the app in-process, a slow model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from service_helpers import KEYS, write_docs
from slow_model import SlowModel

from docqa.build import IndexSettings, build_index
from docqa.service.keys import KeyRing
from docqa.service.live import LiveIndex


@pytest.fixture(scope="session")
def tenant_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the tenant corpus built with --tenant-from-folder (shared.md: no tenant)."""
    root = tmp_path_factory.mktemp("service")
    docs = write_docs(root / "docs")
    build_index([docs], root / "index", IndexSettings(tenant_from_folder=True))
    return root / "index"


@pytest.fixture(scope="session")
def keyring() -> KeyRing:
    return KeyRing(KEYS)


@pytest.fixture(scope="session")
def live(tenant_index: Path, keyring: KeyRing) -> LiveIndex:
    index = LiveIndex(tenant_index, tenant_sets=[g.tenants for g in keyring.grants()])
    index.warm()
    return index


@pytest.fixture
def slow_model() -> Iterator[SlowModel]:
    model = SlowModel().start()
    yield model
    model.stop()
