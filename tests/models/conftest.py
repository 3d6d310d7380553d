"""Fixtures for the model client tests: a stand-in backend on 127.0.0.1, no real sleeps."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from standin import StandIn

from docqa.models.base import RetryPolicy


@pytest.fixture
def server() -> Iterator[StandIn]:
    standin = StandIn().start()
    yield standin
    standin.stop()


@pytest.fixture
def sleeps() -> list[float]:
    """The delays the retry policy asked for (recorded instead of slept)."""
    return []


@pytest.fixture
def policy(sleeps: list[float]) -> RetryPolicy:
    return RetryPolicy(attempts=3, base_delay=0.01, max_delay=5.0, sleep=sleeps.append)
