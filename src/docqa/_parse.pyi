from collections.abc import Callable, Iterable
from typing import Any

from docqa.text.documents import Block, Heading, Section
from docqa.text.records import section_records_python

def scan_html(
    text: str, first_line: int, content_only: bool
) -> tuple[str, str, list[Heading | Block], list[int], list[int]] | None: ...
def walk_markdown(
    events: Iterable[tuple[Any, Any]],
    source: bytes,
    html_blocks: Callable[..., list[Heading | Block]],
) -> list[Heading | Block] | None: ...
def section_windows(
    blocks: tuple[Block, ...], max_words: int, overlap: int, rest: list[int] | None = None
) -> list[tuple[str, int, int]]: ...
def build_sections(items: Iterable[Heading | Block]) -> tuple[Section, ...]: ...
def marks_content(text: str) -> bool: ...

section_records = section_records_python  # its Python twin's signature (tested equal)
