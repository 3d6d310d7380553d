"""The on-disk ONNX session cache: built once, reused, rebuilt when damaged, and never able
to change what a model computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper

from docqa.embed import onnx_cache


def _graph(scale: float) -> bytes:
    """y = x * scale + 1 over (n, 3) float32: small, and changes with ``scale``."""
    nodes = [
        helper.make_node("Mul", ["x", "s"], ["t"]),
        helper.make_node("Add", ["t", "one"], ["y"]),
    ]
    inits = [
        helper.make_tensor("s", TensorProto.FLOAT, [], [scale]),
        helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return bytes(model.SerializeToString())


class Builder:
    def __init__(self, scale: float) -> None:
        self.scale, self.calls = scale, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return _graph(self.scale)


def _run(session: object) -> np.ndarray:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    return session.run(None, {"x": x})[0]  # type: ignore[attr-defined, no-any-return]


def test_built_once_then_read_from_disk(tmp_path: Path) -> None:
    build = Builder(2.0)
    first = _run(onnx_cache.session("k1", build, 1, tmp_path))
    files = sorted(p.name for p in tmp_path.iterdir())
    assert build.calls == 1
    assert files[0] == "k1-ort" + ort.__version__ + "-" + onnx_cache._machine() + ".ort.onnx"
    assert files[1] == "k1.onnx" and len(files) == 2  # no temporary file left behind
    again = _run(onnx_cache.session("k1", build, 1, tmp_path))
    assert build.calls == 1
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, np.arange(6, dtype=np.float32).reshape(2, 3) * 2 + 1)


def test_another_key_never_meets_an_old_file(tmp_path: Path) -> None:
    _run(onnx_cache.session("k-a", Builder(2.0), 1, tmp_path))
    out = _run(onnx_cache.session("k-b", Builder(3.0), 1, tmp_path))
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3) * 3 + 1)


@pytest.mark.parametrize("damaged", ["optimized", "both"])
def test_a_damaged_file_is_rebuilt(tmp_path: Path, damaged: str) -> None:
    onnx_cache.session("k", Builder(2.0), 1, tmp_path)
    for path in tmp_path.iterdir():
        if damaged == "both" or path.name.endswith(".ort.onnx"):
            path.write_bytes(b"not a model")
    build = Builder(2.0)
    out = _run(onnx_cache.session("k", build, 1, tmp_path))
    assert build.calls == 1
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3) * 2 + 1)
    repaired = _run(onnx_cache.session("k", Builder(9.0), 1, tmp_path))  # not built again
    np.testing.assert_array_equal(repaired, out)


def test_an_unwritable_folder_costs_only_time(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    build = Builder(2.0)
    out = _run(onnx_cache.session("k", build, 1, blocked / "models"))
    assert build.calls == 1
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3) * 2 + 1)


def test_weights_digest_is_remembered_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    weights = tmp_path / "w.bin"
    weights.write_bytes(b"first")
    assert onnx_cache.weights_sha256(weights, tmp_path) == hashlib.sha256(b"first").hexdigest()
    calls: list[Path] = []
    from docqa.index import checksum

    real = checksum.file_sha256
    monkeypatch.setattr(checksum, "file_sha256", lambda p: calls.append(p) or real(p))
    assert onnx_cache.weights_sha256(weights, tmp_path) == hashlib.sha256(b"first").hexdigest()
    assert calls == []
    weights.write_bytes(b"second, longer")
    assert (
        onnx_cache.weights_sha256(weights, tmp_path)
        == hashlib.sha256(b"second, longer").hexdigest()
    )
    assert calls == [weights]
    (tmp_path / "sha256.json").write_text("{not json")
    assert (
        onnx_cache.weights_sha256(weights, tmp_path)
        == hashlib.sha256(b"second, longer").hexdigest()
    )
