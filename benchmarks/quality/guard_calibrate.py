"""``docqa calibrate`` on each guard corpus: the chosen setting, in-sample and held out.

The corpora are ``guard_transfer.py``'s (each with answerable and unanswerable labelled
questions). For each one the index is built with the defaults and calibrated as the command
does (hybrid mode, k = 5, keep >= 0.9): the chosen setting's refused / kept shares on the
questions it was fitted on, and the 5-fold held-out estimate (each fold judged by the setting
fitted on the other folds). Run:

    .venv/bin/python benchmarks/quality/guard_calibrate.py [--corpora library,pydocs,...] \\
        [--mode hybrid]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from guard_transfer import CORPORA, open_corpus

from docqa.collection import MODES
from docqa.eval.calibrate import calibrate
from docqa.retrieve.guard import GuardConfig


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", default=CORPORA)
    parser.add_argument("--mode", choices=MODES, default="hybrid")
    args = parser.parse_args()
    print(f"mode {args.mode}, k=5, min_kept 0.9; cells: refused unanswerable / kept answerable")
    print("| corpus | questions | chosen | in-sample | held out (5 folds) |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.corpora.split(","):
            collection, questions = open_corpus(name, Path(tmp))
            fit = calibrate(
                questions,
                collection.retriever(args.mode, guard=collection.guard),
                collection.bm25,
                base=collection.guard,
            )
            c = fit.chosen.config
            chosen = f"min_coverage {c.min_coverage}" + (
                ", unknown words as names" if c.unknown_from is not None else ""
            )
            if c.unknown_share_from != GuardConfig().unknown_share_from:
                chosen += ", unknown share at any size"
            held = fit.held_out
            out = "-" if held is None else f"{held.refused:.2f} / {held.kept:.2f}"
            print(
                f"| {name} | {fit.answerable} + {fit.unanswerable} | {chosen} | "
                f"{fit.chosen.refused:.2f} / {fit.chosen.kept:.2f} | {out} |"
            )


if __name__ == "__main__":
    main()
