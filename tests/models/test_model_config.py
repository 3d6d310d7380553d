"""Configuration of the real clients, the retry policy, the stream joiner, the scripted models."""

from __future__ import annotations

from pathlib import Path

import pytest
from backends import KEY
from standin import StandIn

from docqa.errors import InputError, ModelConfigError, ModelError, ModelStreamBroken
from docqa.models import (
    AnthropicModel,
    ExtractiveModel,
    FakeModel,
    OllamaModel,
    OpenAICompatibleModel,
)
from docqa.models.base import PieceStream, RetryableFailure, RetryPolicy, complete, retrying
from docqa.models.ollama import ollama_host
from docqa.pricing import Price, cost, load_prices
from docqa.prompt import REFUSAL, build_prompt
from docqa.types import Chunk, Hit, Prompt, Usage


def hit(chunk_id: str, text: str, row: int = 0, heading: str = "Library") -> Hit:
    chunk = Chunk(chunk_id, chunk_id, (heading,), "doc.md", row, 1, 1, text, "0" * 64)
    return Hit(row=row, id=chunk_id, section=chunk_id, score=1.0, chunk=chunk)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "DOCQA_MODEL",
        "DOCQA_MAX_TOKENS",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OLLAMA_HOST",
        "DOCQA_PRICES",
        "ANTHROPIC_AUTH_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("client", [AnthropicModel, OpenAICompatibleModel])
def test_missing_settings_fail_before_any_request(
    client: type, server: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ModelConfigError, match="DOCQA_MODEL"):
        client(max_tokens=10, api_key=KEY, base_url=server.url)
    with pytest.raises(ModelConfigError, match="DOCQA_MAX_TOKENS"):
        client("m", api_key=KEY, base_url=server.url)
    with pytest.raises(ModelConfigError, match="_API_KEY"):
        client("m", max_tokens=10, base_url=server.url)
    monkeypatch.setenv("DOCQA_MAX_TOKENS", "lots")
    with pytest.raises(ModelConfigError, match="'lots'"):
        client("m", api_key=KEY, base_url=server.url)
    assert server.requests == []


@pytest.mark.parametrize("client", [AnthropicModel, OpenAICompatibleModel])
def test_settings_come_from_the_environment(client: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCQA_MODEL", "env-model")
    monkeypatch.setenv("DOCQA_MAX_TOKENS", "321")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model = client(base_url="http://127.0.0.1:9")
    assert (model.name, model.max_tokens) == ("env-model", 321)
    assert KEY not in repr(model)


def test_ollama_needs_a_model_and_finds_its_host(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelConfigError, match="DOCQA_MODEL"):
        OllamaModel()
    assert OllamaModel("m").max_tokens is None
    assert ollama_host() == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "box:1234/")
    assert ollama_host() == "http://box:1234"
    assert ollama_host("https://h") == "https://h"


def test_retry_policy_delays_and_bounds() -> None:
    policy = RetryPolicy(attempts=4, base_delay=0.5, max_delay=3.0)
    assert [policy.delay(n, None) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 3.0]
    assert policy.delay(1, 2.5) == 2.5 and policy.delay(1, 99.0) == 3.0
    with pytest.raises(InputError, match="attempts"):
        RetryPolicy(attempts=0)


def test_retrying_returns_usage_and_never_repeats_text() -> None:
    sleeps: list[float] = []
    calls: list[int] = []

    def attempt() -> PieceStream:
        calls.append(1)
        if len(calls) == 1:
            raise RetryableFailure(ModelError("busy"), retry_after=1.5)
        yield "a"
        raise RetryableFailure(ModelError("dropped"))

    stream = retrying(attempt, RetryPolicy(sleep=sleeps.append), "stand-in")
    assert next(stream) == "a"
    with pytest.raises(ModelStreamBroken, match="stand-in.*dropped"):
        next(stream)
    assert sleeps == [1.5] and len(calls) == 2


def test_complete_joins_and_estimates_at_four_characters_a_token() -> None:
    prompt = Prompt("s" * 8, "u" * 9)
    done = complete(FakeModel(["hello"], piece_size=2), prompt)
    assert done.text == "hello"
    assert done.usage == Usage(input_tokens=2 + 3, output_tokens=2, estimated=True)
    reported = complete(FakeModel(["hi"], usage=Usage(7, 1)), prompt)
    assert reported.usage == Usage(7, 1, estimated=False)


def test_fake_model_plays_back_pieces_records_prompts_and_runs_out() -> None:
    model = FakeModel(["abcdefg", ValueError("scripted failure")], piece_size=3)
    assert list(model.stream(Prompt("s", "u1"))) == ["abc", "def", "g"]
    with pytest.raises(ValueError, match="scripted failure"):
        list(model.stream(Prompt("s", "u2")))
    with pytest.raises(ModelError, match="no scripted reply left"):
        model.stream(Prompt("s", "u3"))
    assert [p.user for p in model.prompts] == ["u1", "u2", "u3"]
    echo = FakeModel(lambda prompt: prompt.user.upper())
    assert "".join(echo.stream(Prompt("s", "shout"))) == "SHOUT"


def test_extractive_model_picks_the_best_sentence_across_passages() -> None:
    hits = [
        hit("a#one", "Cats sleep a lot. The library opens at nine.", heading="Pets"),
        hit("b#two", "Library cards are free.\n\nThe library opens at nine on weekdays.", 1),
    ]
    prompt = build_prompt("When does the library open on weekdays?", hits)
    text = complete(ExtractiveModel(), prompt).text
    # the best sentence, then the next best ones up to three, in the order of the prompt, each
    # run opened by its section's heading unless it says it ("Library" is said in b#two's)
    assert text == (
        "Pets: The library opens at nine. [a#one] "
        "Library cards are free. The library opens at nine on weekdays. [b#two]"
    )
    tie = build_prompt("library open?", hits)
    assert complete(ExtractiveModel(), tie).text == (
        "Pets: The library opens at nine. [a#one] "
        "Library cards are free. The library opens at nine on weekdays. [b#two]"
    )
    assert complete(ExtractiveModel(), build_prompt("zebras?", hits)).text == REFUSAL


def test_prices_are_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_prices() == {}
    toml = tmp_path / "prices.toml"
    toml.write_text('["model-a"]\ninput = 3.0\noutput = 15\n', encoding="utf-8")
    monkeypatch.setenv("DOCQA_PRICES", str(toml))
    prices = load_prices()
    assert prices == {"model-a": Price(3.0, 15.0)}
    assert cost(Usage(2_000_000, 100_000), "model-a", prices) == pytest.approx(7.5)
    assert cost(Usage(1, 1), "model-b", prices) is None
    assert cost(None, "model-a", prices) is None
    json_file = tmp_path / "prices.json"
    json_file.write_text('{"model-b": {"input": 1, "output": -2}}', encoding="utf-8")
    with pytest.raises(InputError, match="'model-b' output"):
        load_prices(json_file)
    with pytest.raises(InputError, match="cannot read"):
        load_prices(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("not = [toml", encoding="utf-8")
    with pytest.raises(InputError, match="not valid"):
        load_prices(tmp_path / "bad.toml")
