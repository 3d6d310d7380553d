from docqa.text.documents import Block, Heading

def scan_html(
    text: str, first_line: int, content_only: bool
) -> tuple[str, str, list[Heading | Block]] | None: ...
