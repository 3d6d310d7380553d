"""What an answer cost: prices are configuration, never code.

Prices are per million tokens, per model name, input and output separately. They come from an
explicit mapping or from a TOML or JSON file (its path in ``DOCQA_PRICES``) shaped as::

    ["claude-model-name"]          # TOML; JSON: {"claude-model-name": {"input": 3.0, ...}}
    input = 3.0                    # currency units per million input tokens
    output = 15.0                  # ... per million output tokens

A model without a configured price has no cost (None), never a guessed one.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docqa.errors import InputError
from docqa.types import Usage

PRICES_ENV = "DOCQA_PRICES"
SIDES = ("input", "output")


@dataclass(frozen=True, slots=True)
class Price:
    """Currency units per million input and per million output tokens (finite, >= 0)."""

    input: float
    output: float

    def cost(self, usage: Usage) -> float:
        """The cost of ``usage`` at this price."""
        return (usage.input_tokens * self.input + usage.output_tokens * self.output) / 1e6


def parse_prices(table: Mapping[str, Any], source: str = "prices") -> dict[str, Price]:
    """Prices from ``{model: {"input": x, "output": y}}``; InputError naming the bad entry."""
    prices = {}
    for model, entry in table.items():
        if not isinstance(entry, Mapping):
            raise InputError(f"{source}: {model!r} must be a table with 'input' and 'output'")
        prices[str(model)] = Price(*(_rate(entry.get(side), model, side, source) for side in SIDES))
    return prices


def _rate(value: object, model: str, side: str, source: str) -> float:
    """One price as a float; InputError unless a finite number >= 0."""
    if (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    ):
        return float(value)
    raise InputError(
        f"{source}: {model!r} {side} price must be a number >= 0 (per million tokens), "
        f"got {value!r}"
    )


def load_prices(path: str | os.PathLike[str] | None = None) -> dict[str, Price]:
    """Prices from ``path``, else from the file named by ``DOCQA_PRICES``, else none ({}).

    ``.json`` files are read as JSON, anything else as TOML. InputError for a missing or
    unparsable file.
    """
    where = path if path is not None else os.environ.get(PRICES_ENV, "").strip()
    if not where:
        return {}
    file = Path(where)
    try:
        raw = file.read_text(encoding="utf-8")
        table = json.loads(raw) if file.suffix.lower() == ".json" else tomllib.loads(raw)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"cannot read the price file {file} ({reason}); fix {PRICES_ENV}") from exc
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"price file {file} is not valid: {exc}") from exc
    if not isinstance(table, Mapping):
        raise InputError(f"price file {file} must map model names to prices")
    return parse_prices(table, str(file))


def cost(usage: Usage | None, model: str | None, prices: Mapping[str, Price]) -> float | None:
    """The cost of ``usage`` for ``model``; None when either is unknown or no price is set."""
    if usage is None or model is None or model not in prices:
        return None
    return prices[model].cost(usage)
