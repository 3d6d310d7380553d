"""Shared by the service tests: a small multi-tenant corpus, keys, and a real `docqa serve`."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from docqa_cli import clean_env

DOCS = {
    "acme/loans.md": "# Loans\n\n## Loan periods\n\nAcme members borrow books for three weeks. "
    "DVDs go out for seven days.\n\n## Renewals\n\nAcme renews a loan twice unless someone "
    "holds it.\n",
    "acme/fines.md": "# Fines\n\n## Overdue fines\n\nAcme charges ten cents a day for an "
    "overdue book, up to five dollars.\n",
    "globex/printing.md": "# Printing\n\n## Print prices\n\nGlobex prints black and white pages "
    "at fifteen cents and colour pages at fifty cents.\n",
    "globex/rooms.md": "# Rooms\n\n## Booking a room\n\nGlobex study rooms are booked for two "
    "hours at a time at the front desk.\n",
    "initech/errors.md": "# Errors\n\n## Error codes\n\nInitech error RNW-409 means the item "
    "reached its renewal limit. Error RNW-403 means someone holds the item.\n",
    "shared.md": "# Hours\n\n## Opening hours\n\nThe building opens at nine and closes at six "
    "on weekdays.\n",
}
TENANTS = ("acme", "globex", "initech")
KEYS = {
    "acme-key-0123456789abcdef": ["acme"],
    "globex-key-0123456789abcdef": ["globex"],
    "both-key-0123456789abcdef": ["acme", "initech"],
    "admin-key-0123456789abcdef": ["*"],
}
UNANSWERABLE = "Who won the football match yesterday?"


def write_docs(root: Path, docs: dict[str, str] = DOCS) -> Path:
    for rel, text in docs.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


class TwoVersions:
    """An index built from the docs, and a second version of them (the overdue fine changed
    from "ten cents" to "twenty cents") that ``rebuild()`` indexes in place, atomically."""

    def __init__(self, root: Path) -> None:
        old_docs, self.new_docs = write_docs(root / "v1"), write_docs(root / "v2")
        fines = self.new_docs / "acme" / "fines.md"
        fines.write_text(fines.read_text().replace("ten cents", "twenty cents"), encoding="utf-8")
        self.index = root / "index"
        self._index(old_docs)

    def _index(self, docs: Path) -> None:
        env = clean_env()
        command = [sys.executable, "-m", "docqa", "index", "--index", str(self.index), str(docs)]
        subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)

    def rebuild(self) -> None:
        self._index(self.new_docs)


def keys_spec(keys: dict[str, list[str]] = KEYS) -> str:
    return ";".join(f"{k}={','.join(v)}" for k, v in keys.items())


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def parse_sse(raw: str) -> list[tuple[str | None, str]]:
    """``(event, data)`` per frame; every frame must end with a blank line."""
    assert raw.endswith("\n\n"), raw[-80:]
    frames = []
    for block in raw[:-2].split("\n\n"):
        event, data = None, []
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                event = value
            else:
                assert field == "data", line
                data.append(value)
        frames.append((event, "\n".join(data)))
    return frames


class Stream:
    """``POST /ask/stream`` read whole in a background thread (a long answer SIGTERM can land
    in); ``answer()`` is the final ``sources`` frame's answer once the thread is joined."""

    def __init__(self, url: str, question: str) -> None:
        self.raw: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(url, question))

    def _read(self, url: str, question: str) -> None:
        with httpx.stream(
            "POST", url + "/ask/stream", json={"question": question}, timeout=30
        ) as r:
            self.raw.append("".join(r.iter_text()))

    def answer(self) -> str:
        self.thread.join(30)
        event, data = parse_sse(self.raw[0])[-1]
        assert event == "sources", (event, data)
        return str(json.loads(data)["answer"])


class Server:
    """A `docqa serve` subprocess on 127.0.0.1 (port 0: the chosen port is read from its log)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None, log: Path) -> None:
        full_env = clean_env()
        full_env.update(env or {})
        self.log_path = log
        self._log = open(log, "w+", encoding="utf-8")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "docqa", "serve", "--port", "0", *args],
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.url = ""

    def start(self, timeout: float = 120.0) -> Server:
        """Wait for the listening line and for /ready (bounded by ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while not self.url:
            found = re.search(r"docqa serve: (http://127\.0\.0\.1:\d+)/", self.log())
            if found:
                self.url = found.group(1)
            elif self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"docqa serve did not start:\n{self.log()}")
            else:
                time.sleep(0.05)
        # a worker of --workers N warms before it serves: /ready may wait for it
        while httpx.get(self.url + "/ready", timeout=timeout).status_code != 200:
            if time.monotonic() > deadline:
                raise AssertionError(f"docqa serve never got ready:\n{self.log()}")
            time.sleep(0.05)
        return self

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8")

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30.0, **kwargs)

    def terminate(self, timeout: float = 30.0) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def children(self) -> list[int]:
        """The pids of the server's child processes (its workers under ``--workers N``)."""
        try:
            path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
            return [int(pid) for pid in path.read_text().split()]
        except OSError:
            return []

    def stop(self) -> None:
        if self.proc.poll() is None:
            workers = self.children()
            self.proc.kill()
            self.proc.wait(10)
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        self._log.close()


@contextlib.contextmanager
def serving(*args: str, log: Path, keyed: bool = True) -> Iterator[Server]:
    """A started `docqa serve` ARGS (with the test keys unless ``keyed`` is False), stopped on
    exit: what a module-scoped server fixture yields."""
    server = Server(*args, env={"DOCQA_SERVE_KEYS": keys_spec()} if keyed else None, log=log)
    try:
        yield server.start()
    finally:
        server.stop()
