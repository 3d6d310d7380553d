"""The Embedder protocol and the config registry."""

from __future__ import annotations

import json

import pytest

from docqa.embed import Embedder, HashingEmbedder, TfidfEmbedder, from_config
from docqa.errors import InputError


def test_both_embedders_satisfy_the_protocol() -> None:
    assert isinstance(HashingEmbedder(), Embedder)
    assert isinstance(TfidfEmbedder().fit(["cat"]), Embedder)
    assert not isinstance(TfidfEmbedder(), Embedder)  # unfitted: no dim yet, and no raise


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({}, "hashing-256-v1"),
        ({"dim": 1024}, "hashing-1024-v1"),
        ({"stop_words": False, "fold_plurals": False}, "hashing-256-nostop-nofold-v1"),
    ],
)
def test_names_carry_the_configuration(kwargs: dict[str, object], name: str) -> None:
    assert HashingEmbedder(**kwargs).name == name  # type: ignore[arg-type]


def test_custom_stop_lists_get_distinct_names() -> None:
    a, b = HashingEmbedder(stop_words=["cat"]), HashingEmbedder(stop_words=["dog"])
    assert a.name != b.name and a.name.startswith("hashing-256-stop")


def test_config_is_json_and_rebuilds_the_same_embedder() -> None:
    e = HashingEmbedder(64, stop_words=["b", "a"], fold_plurals=False)
    config = json.loads(json.dumps(e.config()))
    assert config["stop_words"] == ["a", "b"]
    back = from_config(config)
    assert back == e and back.embed(["a cats b"]).tobytes() == e.embed(["a cats b"]).tobytes()


def test_unknown_kind_and_version_are_refused() -> None:
    with pytest.raises(
        InputError, match="unknown embedder kind 'bert'.*hashing, minilm, ollama, openai, tfidf"
    ):
        from_config({"kind": "bert"})
    config = {**HashingEmbedder().config(), "version": 99}
    with pytest.raises(InputError, match="version 1"):
        from_config(config)


def test_bad_stop_lists_are_refused() -> None:
    with pytest.raises(TypeError, match="not a str"):
        HashingEmbedder(stop_words="the")
    with pytest.raises(TypeError, match="non-empty str"):
        HashingEmbedder(stop_words=["the", ""])
    with pytest.raises(TypeError, match="non-empty str"):
        TfidfEmbedder(stop_words=["the", 3])  # type: ignore[list-item]
