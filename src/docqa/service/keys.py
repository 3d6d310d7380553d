"""API keys: which tenants each key may read, loaded from the environment or a file.

The spec (``DOCQA_SERVE_KEYS`` or the file given to ``--keys-file``; never the command line) is
either a JSON object mapping each key to its tenants::

    {"k-3f9a...": ["acme"], "k-77c2...": ["acme", "globex"], "k-admin...": ["*"]}

or the short form ``KEY=TENANT,TENANT;KEY=TENANT`` (blank lines and ``#`` comment lines allowed
in a file, newlines may separate entries). The tenant ``*`` grants every row, including rows
with no tenant. Keys must be at least :data:`MIN_KEY_LENGTH` characters.

Only the SHA-256 digests of the keys are kept; a presented key is hashed and compared with every
digest in constant time, so neither timing nor the response tells whether a key exists.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from docqa.errors import InputError

ENV = "DOCQA_SERVE_KEYS"
EVERY_TENANT = "*"
MIN_KEY_LENGTH = 16


@dataclass(frozen=True, slots=True)
class Grant:
    """What a caller may read: ``tenants`` (None: every row) and the label the access log
    shows (the tenant names, never the key)."""

    tenants: frozenset[str] | None
    label: str


OPEN = Grant(None, "-")
"""The grant of every request when no keys are configured (loopback only)."""


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class KeyRing:
    """Keys (kept as digests) and their grants; look a presented key up with :meth:`grant`."""

    def __init__(self, keys: Mapping[str, Iterable[str]], where: str = ENV) -> None:
        self._entries: list[tuple[bytes, Grant]] = []
        for number, (key, tenants) in enumerate(keys.items(), start=1):
            self._entries.append((_digest(_check_key(key, number, where)), _grant(tenants)))
        if not self._entries:
            raise InputError(f"{where} holds no keys; give at least one KEY=TENANT entry")

    def __len__(self) -> int:
        return len(self._entries)

    def grant(self, presented: str) -> Grant | None:
        """The grant of ``presented``, or None. Every digest is compared (no early exit)."""
        digest = _digest(presented)
        found = None
        for known, grant in self._entries:
            if hmac.compare_digest(known, digest):
                found = grant
        return found

    def grants(self) -> list[Grant]:
        """Every key's grant (for warming the tenant masks)."""
        return [grant for _, grant in self._entries]


def _check_key(key: str, number: int, where: str) -> str:
    if not isinstance(key, str) or len(key) < MIN_KEY_LENGTH or key != key.strip():
        raise InputError(
            f"key #{number} in {where} is not a string of at least {MIN_KEY_LENGTH} characters "
            "without surrounding spaces; make one with "
            "`python -c 'import secrets; print(secrets.token_urlsafe(24))'`"
        )
    return key


def _grant(tenants: Iterable[str] | object) -> Grant:
    if isinstance(tenants, str):
        tenants = [tenants]
    listed = tenants if isinstance(tenants, list | tuple | set | frozenset) else []
    names = [t.strip() for t in listed if isinstance(t, str) and t.strip()]
    if not names:
        raise InputError("every key needs at least one tenant (or * for every tenant)")
    if EVERY_TENANT in names:
        return Grant(None, EVERY_TENANT)
    return Grant(frozenset(names), ",".join(sorted(set(names))))


def parse_keys(text: str, where: str) -> KeyRing:
    """A :class:`KeyRing` from a spec in either form (see the module docstring)."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{where} is not valid JSON ({exc.msg} at line {exc.lineno})"
            ) from None
        if not isinstance(data, dict):
            raise InputError(f"{where} must be a JSON object of key -> [tenants]")
        return KeyRing(data, where)
    keys: dict[str, list[str]] = {}
    for number, entry in enumerate(_entries(stripped), start=1):
        key, sep, tenants = entry.partition("=")
        if not sep:
            raise InputError(f"entry #{number} in {where} has no '='; write KEY=TENANT,TENANT")
        keys[key.strip()] = tenants.split(",")
    return KeyRing(keys, where)


def _entries(text: str) -> list[str]:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    return [e.strip() for ln in lines for e in ln.split(";") if e.strip()]


def load_keys(keys_file: Path | None, environ: Mapping[str, str] | None = None) -> KeyRing | None:
    """The keys from ``keys_file`` when given, else from ``DOCQA_SERVE_KEYS``; None when
    neither is set (the service then serves loopback only)."""
    env = os.environ if environ is None else environ
    if keys_file is not None:
        try:
            text = keys_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the keys file {keys_file}: {exc}") from None
        return parse_keys(text, str(keys_file))
    spec = env.get(ENV, "")
    return parse_keys(spec, ENV) if spec.strip() else None
