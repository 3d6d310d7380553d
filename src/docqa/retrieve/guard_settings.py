"""The guard's settings, and the one function that decides which settings are in force.

An index may store a guard point (``docqa calibrate`` writes it to the manifest's
``meta["guard"]``); a caller may change it (``--min-coverage``, ``--min-score``,
``--drift-model``), replace it, or turn the guard off. :func:`resolve_guard` turns those into
the :class:`GuardConfig` in force (None: no guard) for every caller: the command line's
``search``, ``ask`` and ``eval``, ``docqa serve``, ``Collection`` and ``ShardedCollection``,
and the PostgreSQL store (whose point ``docqa calibrate --store`` keeps in the collection's
row).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, TypeAlias, overload

from docqa.errors import IndexCorrupt, InputError

RECALIBRATE = (
    "remove the index folder, rebuild it with `docqa index FOLDER --index DIR` and re-run "
    "`docqa calibrate QUESTIONS --index DIR`"
)
"""What to do about guard settings stored in an index that do not read (``docqa calibrate``
opens the index, so it cannot replace them itself; an update that finds nothing changed keeps
the manifest as it is)."""
DEFAULT_MIN_COVERAGE = 0.15
LARGE_VOCABULARY = 2000
"""The collection size (distinct terms) from which the unknown-share rule was measured to help
where it helps: collections this large hold most everyday words, so a question word they never
use is likely foreign to them (``docs/notes/2026-12-guard.md``)."""
DRIFT_MODELS = ("auto", "embedder", "minilm")
"""Which model judges the drift check (``GuardConfig.drift_model``)."""


@dataclass(frozen=True, slots=True)
class GuardConfig:
    """Settings of the guard; the defaults are the measured ones (``docs/notes/2026-12-guard.md``).

    - ``min_coverage``: the share of the question's IDF mass the best passage holding every
      name must hold, in [0, 1].
    - ``names``: a passage must hold, whole, every word of the question shaped like a name.
    - ``beyond_names``: when the rest of the question weighs at least as much as its names,
      the passage holding them must also hold some of the rest.
    - ``unknown_from``: in a collection of at least this many distinct terms, a question word
      the collection never uses counts as a name (None: never).
    - ``unknown_share_from``: in a collection of at least this many distinct terms, the passage
      must also hold the share of the question's IDF mass that lies in words the collection
      never uses (None: never; :data:`LARGE_VOCABULARY` is the measured size).
    - ``keyword_evidence``: judge the hits together with the keyword side's best ``k``.
    - ``min_cosine``: the best dense score must reach it (None: no such check).
    - ``min_keyword``: the best BM25 score over the question's maximum attainable score must
      reach it (None: no such check).
    - ``drift``: a passage must not be one a word the collection never uses pulls the question
      away from (:mod:`docqa.retrieve.drift`).
    - ``max_drift``: how much closer (cosine) counts as drifting; None: the judging model's
      measured threshold.
    - ``drift_model``: which model judges drift, one of :data:`DRIFT_MODELS`: ``"auto"`` the
      collection's embedder when it has a threshold, else MiniLM when installed;
      ``"embedder"`` the collection's embedder only; ``"minilm"`` MiniLM (an error when it is
      not installed).
    """

    min_coverage: float = DEFAULT_MIN_COVERAGE
    names: bool = True
    beyond_names: bool = True
    unknown_from: int | None = None
    unknown_share_from: int | None = None
    keyword_evidence: bool = True
    min_cosine: float | None = None
    min_keyword: float | None = None
    drift: bool = True
    max_drift: float | None = None
    drift_model: str = "auto"

    def __post_init__(self) -> None:
        if not (isinstance(self.min_coverage, (int, float)) and 0.0 <= self.min_coverage <= 1.0):
            raise InputError(f"guard min_coverage must be in [0, 1], got {self.min_coverage!r}")
        for flag in ("names", "beyond_names", "keyword_evidence", "drift"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(f"guard {flag} must be True or False, got {getattr(self, flag)!r}")
        for name in ("unknown_from", "unknown_share_from"):
            u = getattr(self, name)
            if u is not None and (isinstance(u, bool) or not isinstance(u, int) or u < 0):
                raise InputError(f"guard {name} must be an int >= 0 or None, got {u!r}")
        for name in ("min_cosine", "min_keyword"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)):
                raise InputError(f"guard {name} must be a finite number or None, got {value!r}")
        self._check_drift()

    def _check_drift(self) -> None:
        d = self.max_drift
        if d is not None and (
            isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 < d <= 2
        ):
            raise InputError(f"guard max_drift must be in (0, 2] or None, got {d!r}")
        if self.drift_model not in DRIFT_MODELS:
            raise InputError(
                f"guard drift_model must be one of {', '.join(DRIFT_MODELS)}, "
                f"got {self.drift_model!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stored in the index manifest by ``docqa calibrate``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GuardConfig:
        """Inverse of ``to_dict``; unknown keys or bad values are ``IndexCorrupt``."""
        unknown = set(data) - FIELDS
        if unknown:
            raise IndexCorrupt(f"guard settings have unknown keys {sorted(unknown)}; {RECALIBRATE}")
        try:
            return cls(**data)
        except InputError as exc:
            raise IndexCorrupt(f"stored {exc}; {RECALIBRATE}") from None


FIELDS = frozenset(f.name for f in fields(GuardConfig))
GuardRequest: TypeAlias = "bool | GuardConfig | Mapping[str, Any]"
"""What a caller asks of the guard: True the stored point (else the defaults), False no guard,
a ``GuardConfig`` that config, a mapping the stored point with those fields changed
(:func:`guard_changes` makes one from command-line options)."""


@overload
def resolve_guard(
    stored: GuardConfig | Mapping[str, Any] | None,
    request: Literal[True] = ...,
    *,
    defaults: GuardConfig | None = ...,
) -> GuardConfig: ...
@overload
def resolve_guard(
    stored: GuardConfig | Mapping[str, Any] | None,
    request: GuardRequest,
    *,
    defaults: GuardConfig | None = ...,
) -> GuardConfig | None: ...
def resolve_guard(
    stored: GuardConfig | Mapping[str, Any] | None,
    request: GuardRequest = True,
    *,
    defaults: GuardConfig | None = None,
) -> GuardConfig | None:
    """The guard in force, None when ``request`` turns it off.

    ``stored``: the index's guard point, as the manifest holds it (``meta["guard"]``: a bad one
    is ``IndexCorrupt``) or already read; None when the index stores none, then ``defaults``
    (the measured ``GuardConfig()`` unless given) are the point. ``request``: see
    :data:`GuardRequest`; anything else, or a change naming no setting, is an ``InputError``.
    """
    if request is False:
        return None
    if isinstance(request, GuardConfig):
        return request
    if isinstance(stored, GuardConfig):
        point = stored
    elif stored is not None:
        point = GuardConfig.from_dict(stored)
    else:
        point = defaults if defaults is not None else GuardConfig()
    if request is True:
        return point
    if not isinstance(request, Mapping):
        raise InputError(
            "guard must be True, False or a GuardConfig (or a mapping of changes to its "
            f"settings), got {request!r}"
        )
    unknown = set(request) - FIELDS
    if unknown:
        raise InputError(f"guard changes name unknown settings {sorted(unknown)}")
    return replace(point, **request)


def guard_changes(
    *,
    min_coverage: float | None = None,
    min_score: float | None = None,
    drift_model: str | None = None,
    mode: str | None = None,
) -> dict[str, Any]:
    """The changes a caller's options make to the guard (None: an option not given).
    ``min_score`` is the score floor of each side ``mode`` searches: ``min_cosine`` for dense
    and hybrid, ``min_keyword`` for keyword and hybrid, both when ``mode`` is None (one guard
    for every mode, as ``docqa serve`` has)."""
    changes: dict[str, Any] = {}
    if min_coverage is not None:
        changes["min_coverage"] = min_coverage
    if drift_model is not None:
        changes["drift_model"] = drift_model
    if min_score is not None:
        if mode in (None, "dense", "hybrid"):
            changes["min_cosine"] = min_score
        if mode in (None, "keyword", "hybrid"):
            changes["min_keyword"] = min_score
    return changes
