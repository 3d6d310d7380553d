from collections.abc import Callable, Iterable
from typing import Any

from docqa.text.documents import Block, Heading, Section

def scan_html(
    text: str, first_line: int, content_only: bool
) -> tuple[str, str, list[Heading | Block]] | None: ...
def walk_markdown(
    events: Iterable[tuple[Any, Any]],
    source: bytes,
    html_blocks: Callable[..., list[Heading | Block]],
) -> list[Heading | Block] | None: ...
def section_windows(
    blocks: tuple[Block, ...], max_words: int, overlap: int, rest: list[int] | None = None
) -> list[tuple[str, int, int]]: ...
def section_records(
    blocks: tuple[Block, ...],
    max_words: int,
    overlap: int,
    id_json: bytes,
    middle: bytes,
    tail: bytes,
    title: str,
    position: int,
    records: list[bytes],
    texts: list[str],
    first_part: int = 1,
    rest: list[int] | None = None,
) -> int: ...
def build_sections(items: Iterable[Heading | Block]) -> tuple[Section, ...]: ...
def marks_content(text: str) -> bool: ...
