import json

import pytest

from docqa.errors import InputError
from docqa.eval import load_questions


def write(tmp_path, lines):
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_loads_questions_with_optional_fields(tmp_path):
    path = write(
        tmp_path,
        [
            json.dumps(
                {
                    "id": "q1",
                    "question": "How long?",
                    "relevant": ["loans#loan-periods"],
                    "kind": "lexical",
                    "must_contain": ["21 days"],
                }
            ),
            "",
            json.dumps({"id": "q2", "question": "Do you sell cars?", "relevant": []}),
        ],
    )
    q1, q2 = load_questions(path)
    assert q1.relevant == ("loans#loan-periods",) and q1.kind == "lexical"
    assert q1.must_contain == ("21 days",) and q1.answerable
    assert q2.kind == "unlabelled" and not q2.answerable


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"q.jsonl:1: not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"question": "x", "relevant": []}), "'id' must be a non-empty string"),
        (json.dumps({"id": "a", "question": " ", "relevant": []}), "'question' must be"),
        (json.dumps({"id": "a", "question": "x"}), "'relevant' is missing"),
        (json.dumps({"id": "a", "question": "x", "relevant": "s#a"}), "list of strings"),
        (json.dumps({"id": "a", "question": "x", "relevant": [], "kind": 3}), "'kind'"),
    ],
)
def test_bad_lines_name_the_line_and_the_fault(tmp_path, line, message):
    with pytest.raises(InputError, match=message):
        load_questions(write(tmp_path, [line]))


def test_duplicate_ids_empty_missing_and_non_utf8_files(tmp_path):
    row = json.dumps({"id": "a", "question": "x", "relevant": []})
    with pytest.raises(InputError, match=r":2: duplicate question id 'a'"):
        load_questions(write(tmp_path, [row, row]))
    with pytest.raises(InputError, match="no questions found"):
        load_questions(write(tmp_path, ["", "  "]))
    with pytest.raises(InputError, match="no such questions file"):
        load_questions(tmp_path / "missing.jsonl")
    bad = tmp_path / "latin.jsonl"
    bad.write_bytes('{"id": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_questions(bad)


def test_golden_set_shape_q_alias_and_single_must_contain(tmp_path):
    path = write(
        tmp_path,
        [
            json.dumps({"id": "g1", "q": "How long is a loan?", "relevant": ["a#b"],
                        "must_contain": "30 days"}),
            json.dumps({"id": "g2", "question": "Fees?", "relevant": ["a#c"],
                        "must_contain": ["$1", "day"]}),
        ],
    )  # fmt: skip
    g1, g2 = load_questions(path)
    assert g1.question == "How long is a loan?" and g1.must_contain == ("30 days",)
    assert g2.must_contain == ("$1", "day")


@pytest.mark.parametrize("empty", ["", " ", [], [""], ["", " "]])
def test_an_empty_must_contain_sets_no_requirement(tmp_path, empty):
    path = write(
        tmp_path, [json.dumps({"id": "x", "q": "a?", "relevant": [], "must_contain": empty})]
    )
    (question,) = load_questions(path)
    assert question.must_contain == ()


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"id": "x", "q": "a?", "question": "b?", "relevant": []}, "not both"),
        ({"id": "x", "q": "", "relevant": []}, "'question' must be a non-empty string"),
        ({"id": "x", "q": 3, "relevant": []}, "'question' must be a non-empty string"),
        ({"id": "x", "q": "a?", "relevant": [], "must_contain": 5}, "list of strings"),
    ],
)
def test_golden_set_shape_errors_name_the_line(tmp_path, obj, message):
    path = write(tmp_path, [json.dumps(obj)])
    with pytest.raises(InputError, match=message) as err:
        load_questions(path)
    assert f"{path}:1" in str(err.value)


def test_unmatched_labels_are_each_named_once_in_order():
    from docqa.eval.questions import Question, unmatched_labels

    questions = [
        Question("1", "a?", ("x#a", "loans#p")),
        Question("2", "b?", ("loans#p", "y#b", "x#a")),
        Question("3", "c?", ()),
    ]
    assert unmatched_labels(questions, {"loans#p"}) == ["x#a", "y#b"]
    assert unmatched_labels(questions, {"loans#p", "x#a", "y#b"}) == []
