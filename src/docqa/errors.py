"""The one exception tree of docqa. Every message names the thing at fault and what to do.

::

    DocqaError
    ├── InputError (also ValueError)        bad file, bad argument, empty folder
    │   ├── InputTypeError (also TypeError) an argument of the wrong type (``dim=1.5``)
    │   └── NotFitted (also AttributeError) a fitted embedder (TF-IDF) used before fit
    ├── DimensionMismatch (also ValueError) a query or matrix of the wrong width
    ├── IndexStoreError                     the index directory
    │   ├── IndexNotFound                   no index where one was asked for
    │   ├── IndexCorrupt                    a file missing, truncated, unparsable or mismatched
    │   ├── IndexVersionError               written by an unknown format version
    │   ├── IndexBusy                       another build holds the index's lock
    │   └── EmbedderMismatch                the query embedder differs from the recorded one
    ├── StoreError                          a database store (pgvector) refused or failed
    │   └── StoreUnavailable                cannot connect, credentials refused, connection lost
    └── ModelError                          a model backend failed
        ├── ModelConfigError                missing key, model name or setting (before any call)
        ├── ModelAuthError                  the backend refused the credentials (401/403)
        ├── ModelRateLimited                429 after the bounded retries
        ├── ModelTimeout                    no answer in time
        └── ModelStreamBroken               the stream ended early; partial text is not an answer

The CLI maps every ``DocqaError`` to exit code 2 and one line.
"""

from __future__ import annotations

import sys
from typing import Any


class DocqaError(Exception):
    """Base class of every error docqa raises on purpose."""


class InputError(DocqaError, ValueError):
    """A bad file or argument given by the user."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type: both an ``InputError`` and a ``TypeError``, so either
    ``except`` catches it (see ``docqa._checks``)."""


class NotFitted(InputError, AttributeError):
    """A fitted component (the TF-IDF embedder) was used before ``fit`` or a restore."""


class DimensionMismatch(DocqaError, ValueError):
    """Arrays whose widths do not agree (a query against an index of another dimension)."""


class IndexStoreError(DocqaError):
    """Something is wrong with an index directory."""


class IndexNotFound(IndexStoreError):
    """No index exists at the given path."""


class IndexCorrupt(IndexStoreError):
    """An index file is missing, truncated, unparsable or fails its checksum."""


class IndexVersionError(IndexStoreError):
    """The index was written by a format version this docqa cannot read."""


class IndexBusy(IndexStoreError):
    """Another process is building the same index (it holds the build lock)."""


class EmbedderMismatch(IndexStoreError):
    """The query embedder is not the one the index was built with."""


class StoreError(DocqaError):
    """A database store refused a statement or lacks what docqa needs (the pgvector extension)."""


class StoreUnavailable(StoreError):
    """The database cannot be reached, refused the credentials, or dropped the connection."""


class ModelError(DocqaError):
    """A model backend failed."""


class ModelConfigError(ModelError):
    """A model backend is missing configuration (key, model name, max tokens)."""


class ModelAuthError(ModelError):
    """The backend refused the credentials."""


class ModelRateLimited(ModelError):
    """The backend kept answering 429 after the bounded retries."""


class ModelTimeout(ModelError):
    """The backend did not answer in time."""


class ModelStreamBroken(ModelError):
    """The stream ended before the backend said it was complete."""


__all__ = [
    "DimensionMismatch",
    "DocqaError",
    "EmbedderMismatch",
    "IndexBusy",
    "IndexCorrupt",
    "IndexNotFound",
    "IndexStoreError",
    "IndexVersionError",
    "InputError",
    "ModelAuthError",
    "ModelConfigError",
    "ModelError",
    "ModelRateLimited",
    "ModelStreamBroken",
    "ModelTimeout",
    "NotFitted",
    "StoreError",
    "StoreUnavailable",
]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM, as docqa's commands raise them (``docqa.cli.main.entry``, ``docqa
    watch``); caught wherever ``KeyboardInterrupt`` is. A subclass on purpose: CPython marks a
    bare ``KeyboardInterrupt`` that passes through source run by ``exec`` (the code dataclasses,
    namedtuples and numba generate) as unhandled, and the process then ends by SIGINT at exit
    even though docqa caught it and returned 0 or 130. Its check is for the exact type."""


_ASKED: set[int] = set()  # the signals raise_interrupted met since clear_interrupted


def raise_interrupted(signum: int, frame: object) -> None:
    """A signal handler: note the stop, then raise :class:`Interrupted`.

    The note outlives the raise. CPython runs a handler at the next bytecode of the main
    thread, which may be inside a weakref callback or a ``__del__`` (an import's module lock
    has one); an exception raised there is printed as "Exception ignored" and dropped, and the
    command would go on. So the places a stop must reach also call :func:`check_interrupted`:
    an index about to land (``index.files.install``), each turn of ``docqa watch``, the wait of
    ``docqa store local``."""
    _ASKED.add(signum)
    raise Interrupted


def check_interrupted() -> None:
    """Raise :class:`Interrupted` when :func:`raise_interrupted` has met a signal whose raise
    may have been dropped (see there); a no-op in a program that never installed it."""
    if _ASKED:
        raise Interrupted


def quiet_dropped_stops() -> None:
    """Keep CPython from printing "Exception ignored ... Traceback" for an :class:`Interrupted`
    it dropped (see :func:`raise_interrupted`): the stop is noted, and raised again by
    :func:`check_interrupted`. Every other dropped exception is printed as before. For a
    command's process (``docqa.cli.main.entry``): it changes ``sys.unraisablehook``."""
    printing = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if not (_ASKED and isinstance(unraisable.exc_value, Interrupted)):
            printing(unraisable)

    sys.unraisablehook = hook


def clear_interrupted() -> None:
    """Forget the signals met so far: for the code that installs the handler, once it has
    handled the stop they asked for (a program may run many commands)."""
    _ASKED.clear()
