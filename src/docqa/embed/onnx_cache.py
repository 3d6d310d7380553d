"""ONNX Runtime sessions over graphs docqa builds, kept on disk so a new process starts fast.

Building a BERT graph from its weights (``docqa.embed.bert_onnx``) imports ``onnx`` and takes
about a second, and ONNX Runtime's graph optimization another quarter: a one-off ``docqa ask``
would pay both on every question. ``session(key, build, threads)`` keeps two files under
``<cache>/models/`` (the folder of the embedding cache, ``docqa.embed.cache``):

* ``<key>.onnx``: the graph as built (portable; written once, atomically);
* ``<key>-<runtime>.ort.onnx``: the same graph as ONNX Runtime optimized it on this machine,
  named by the runtime's version and the CPU's instruction-set flags (the runtime warns that an
  optimized graph may hold hardware-specific kernels), loaded with optimization off.

``key`` must name everything the graph depends on: the callers put in the weights' sha256,
the precision and a digest of the builder's source, so an edited builder or other weights
never meet an old file. A file that cannot be read or written (read-only cache, full disk, a
damaged file) costs only the time: the graph is built in memory and used from there.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docqa.embed.cache import default_cache_dir

PROVIDERS = ["CPUExecutionProvider"]


def source_digest(*modules: Any) -> str:
    """A short sha256 of the given modules' source files (what a graph builder is made of)."""
    sha = hashlib.sha256()
    for module in modules:
        sha.update(Path(module.__file__).read_bytes())
    return sha.hexdigest()[:16]


def weights_sha256(path: Path, folder: Path | None = None) -> str:
    """sha256 of a weights file, remembered in ``folder`` (default ``<cache>/models``) under
    the file's path, size, inode and modification time, so each process need not read ~90 MB
    again; a file that changed in any of those is hashed afresh."""
    import json

    from docqa.index.checksum import file_sha256

    st = path.stat()
    stamp = [st.st_size, st.st_ino, st.st_mtime_ns]
    memo_file = (folder if folder is not None else default_cache_dir() / "models") / "sha256.json"
    try:
        memo = json.loads(memo_file.read_text(encoding="utf-8"))
        known = memo.get(str(path.resolve()))
        if isinstance(known, list) and known[:3] == stamp and isinstance(known[3], str):
            return known[3]
    except (OSError, ValueError, AttributeError, IndexError):
        memo = {}
    digest = file_sha256(path)
    memo = memo if isinstance(memo, dict) else {}
    memo[str(path.resolve())] = [*stamp, digest]
    with contextlib.suppress(OSError):
        _write_atomically(memo_file, json.dumps(memo, sort_keys=True).encode("utf-8"))
    return digest


def _machine() -> str:
    """A short digest of the CPU's instruction-set flags (Linux), else of its name."""
    flags = platform.machine() + platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = next((line for line in f if line.startswith("flags")), flags)
    except OSError:
        pass
    return hashlib.sha256(flags.encode()).hexdigest()[:12]


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _options(ort: Any, threads: int, *, optimize: bool) -> Any:
    options = ort.SessionOptions()
    level = ort.GraphOptimizationLevel
    options.graph_optimization_level = level.ORT_ENABLE_ALL if optimize else level.ORT_DISABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # the runtime's "optimized graph is hardware specific" warning
    return options


def _optimized(ort: Any, data: bytes, target: Path, threads: int) -> Any:
    """A session over ``data`` optimized by the runtime, which also writes the optimized graph
    to ``target`` (under a temporary name, renamed when whole; skipped if it cannot write)."""
    options = _options(ort, threads, optimize=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".tmp")
        os.close(fd)
    except OSError:
        return ort.InferenceSession(data, options, providers=PROVIDERS)
    try:
        options.optimized_model_filepath = tmp
        made = ort.InferenceSession(data, options, providers=PROVIDERS)
        with contextlib.suppress(OSError):
            os.replace(tmp, target)
        return made
    finally:
        Path(tmp).unlink(missing_ok=True)


def session(key: str, build: Callable[[], bytes], threads: int, folder: Path | None = None) -> Any:
    """An ``onnxruntime.InferenceSession`` (CPU) over the graph ``build()`` returns, from the
    files of ``key`` under ``folder`` (default ``<cache>/models``) when they exist."""
    import onnxruntime as ort

    folder = folder if folder is not None else default_cache_dir() / "models"
    graph = folder / f"{key}.onnx"
    optimized = folder / f"{key}-ort{ort.__version__}-{_machine()}.ort.onnx"
    try:  # a damaged or unreadable file is rebuilt from the weights
        if optimized.is_file():
            options = _options(ort, threads, optimize=False)
            return ort.InferenceSession(str(optimized), options, providers=PROVIDERS)
        if graph.is_file():
            return _optimized(ort, graph.read_bytes(), optimized, threads)
    except Exception:  # noqa: BLE001, S110 (the runtime's own exception types vary)
        pass
    data = build()
    try:
        _write_atomically(graph, data)
    except OSError:
        return ort.InferenceSession(data, _options(ort, threads, optimize=True), PROVIDERS)
    return _optimized(ort, data, optimized, threads)
