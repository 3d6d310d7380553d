"""``resolve_guard``: the one place the guard in force is decided; ``guard_changes``: what
command-line options change; and the named rules one by one."""

from __future__ import annotations

import numpy as np
import pytest

from docqa.errors import IndexCorrupt, InputError
from docqa.keyword import BM25Index
from docqa.retrieve.guard_rules import Asked, beyond_names_rule, names_rule
from docqa.retrieve.guard_settings import GuardConfig, guard_changes, resolve_guard
from docqa.types import Chunk, Hit

CALIBRATED = GuardConfig(min_coverage=0.4, unknown_from=0)


@pytest.mark.parametrize("stored", [CALIBRATED, CALIBRATED.to_dict()])
def test_the_stored_point_is_the_guard_unless_the_caller_asks_otherwise(
    stored: GuardConfig | dict[str, object],
) -> None:
    assert resolve_guard(stored) == CALIBRATED
    assert resolve_guard(stored, True) == CALIBRATED
    assert resolve_guard(stored, False) is None
    assert resolve_guard(stored, GuardConfig(names=False)) == GuardConfig(names=False)
    changed = resolve_guard(stored, {"min_cosine": 0.2, "drift_model": "embedder"})
    assert changed == GuardConfig(
        min_coverage=0.4, unknown_from=0, min_cosine=0.2, drift_model="embedder"
    )


def test_without_a_stored_point_the_defaults_are_changed() -> None:
    assert resolve_guard(None) == GuardConfig()
    assert resolve_guard(None, {"min_coverage": 0.3}) == GuardConfig(min_coverage=0.3)
    loose = GuardConfig(min_coverage=0.0)
    assert resolve_guard(None, {"names": False}, defaults=loose) == GuardConfig(
        min_coverage=0.0, names=False
    )
    assert resolve_guard({}, defaults=loose) == GuardConfig()  # a stored point is stored whole


def test_bad_requests_and_stored_points_say_what_is_wrong() -> None:
    with pytest.raises(InputError, match="guard must be True, False or a GuardConfig"):
        resolve_guard(None, 0.5)  # type: ignore[call-overload]
    with pytest.raises(InputError, match=r"unknown settings \['min_covrage'\]"):
        resolve_guard(None, {"min_covrage": 0.3})
    with pytest.raises(InputError, match="min_coverage must be in"):
        resolve_guard(None, {"min_coverage": 3})
    with pytest.raises(IndexCorrupt, match="docqa calibrate"):
        resolve_guard({"min_coverage": "high"})


@pytest.mark.parametrize(
    ("mode", "floors"),
    [
        ("dense", {"min_cosine": 0.2}),
        ("keyword", {"min_keyword": 0.2}),
        ("hybrid", {"min_cosine": 0.2, "min_keyword": 0.2}),
        (None, {"min_cosine": 0.2, "min_keyword": 0.2}),
    ],
)
def test_min_score_is_the_floor_of_each_side_the_mode_searches(
    mode: str | None, floors: dict[str, float]
) -> None:
    assert guard_changes(min_score=0.2, mode=mode) == floors
    assert guard_changes(mode=mode) == {}
    assert guard_changes(min_coverage=0.3, drift_model="minilm", mode=mode) == {
        "min_coverage": 0.3,
        "drift_model": "minilm",
    }


def chunk(i: int, text: str) -> Chunk:
    return Chunk(f"d#s{i}-p1", f"d#s{i}", ("D",), "d.md", i, 1, 1, text, str(i))


TEXTS = [
    "Django renders templates with a context of variables.",
    "Flask routes requests to view functions.",
    "Templates in Jinja hold blocks that child templates override.",
]
CHUNKS = [chunk(i, t) for i, t in enumerate(TEXTS)]
HITS = [Hit(c.position, c.id, c.section, 1.0, {}, c) for c in CHUNKS]


@pytest.fixture(scope="module")
def bm25() -> BM25Index:
    return BM25Index.from_texts(TEXTS)


def asked(question: str, bm25: BM25Index, config: GuardConfig | None = None) -> Asked:
    found = Asked.of(question, HITS, config or GuardConfig(), bm25)
    assert found is not None
    return found


def test_the_names_rule_judges_each_passage(bm25: BM25Index) -> None:
    good, line = names_rule(asked("How does Django render templates?", bm25))
    assert good.tolist() == [True, False, False] and line == "names: 1 of 3 passages hold Django"
    good, line = names_rule(asked("How does Rails render templates?", bm25))
    assert not good.any() and line == "names: Rails (not in the collection)"
    good, line = names_rule(asked("How do child templates override blocks?", bm25))
    assert good.all() and line == "names: the question names nothing"


def test_the_beyond_names_rule_asks_for_the_rest_of_the_question(bm25: BM25Index) -> None:
    good, _ = beyond_names_rule(asked("How does Django route requests?", bm25))
    assert good.tolist() == [False, True, False]  # only Flask's passage holds "route requests"
    everything = beyond_names_rule(asked("Django?", bm25))[0]
    assert np.array_equal(everything, np.ones(3, dtype=np.bool_))
