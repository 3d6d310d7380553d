"""A real `docqa serve` on 127.0.0.1: SSE framing, auth, limits, disconnects, hot reload and
graceful shutdown. Every wait is bounded."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from docqa_cli import clean_env
from service_helpers import (
    KEYS,
    UNANSWERABLE,
    Server,
    Stream,
    TwoVersions,
    bearer,
    parse_sse,
    serving,
)
from slow_model import SlowModel

ACME, GLOBEX, BOTH, ADMIN = KEYS
FINE = "How much is the overdue fine for a book?"
REPLY = "Ten cents a day [acme/fines#overdue-fines]."
MODEL_ENV = {"OPENAI_API_KEY": "openai-test-key-not-a-secret", "DOCQA_MODEL": "slow",
             "DOCQA_MAX_TOKENS": "50"}  # fmt: skip


@pytest.fixture(scope="module")
def keyed(tenant_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("keyed") / "serve.log"
    with serving(
        "--index", str(tenant_index), "--backend", "fake", "--fake-reply", REPLY, log=log
    ) as s:
        yield s


def test_sse_framing_over_http(keyed: Server) -> None:
    with (
        keyed.client(headers=bearer(ACME)) as client,
        client.stream("POST", "/ask/stream", json={"question": FINE}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        raw = "".join(response.iter_text())
    frames = parse_sse(raw)
    assert frames[-2] == (None, "[DONE]") and frames[-1][0] == "sources"
    assert "".join(json.loads(d)["text"] for e, d in frames[:-2]) == REPLY
    final = json.loads(frames[-1][1])
    assert final["cited"] == ["acme/fines#overdue-fines"] and final["not_retrieved"] == []
    with keyed.client(headers=bearer(ACME)) as client:
        refused = client.post("/ask/stream", json={"question": UNANSWERABLE})
    assert [e for e, _ in parse_sse(refused.text)] == ["refused"]


def test_bad_requests_are_json_errors_before_any_stream(keyed: Server) -> None:
    with keyed.client(headers=bearer(ACME)) as client:
        bad = client.post("/ask/stream", json={"question": FINE, "k": 0})
        huge = client.post("/ask/stream", content=b"x" * 70_000)
    assert bad.status_code == 422 and bad.headers["content-type"] == "application/json"
    assert huge.status_code == 422 and "--max-body" in huge.json()["error"]


def test_auth_and_tenants_over_http(keyed: Server) -> None:
    question = {"question": "fines printing rooms errors loans", "k": 20, "mode": "keyword"}
    with keyed.client() as client:
        missing = client.post("/search", json=question)
        wrong = client.post("/search", json=question, headers=bearer("x" * 26))
        sources = {
            key: {h["source"].split("/")[0] for h in client.post(
                "/search", json=question, headers=bearer(key)).json()["hits"]}
            for key in (ACME, GLOBEX, BOTH)
        }  # fmt: skip
        health = client.get("/health")
    assert missing.status_code == wrong.status_code == 401
    assert missing.content == wrong.content
    assert sources == {ACME: {"acme"}, GLOBEX: {"globex"}, BOTH: {"acme", "initech"}}
    assert health.status_code == 200


def test_access_log_lines_hold_no_key_and_no_question(keyed: Server) -> None:
    marker = "Zebra marker question about fines?"
    before = len(keyed.log())  # the server is shared: earlier tests' lines are there already
    with keyed.client(headers=bearer(GLOBEX)) as client:
        response = client.post("/search", json={"question": marker})
    assert response.status_code == 200, response.text
    deadline = time.monotonic() + 30
    while "tenant=globex" not in keyed.log()[before:] and time.monotonic() < deadline:
        time.sleep(0.05)
    line = keyed.log()[before:]
    assert "POST /search 200" in line and f"question_chars={len(marker)}" in line
    log = keyed.log()
    assert marker not in log and all(key not in log for key in KEYS)


def test_refuses_to_bind_beyond_loopback_without_keys(tenant_index: Path, tmp_path: Path) -> None:
    env = clean_env()
    result = subprocess.run(
        [sys.executable, "-m", "docqa", "serve", "--index", str(tenant_index), "--host", "0.0.0.0"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    refusal = (
        "docqa: error: refusing to serve 0.0.0.0 without API keys: set DOCQA_SERVE_KEYS or "
        "pass --keys-file, or serve on 127.0.0.1"
    )
    assert result.stderr.strip().splitlines() == [refusal]
    bad_keys = tmp_path / "keys"
    bad_keys.write_text("tooshort=acme\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "docqa", "serve", "--index", str(tenant_index), "--keys-file",
         str(bad_keys)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and "at least 16 characters" in result.stderr
    assert "tooshort" not in result.stderr and "Traceback" not in result.stderr


def _slow_server(index: Path, model: SlowModel, log: Path, *extra: str) -> Server:
    return Server(
        "--index", str(index), "--backend", "openai", "--base-url", model.url, *extra,
        env=MODEL_ENV, log=log,
    ).start()  # fmt: skip


def _wait(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def test_429_past_the_limit_and_disconnect_cancels_the_model_call(
    tenant_index: Path, slow_model: SlowModel, tmp_path: Path
) -> None:
    server = _slow_server(
        tenant_index, slow_model, tmp_path / "serve.log", "--max-concurrency", "1"
    )
    try:
        with (
            server.client() as client,
            client.stream("POST", "/ask/stream", json={"question": FINE}) as response,
        ):
            lines = response.iter_lines()  # kept open: closing it would disconnect
            first = next(lines)
            assert first.startswith("data: ") and "word0" in first
            busy = httpx.post(server.url + "/search", json={"question": FINE}, timeout=10)
            assert busy.status_code == 429 and busy.headers["retry-after"] == "1"
            assert "limit of 1 requests" in busy.json()["error"]
            assert "word1" in next(lines) + next(lines)
        # the client is gone: the service must stop reading the model's stream
        assert _wait(lambda: slow_model.aborted == 1, 15.0), server.log()
        assert slow_model.sent[0] < slow_model.pieces and slow_model.finished == 0
        assert _wait(
            lambda: httpx.post(server.url + "/search", json={"question": FINE}).status_code == 200,
            15.0,
        )
    finally:
        server.stop()


def test_sigterm_finishes_in_flight_streams_then_exits_0(
    tenant_index: Path, slow_model: SlowModel, tmp_path: Path
) -> None:
    server = _slow_server(tenant_index, slow_model, tmp_path / "serve.log")

    def refused() -> bool:
        # not served: the connection refused, or (a connection the kernel queued before the
        # listening socket closed) closed or reset without a response
        try:
            httpx.get(server.url + "/health", timeout=2)
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError):
            return True
        return False

    slow_model.pieces = 40  # a 4 s answer: SIGTERM lands well inside it
    stream = Stream(server.url, FINE)
    try:
        stream.thread.start()
        assert _wait(lambda: slow_model.started == 1, 15.0)
        server.proc.send_signal(15)
        assert _wait(refused, 15.0)  # stops accepting ...
        assert slow_model.finished == 0  # ... while the answer is still streaming
        assert server.proc.wait(30) == 0
        assert "word39" in stream.answer() and slow_model.finished == 1
    finally:
        server.stop()


def test_hot_reload_under_load_has_zero_failures(tmp_path: Path) -> None:
    versions = TwoVersions(tmp_path)
    index = versions.index
    server = Server("--index", str(index), log=tmp_path / "serve.log").start()
    answers: list[str] = []
    failures: list[str] = []
    stop = threading.Event()

    def load() -> None:
        with server.client() as client:
            for _ in range(5000):
                if stop.is_set():
                    return
                response = client.post("/ask", json={"question": FINE})
                if response.status_code != 200:
                    failures.append(response.text)
                else:
                    answers.append(response.json()["answer"])

    workers = [threading.Thread(target=load) for _ in range(3)]
    try:
        for worker in workers:
            worker.start()
        assert _wait(lambda: len(answers) > 20, 30.0)
        before = httpx.get(server.url + "/ready").json()["created"]
        # the manifest's "created" counts whole seconds: let one pass, so the new one differs
        assert _wait(lambda: _utc_now() > before, 5.0)
        versions.rebuild()
        assert _wait(lambda: any("twenty cents" in a for a in answers[-5:]), 60.0), server.log()
        seen = len(answers)
        assert _wait(lambda: len(answers) > seen + 20, 30.0)
        assert httpx.get(server.url + "/ready").json()["created"] != before
    finally:
        stop.set()
        for worker in workers:
            worker.join(30)
        server.stop()
    assert failures == []
    kinds = {
        "twenty cents" if "twenty cents" in a else "ten cents" if "ten cents" in a else a
        for a in answers
    }
    assert kinds == {"ten cents", "twenty cents"}
    assert all("twenty cents" in a for a in answers[-10:])
    assert "reloaded" in server.log()


def _utc_now() -> str:
    """Now as the manifest writes ``created`` (ISO 8601, whole seconds, UTC)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def test_drift_model_option_over_http(tmp_path: Path) -> None:
    library = Path(__file__).resolve().parents[2] / "examples" / "library"
    env = clean_env()
    subprocess.run([sys.executable, "-m", "docqa", "index", str(library), "--index",
                    str(tmp_path / "ix"), "--embedder", "hashing"], env=env, check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    passport = {"question": "How do I renew my passport?", "k": 3}
    hits = {}
    for option in ("auto", "embedder"):
        log = tmp_path / f"{option}.log"
        args = ("--index", str(tmp_path / "ix"), "--drift-model", option)
        with serving(*args, log=log, keyed=False) as server, server.client() as client:
            hits[option] = client.post("/search", json=passport).json()["hits"]
    assert hits["auto"] == []  # MiniLM, loaded before /ready, judges beside the hashing index
    assert hits["embedder"] and hits["embedder"][0]["id"].startswith("renewals#")
    bad = subprocess.run(
        [sys.executable, "-m", "docqa", "serve", "--index", str(tmp_path / "ix"),
         "--drift-model", "bert"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "invalid choice: 'bert'" in bad.stderr
    assert "Traceback" not in bad.stderr
