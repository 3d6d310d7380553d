"""Front matter (YAML) as document metadata, for both Markdown parsers.

Its own module, with YAML imported on first use, so that parsing Markdown without front matter
loads neither YAML nor markdown-it (the fast parser's reference twin).
"""

from __future__ import annotations

import datetime
from typing import Any

from docqa.errors import InputError


def front_matter_mapping(content: str) -> dict[str, Any]:
    """The YAML mapping of front matter text; ``InputError`` when it is not one."""
    import yaml

    try:
        data = yaml.safe_load(content)
    except yaml.YAMLError as exc:
        raise InputError(f"front matter is not valid YAML ({exc.__class__.__name__})") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"front matter must be a YAML mapping, not {type(data).__name__}")
    plain: dict[str, Any] = _plain(data)
    return plain


def _plain(value: Any) -> Any:
    """Front-matter values made JSON-friendly: dates and times become ISO strings."""
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
