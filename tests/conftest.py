"""Shared test settings (one fixed hypothesis profile for CI, a quicker one for local runs)
and fixtures more than one folder uses."""

import os
import shutil
import signal
import sys
import tempfile
import weakref
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, settings

from docqa.errors import Interrupted, clear_interrupted, raise_interrupted

settings.register_profile(
    "ci",
    max_examples=200,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

_CACHE = "DOCQA_CACHE_DIR"
_cache_key = pytest.StashKey[str | None]()  # the developer's own setting, put back at the end


def pytest_configure(config: pytest.Config) -> None:
    """Every test, and every docqa process a test starts (``docqa_cli.clean_env`` keeps this
    one setting), keeps its embedding cache and built model graphs in a folder of this
    session's own, removed at its end: never in the developer's ``~/.cache/docqa``, whose
    vectors could also hide what a test means to compute."""
    config.stash[_cache_key] = os.environ.get(_CACHE)
    os.environ[_CACHE] = tempfile.mkdtemp(prefix="docqa-test-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's cache folder; the setting is the developer's again."""
    shutil.rmtree(os.environ[_CACHE], ignore_errors=True)
    before = config.stash.get(_cache_key, None)
    if before is None:
        del os.environ[_CACHE]
    else:
        os.environ[_CACHE] = before


@pytest.fixture(autouse=True)
def _no_stop_outlives_its_test() -> Iterator[None]:
    """Forget the stops docqa's signal handler noted in a test (``errors.raise_interrupted``;
    a test that raises SIGTERM through it catches the stop but does not end the process)."""
    yield
    clear_interrupted()


@pytest.fixture
def drop_a_stop(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """A callable that runs docqa's signal handler (``errors.raise_interrupted``, as SIGTERM
    would) where CPython drops what it raises: a weakref callback. It checks that the raise was
    dropped."""
    dropped: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_value))

    def drop() -> None:
        class Thing:
            pass

        thing = Thing()
        ref = weakref.ref(thing, lambda _: raise_interrupted(signal.SIGTERM, None))
        del thing
        assert ref() is None and isinstance(dropped[-1], Interrupted), dropped

    return drop
