import pytest

from docqa.eval import Question, evaluate
from docqa.types import Hit


class ScriptedRetriever:
    """Returns fixed section rankings per question (the harness only reads sections)."""

    def __init__(self, rankings):
        self.rankings = rankings
        self.asked = []

    def search(self, question, k, *, mask=None):
        self.asked.append((question, k))
        return [
            Hit(row=i, id=f"{s}-c", section=s, score=1.0 / (i + 1))
            for i, s in enumerate(self.rankings.get(question, [])[:k])
        ]


QUESTIONS = [
    Question("q1", "one", ("a#x",), kind="lexical"),
    Question("q2", "two", ("b#y",), kind="paraphrase"),
    Question("q3", "three", (), kind="unanswerable"),
    Question("q4", "four", (), kind="unanswerable"),
]


def test_figures_per_mode_side_by_side():
    good = ScriptedRetriever({"one": ["a#x"], "two": ["z#z", "b#y"], "three": []})
    bad = ScriptedRetriever({"one": ["q#q"] * 12, "three": ["a#x"], "four": ["a#x"]})
    report = evaluate(QUESTIONS, {"good": good, "bad": bad}, rounds=100)
    data = report.to_json()
    assert data["questions"] == 4
    g, b = data["modes"]["good"], data["modes"]["bad"]
    assert (g["recall@1"], g["recall@3"], g["mrr@10"]) == (0.5, 1.0, 0.75)
    assert g["recall@5_by_kind"] == {"lexical": 1.0, "paraphrase": 1.0}
    # q3 and q4 got nothing from "good": the guard refused both; q2 was not wrongly refused
    assert g["refused_unanswerable"] == 1.0 and g["refused_answerable"] == 0.0
    assert (b["recall@10"], b["mrr@10"]) == (0.0, 0.0)
    assert b["refused_unanswerable"] == 0.0 and b["refused_answerable"] == 0.5
    low, high = g["intervals"]["recall@1"]
    assert 0.0 <= low <= 0.5 <= high <= 1.0
    assert all(k == 10 for _, k in good.asked)


def test_custom_ks_set_depth_and_validation():
    r = ScriptedRetriever({"one": ["x", "y", "a#x"]})
    data = evaluate(QUESTIONS[:1], {"m": r}, ks=(1, 3), rounds=10).to_json()
    assert set(data["modes"]["m"]) >= {"recall@1", "recall@3", "mrr@3"}
    assert data["modes"]["m"]["refused_unanswerable"] is None
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        evaluate(QUESTIONS, {"m": r}, ks=(0,))
    with pytest.raises(ValueError, match="no questions"):
        evaluate([], {"m": r})
