"""The ``Embedder`` protocol and the config registry that rebuilds an embedder from an index.

(How text is tokenized, ``TokenSettings``, lives with the tokenizer: ``docqa.text.tokenize``.)

An index records ``embedder.config()`` (a JSON-able dict with ``kind`` and ``version``) and,
for fitted embedders, ``embedder.state()`` (a dict of NumPy arrays it can store and
memory-map); ``from_config(config, state)`` rebuilds the very same embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from docqa.errors import InputError
from docqa.text.tokenize import TokenSettings


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into rows of unit length.

    ``name`` is a stable id that includes the configuration and a version
    (``"hashing-256-v1"``); ``embed`` returns ``(len(texts), dim)`` float32, C-contiguous;
    a text with no kept token gives a zero row (never NaN).
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        """``(len(texts), dim)`` float32 rows; ``query`` says the texts are questions (a model
        may embed them differently from passages)."""
        ...

    def config(self) -> dict[str, Any]:
        """JSON-able settings that ``from_config`` turns back into this embedder."""
        ...


_E = TypeVar("_E")
_REGISTRY: dict[str, Callable[..., Any]] = {}


def register(kind: str) -> Callable[[type[_E]], type[_E]]:
    """Class decorator: ``from_config`` rebuilds configs whose ``kind`` is ``kind`` through
    the class's own ``from_config(config, state)``."""

    def add(cls: type[_E]) -> type[_E]:
        _REGISTRY[kind] = cls.from_config  # type: ignore[attr-defined]
        return cls

    return add


def register_lazy(kind: str, module: str, cls_name: str) -> None:
    """Like ``register``, for a class in ``module`` that is imported only when a config of
    ``kind`` is restored (its dependencies may be heavy or not installed)."""

    def restore(config: Mapping[str, Any], state: Mapping[str, np.ndarray] | None) -> Any:
        import importlib

        return getattr(importlib.import_module(module), cls_name).from_config(config, state)

    _REGISTRY.setdefault(kind, restore)


def from_config(
    config: Mapping[str, Any], state: Mapping[str, np.ndarray] | None = None
) -> Embedder:
    """The embedder described by ``config`` (as returned by ``Embedder.config()``), restored
    with ``state`` (``embedder.state()``) for fitted kinds such as TF-IDF."""
    kind = config.get("kind")
    if kind not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise InputError(f"unknown embedder kind {kind!r} in config; known kinds: {known}")
    embedder: Embedder = _REGISTRY[kind](config, state)
    return embedder


def check_version(config: Mapping[str, Any], kind: str, version: int) -> None:
    """InputError unless ``config`` is for ``kind`` at ``version``."""
    if config.get("kind") != kind or config.get("version") != version:
        raise InputError(
            f"embedder config {dict(config)!r} is not {kind} version {version}; "
            "rebuild the index with this docqa version"
        )


def token_settings_of(config: Mapping[str, Any]) -> TokenSettings:
    """The ``TokenSettings`` recorded in ``config``."""
    try:
        return TokenSettings.from_config(config)
    except (KeyError, TypeError) as exc:
        raise InputError(
            f"embedder config {dict(config)!r} lacks valid tokenizer settings "
            f"({exc}); rebuild the index"
        ) from exc
