"""Argument checks shared by the public functions, and the Numba thread limit.

One rule, one message shape: ``"<what> must be an int >= 1, got 0"``. Every failure raises
``InputError``; a value of the wrong type raises ``InputTypeError``, which is an ``InputError``
*and* a ``TypeError``. ``InputError`` is a ``ValueError`` on purpose: callers' ``except
ValueError`` (the standard library's convention for a bad argument value) keeps working, and
``except DocqaError`` catches every mistake docqa reports.

Numba is imported only when a thread count is actually checked or set (``import docqa`` must
not load it).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from contextlib import contextmanager

from docqa.errors import InputError, InputTypeError

MAX_QUESTION_CHARS = 10_000
"""The longest question docqa takes, in characters (a long paragraph with a pasted traceback
fits; ``docqa serve``'s ``--max-question`` defaults to 2000 and may not exceed it). Every step
below it is linear in the question's length; the limit keeps one question's work bounded."""
MODES = ("dense", "keyword", "hybrid")


def whole(value: object, what: str, *, minimum: int = 0, maximum: int | None = None) -> int:
    """``value`` as a Python int in ``[minimum, maximum]``.

    Accepts ``int`` and NumPy integers; ``bool``, floats and strings are ``InputTypeError``.
    """
    if isinstance(value, bool):
        raise InputTypeError(f"{what} must be an int, got {value!r}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InputTypeError(f"{what} must be an int, got {value!r}") from None
    if maximum is not None and not minimum <= number <= maximum:
        raise InputError(f"{what} must be an int in [{minimum}, {maximum}], got {number}")
    if number < minimum:
        raise InputError(f"{what} must be an int >= {minimum}, got {number}")
    return int(number)


def positive(value: object, what: str) -> int:
    """``value`` as an int >= 1 (see ``whole``)."""
    return whole(value, what, minimum=1)


def question(value: object, what: str = "question") -> str:
    """``value`` as a question: a ``str`` (else ``InputTypeError``) of at most
    ``MAX_QUESTION_CHARS`` characters (else ``InputError``). A blank one is allowed here (it
    finds nothing); the CLI and the service refuse it as a usage error."""
    if not isinstance(value, str):
        raise InputTypeError(f"{what} must be a str, got {type(value).__name__}")
    if len(value) > MAX_QUESTION_CHARS:
        raise InputError(
            f"{what} is {len(value):,} characters, more than the limit of "
            f"{MAX_QUESTION_CHARS:,}; shorten it"
        )
    return value


def questions(values: object) -> list[str]:
    """``values`` as a list of questions (each checked by :func:`question`); a bare str is
    ``InputTypeError`` (wrap it in a list)."""
    if isinstance(values, (str, bytes)):
        raise InputTypeError(
            f"questions must be a sequence of str, got one {type(values).__name__}; "
            "wrap it in a list"
        )
    try:
        out = list(values)  # type: ignore[call-overload]
    except TypeError:
        raise InputTypeError(
            f"questions must be a sequence of str, got {type(values).__name__}"
        ) from None
    return [question(q, f"question {i}") for i, q in enumerate(out)]


def mode(value: object) -> str:
    """``value`` as a retrieval mode, one of ``MODES`` (else ``InputError``)."""
    if not isinstance(value, str) or value not in MODES:
        raise InputError(f"unknown mode {value!r}; choose one of {', '.join(MODES)}")
    return value


def numba_threads(n_threads: object) -> int | None:
    """A thread count for Numba's pool: None stays None (use the current setting), else an int
    in ``[1, NUMBA_NUM_THREADS]``."""
    if n_threads is None:
        return None
    import numba

    top = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return whole(n_threads, "n_threads", minimum=1, maximum=top)


@contextmanager
def thread_limit(n_threads: int | None) -> Iterator[int]:
    """Run with ``n_threads`` Numba threads (None: the current setting) and restore the
    previous setting afterwards, whatever happens; yields the count in force."""
    import numba

    before = int(numba.get_num_threads())
    if n_threads is None:
        yield before
        return
    numba.set_num_threads(n_threads)
    try:
        yield n_threads
    finally:
        numba.set_num_threads(before)
