"""The ``Embedder`` protocol, the shared tokenizer settings, and the config registry.

An index records ``embedder.config()`` (a JSON-able dict with ``kind`` and ``version``) and,
for fitted embedders, ``embedder.state()`` (a dict of NumPy arrays it can store and
memory-map); ``from_config(config, state)`` rebuilds the very same embedder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from docqa import _tokenize
from docqa.errors import InputError
from docqa.text.stopwords import ENGLISH_STOP_WORDS
from docqa.text.tokenize import compiled_stop_words


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

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray: ...

    def config(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class TokenSettings:
    """How an embedder tokenizes: ``stop_words`` is False, True (the English list) or a
    frozenset of words to drop; ``fold_plurals`` applies the S-stemmer."""

    stop_words: bool | frozenset[str] = True
    fold_plurals: bool = True

    @classmethod
    def make(cls, stop_words: bool | Iterable[str], fold_plurals: bool) -> TokenSettings:
        """Normalise user input (a custom list equal to the English one becomes True)."""
        if not isinstance(stop_words, bool):
            if isinstance(stop_words, str):
                raise TypeError("stop_words must be a bool or a collection of words, not a str")
            words = frozenset(stop_words)
            if not all(isinstance(w, str) and w for w in words):
                raise TypeError("stop_words must hold non-empty str words")
            stop_words = True if words == ENGLISH_STOP_WORDS else words
        return cls(stop_words=stop_words, fold_plurals=bool(fold_plurals))

    def compiled(self) -> _tokenize.Vocab | None:
        """The native stop-word set (cached per distinct set), or None for no stop words."""
        if self.stop_words is False:
            return None
        if self.stop_words is True:
            return compiled_stop_words()
        return compiled_stop_words(self.stop_words)

    def as_kwargs(self) -> dict[str, Any]:
        """``stop_words`` / ``fold_plurals`` keywords for ``docqa.text`` functions."""
        return {"stop_words": self.stop_words, "fold_plurals": self.fold_plurals}

    def config(self) -> dict[str, Any]:
        """JSON-able form: ``stop_words`` is a bool or a sorted list of words."""
        stops = self.stop_words
        return {
            "stop_words": stops if isinstance(stops, bool) else sorted(stops),
            "fold_plurals": self.fold_plurals,
        }

    def name_suffix(self) -> str:
        """``""`` for the defaults, else e.g. ``"-nostop-nofold"`` or ``"-stop1a2b3c4d"``."""
        suffix = ""
        if self.stop_words is False:
            suffix += "-nostop"
        elif self.stop_words is not True:
            digest = hashlib.sha256("\n".join(sorted(self.stop_words)).encode("utf-8"))
            suffix += "-stop" + digest.hexdigest()[:8]
        if not self.fold_plurals:
            suffix += "-nofold"
        return suffix


def check_texts(texts: Sequence[str]) -> _tokenize.Batch:
    """The native batch of ``texts``; TypeError naming the index of a non-str item."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(
            f"texts must be a sequence of str, got a single {type(texts).__name__}; "
            "wrap it in a list"
        )
    return _tokenize.Batch(texts)


def check_positive_int(value: object, what: str) -> int:
    """``value`` as an int >= 1, else InputError (a ValueError) / TypeError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if value < 1:
        raise InputError(f"{what} must be >= 1, got {value}")
    return int(value)


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
        return TokenSettings.make(config["stop_words"], config["fold_plurals"])
    except (KeyError, TypeError) as exc:
        raise InputError(
            f"embedder config {dict(config)!r} lacks valid tokenizer settings "
            f"({exc}); rebuild the index"
        ) from exc
