"""Keys: both spec forms, their errors (never echoing a key), lookups, env vs file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.errors import InputError
from docqa.service.keys import ENV, KeyRing, load_keys, parse_keys

A, B = "a" * 16 + "-first", "b" * 16 + "-second"


def test_short_form_and_json_form_agree() -> None:
    short = parse_keys(f"{A}=acme,globex; {B}=*\n", ENV)
    as_json = parse_keys(f'{{"{A}": ["acme", "globex"], "{B}": ["*"]}}', ENV)
    for ring in (short, as_json):
        first, second = ring.grant(A), ring.grant(B)
        assert first is not None and first.tenants == frozenset({"acme", "globex"})
        assert first.label == "acme,globex"
        assert second is not None and second.tenants is None and second.label == "*"
        assert len(ring) == 2


def test_file_comments_and_newlines() -> None:
    ring = parse_keys(f"# keys of the service\n{A}=acme\n\n{B}=globex\n", "keys.txt")
    assert ring.grant(B) is not None and ring.grant(B).tenants == frozenset({"globex"})  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("short=acme", "at least 16 characters"),
        (f"{A}", "has no '='"),
        (f"{A}=", "at least one tenant"),
        (f"{A}= , ", "at least one tenant"),
        ('{"broken": ', "not valid JSON"),
        ('["a list"]', "must be a JSON object"),
        ("{}", "holds no keys"),
        (f'{{"{A}": []}}', "at least one tenant"),
        (f'{{"{A}": 5}}', "at least one tenant"),
    ],
)
def test_bad_specs_say_what_to_fix_without_the_key(spec: str, says: str) -> None:
    with pytest.raises(InputError, match=says) as caught:
        parse_keys(spec, ENV)
    assert A not in str(caught.value)
    assert "short" not in str(caught.value).replace("shorten", "")


def test_wrong_missing_and_prefix_keys_get_nothing() -> None:
    ring = KeyRing({A: ["acme"]})
    assert ring.grant("") is None
    assert ring.grant(A[:-1]) is None
    assert ring.grant(A + "x") is None
    assert ring.grant(A.upper()) is None


@given(st.text(min_size=0, max_size=40))
def test_only_the_exact_key_is_granted(presented: str) -> None:
    ring = KeyRing({A: ["acme"], B: ["globex"]})
    grant = ring.grant(presented)
    assert (grant is not None) == (presented in (A, B))


def test_load_keys_prefers_the_file_and_is_none_without_either(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys"
    keys_file.write_text(f"{B}=globex\n", encoding="utf-8")
    from_file = load_keys(keys_file, {ENV: f"{A}=acme"})
    assert from_file is not None and from_file.grant(B) is not None and from_file.grant(A) is None
    from_env = load_keys(None, {ENV: f"{A}=acme"})
    assert from_env is not None and from_env.grant(A) is not None
    assert load_keys(None, {}) is None
    assert load_keys(None, {ENV: "  "}) is None
    with pytest.raises(InputError, match="cannot read the keys file"):
        load_keys(tmp_path / "missing", {})
