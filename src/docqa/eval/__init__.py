"""The eval harness: labelled questions in, recall@k / MRR / guard figures out."""

from docqa.eval.harness import EvalReport, Figure, ModeReport, QuestionResult, evaluate
from docqa.eval.metrics import bootstrap_interval, recall_at, reciprocal_rank
from docqa.eval.questions import Question, load_questions, parse_question

__all__ = [
    "EvalReport",
    "Figure",
    "ModeReport",
    "Question",
    "QuestionResult",
    "bootstrap_interval",
    "evaluate",
    "load_questions",
    "parse_question",
    "recall_at",
    "reciprocal_rank",
]
