"""One file to a ``Document``: its format by name, its bytes read, unpacked (gzip), decoded
and parsed by the pure parser of its format (Markdown, reStructuredText, AsciiDoc, plain text,
HTML, PDF).

Files are UTF-8; an HTML page that is not is read in the encoding it declares (its ``<meta>``
charset or XML declaration, else windows-1252, as browsers do: :mod:`docqa.text.encoding`).
A file that cannot become a document (not valid UTF-8, binary, empty, unreadable, broken front
matter, no text at all; an HTML page that asks not to be indexed and a site's ``404.html``, unless
given by name) is a
``SkippedFile`` with the reason. A Sphinx build's copy of a page's source, ``page.rst.txt``,
is read as reStructuredText; a ``.txt`` file whose text is clearly
AsciiDoc (``docqa.text.asciidoc_detect``) is read as AsciiDoc, one whose text is clearly
reStructuredText (``docqa.text.rst_detect``) as reStructuredText, any other as plain text. A
Markdown page written in MyST has its roles and directives read first (``docqa.text.myst``).
The build reads a long plain text as it is chunked (``document_stream``): its sections first,
their blocks as they are taken, so that the file is never held parsed whole.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from docqa._parse import build_sections  # the twin of documents.build_sections
from docqa.errors import InputError
from docqa.text.asciidoc import asciidoc_items
from docqa.text.asciidoc_detect import looks_like_asciidoc
from docqa.text.documents import Block, Document, Heading, SkippedFile
from docqa.text.encoding import EncodingRefused, decode_html, utf16_bom
from docqa.text.man import is_mdoc, is_roff, man_items, man_title
from docqa.text.markdown_fast import parse_markdown_fast
from docqa.text.mdoc import mdoc_items
from docqa.text.myst import myst_to_markdown
from docqa.text.pdf import PdfSkip, pdf_sections
from docqa.text.plain import text_bodies, text_items, text_outline
from docqa.text.rst import rst_items
from docqa.text.rst_detect import looks_like_rst

FORMATS = {
    ".md": "markdown",
    ".rst": "rst",
    ".adoc": "asciidoc",
    ".asciidoc": "asciidoc",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
# A page whose head says ``<meta name="robots" content="noindex">`` is one its site keeps out
# of search: mdBook's ``print.html`` (every chapter again on one page: each passage found twice)
# and the stubs the Rust book left at its old chapters' addresses, as Debian's ``rust-doc``
# ships them (71 pages; no other page of the Debian manuals read here says it). It is skipped,
# but for a file given by name (``named``): what a user names is read.
KEPT_OUT = (
    'the page asks not to be indexed (<meta name="robots" content="noindex">), as a '
    "print-all copy of other pages or a moved page's stub does; give its path to index it"
)
# A page whose head sends its reader on at once (``<meta http-equiv="refresh" content="0;
# url=...">``) is a moved page's stub: Texinfo writes one for every node of a manual split by
# chapter (144 of zsh's 186 pages: "The node you are looking for is at Aliasing."), rustdoc
# and mdBook for moved items (10,098 in ``rust-doc``, 211 in ``cargo``), SQLite for its old
# ``sqlite.html``. Skipped and read when named, as a page kept out of search is.
REDIRECT = (
    'the page sends its reader on at once (<meta http-equiv="refresh" content="0; url=...">), '
    "as a moved page's stub does; give its path to index it"
)
# A file named as a manual page (``.1`` to ``.9``) whose text holds no roff is no manual page
# (``man.is_roff``): zsh's ``ChangeLog-3.1.gz``, a changelog named by its version. It is skipped,
# but for a file given by name, which is read as plain text.
NOT_ROFF = (
    "named as a manual page (.1 to .9) but holds no roff (.TH, .SH), as a changelog named by "
    "version does; give its path to index it as text"
)
# A site's page for addresses it does not have is named ``404.html``, the name the web servers
# that serve it look for (seen here: the Pallets Sphinx theme's in Click's docs, as Debian
# ships them; MkDocs's own themes' and Material's): "Page Not Found. The page you requested
# does not exist." is no page of the manual. It is skipped as a page kept out of search is,
# and read when given by name.
NOT_FOUND_PAGE = (
    "a site's page for addresses it does not have (404.html), not a page of the documents; "
    "give its path to index it"
)
_NOT_FOUND_NAMES = frozenset({"404.html", "404.htm"})
HEAD_CHARS = 65_536  # a page's head is read up to its <body> tag, within this many characters
_BODY = re.compile(r"<body\b", re.IGNORECASE)
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_ROBOTS = re.compile(r"""\bname\s*=\s*["']?robots\b""", re.IGNORECASE)
_NOINDEX = re.compile(r"""\bcontent\s*=\s*["'][^"']*\bnoindex\b""", re.IGNORECASE)
_REFRESH = re.compile(r"""\bhttp-equiv\s*=\s*["']?refresh\b""", re.IGNORECASE)
_AT_ONCE = re.compile(r"""\bcontent\s*=\s*["']?\s*0+(?:\.0*)?\s*[;,]\s*[^\s"']""", re.IGNORECASE)
READS = (
    "docqa reads .md, .rst, .adoc, .txt, .html and .pdf files, manual pages (.1 to .9) and "
    "README, FAQ and NEWS files, also gzipped"
)
TEXT_NAMES = frozenset({"README", "FAQ", "NEWS", "TODO", "INSTALL", "BUGS", "USAGE", "HACKING"})
"""Names of plain-text documentation a package ships without a suffix, as Debian's
``/usr/share/doc`` does (105 ``README``, 94 ``README.Debian``, 76 ``NEWS`` here), read as
``.txt`` files are. A licence, an authors' list or a changelog is no such name."""
_SPHINX_SOURCE = ".rst.txt"  # what Sphinx copies a page's source to (``_sources/``)
# a manual page's section, its name's suffix: ``ls.1``, ``CURLOPT_TIMEOUT.3``, ``ssl.3ssl``
_MAN_SECTION = re.compile(r"[1-9][a-z]{0,4}")
GZIP = ".gz"
# A gzipped file is read whole into memory, as any other file is; past this size it is skipped
# (a gzip "bomb" unpacks a few kB into gigabytes).
MAX_GUNZIPPED = 256 << 20


def format_of(name: str) -> str | None:
    """The format docqa reads a file as, by its name's suffix (``FORMATS``; ``"man"`` for a
    manual page's section, ``.1`` to ``.9``), looking through one ``.gz`` (``guide.md.gz`` is
    Markdown); a README, FAQ or NEWS file without a suffix docqa reads (``README``,
    ``README.Debian``, ``NEWS.gz``: :data:`TEXT_NAMES`) is plain text; None for a file of
    another type."""
    if name.lower().endswith(GZIP):
        name = name[: -len(GZIP)]
    name = name[name.rfind("/") + 1 :]
    dot = name.rfind(".")  # ``PurePosixPath(name).suffix``, without making a path of each name
    if not 0 < dot < len(name) - 1:
        return "text" if name in TEXT_NAMES else None
    if name.lower().endswith(_SPHINX_SOURCE) and len(name) > len(_SPHINX_SOURCE):
        return "rst"
    if _MAN_SECTION.fullmatch(name, dot + 1):
        return "man"
    kind = FORMATS.get(name[dot:].lower())
    return "text" if kind is None and name[: name.find(".")] in TEXT_NAMES else kind


def _gunzip(data: bytes) -> bytes:
    """The bytes a gzip file holds (every member, as ``gzip.decompress`` reads them), at most
    ``MAX_GUNZIPPED``; raises ``_Skip`` with the reason. ``gzip.decompress`` has no bound."""
    out: list[bytes] = []
    left = MAX_GUNZIPPED
    while data:
        member = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
        try:
            out.append(member.decompress(data, left + 1))
        except zlib.error as exc:
            raise _Skip(f"not a readable gzip file ({exc}); unpack it to index it") from None
        left -= len(out[-1])
        if left < 0:
            raise _Skip(f"unpacks to more than {MAX_GUNZIPPED >> 20} MiB; unpack it to index it")
        if not member.eof:
            raise _Skip("a truncated gzip file; unpack it to index it")
        data = member.unused_data.lstrip(b"\0")  # members may be padded with NULs
    return b"".join(out)


_MAX_TXT_TITLE = 80
# A plain text longer than this is read as it is chunked (``document_stream``); a shorter one is
# parsed whole, in one pass (the same records: two passes cost a few per cent more time).
STREAM_CHARS = 1 << 20


class _Skip(Exception):
    """Internal: this file cannot be loaded, for the reason in ``args[0]``."""


def _title_from_name(source: str) -> str:
    """``"guide/opening-hours.txt"`` (or ``.txt.gz``) -> ``"Opening hours"``."""
    if source.lower().endswith(GZIP):
        source = source[: -len(GZIP)]
    words = Path(source).stem.replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _decode(data: bytes, html: bool = False) -> str:
    """UTF-8 text of a file's bytes (a BOM dropped), or for an HTML page that is not UTF-8,
    the encoding it declares (:mod:`docqa.text.encoding`); raises ``_Skip`` with the reason."""
    if not data.strip():
        raise _Skip("empty file")
    # anywhere: a NUL after the first 8 KiB is as binary as one before (but UTF-16 HTML)
    if b"\x00" in data and not (html and utf16_bom(data)):
        raise _Skip(
            "binary file (NUL bytes), not text; docqa reads UTF-8 .md, .rst, .adoc, .txt and .html"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if html:
            try:
                return decode_html(data, exc)
            except EncodingRefused as refused:
                raise _Skip(str(refused)) from None
        byte = data[exc.start]
        raise _Skip(
            f"not valid UTF-8 (byte 0x{byte:02x} at offset {exc.start}); re-save it as UTF-8"
        ) from exc


def _not_a_page(page: str) -> str | None:
    """Why an HTML page is passed over by what its head says (``KEPT_OUT`` for ``<meta
    name="robots" content="noindex">``, ``REDIRECT`` for a refresh at once), else None."""
    body = _BODY.search(page, 0, HEAD_CHARS)
    for tag in _META.finditer(page, 0, body.start() if body else HEAD_CHARS):
        if _ROBOTS.search(tag.group(0)) and _NOINDEX.search(tag.group(0)):
            return KEPT_OUT
        if _REFRESH.search(tag.group(0)) and _AT_ONCE.search(tag.group(0)):
            return REDIRECT
    return None


def _html_name(source: str) -> str:
    """The file name a page's links use for itself: ``faq.html`` for ``manual/faq.html``
    (and for ``manual/faq.html.gz``, as the page was written before it was compressed)."""
    name = source.rsplit("/", 1)[-1]
    return name[: -len(GZIP)] if name.lower().endswith(GZIP) else name


def parse_document(source: str, text: str) -> Document:
    """Parse ``text`` as the format of ``source``'s extension into a ``Document``.

    Pure (no I/O). A Markdown page's title is its front matter ``title``, else its first h1;
    an HTML page's is its ``<title>``, else its first h1; a reStructuredText page's is its
    first section title, and so is an AsciiDoc page's (``.adoc``, ``.asciidoc``, and a
    ``.txt`` file whose text is AsciiDoc: ``format`` is then ``"asciidoc"``); a .txt file's
    is its first line when that line has at most 80 characters; a manual page's
    (``git-blame.1.gz``) is its NAME line (``git-blame - Show what revision ...``); failing
    those, the file name (``"Opening hours"``).
    Raises ``InputError`` for broken front matter.
    """
    kind = format_of(source)
    if kind is None:
        raise InputError(f"{source!r} is not a file docqa reads; {READS}")
    metadata: dict[str, object] = {}
    if kind == "man" and not is_roff(text):
        kind = "text"  # given by name (else ``decoded`` skipped it): read as what it holds
    if kind == "text":
        kind = text_format(text)
    if kind == "markdown":
        metadata, items = parse_markdown_fast(myst_to_markdown(text))
        found = metadata.get("title") or next(
            (i.text for i in items if isinstance(i, Heading) and i.level == 1), ""
        )
        title = str(found)
    elif kind == "html":
        from docqa.text.html import parse_html  # html.parser: ~3 ms of imports, when needed

        title, items = parse_html(text, page=_html_name(source))
    elif kind == "man":
        items = mdoc_items(text) if is_mdoc(text) else man_items(text)
        title = man_title(items)
    elif kind in ("rst", "asciidoc"):
        items = rst_items(text) if kind == "rst" else asciidoc_items(text)
        title = next((i.text for i in items if isinstance(i, Heading)), "")
    else:
        items = text_items(text)
        first = items[0] if items else None
        line = first.text if isinstance(first, Heading) else first.lines[0].text if first else ""
        title = _txt_title(line)
    return Document(
        source=source,
        title=title or _title_from_name(source),
        sections=build_sections(items),
        metadata={**metadata, "format": kind},
    )


def text_format(text: str) -> str:
    """The format a ``.txt`` file's ``text`` is read as: ``"asciidoc"`` or ``"rst"`` when its
    text is clearly that markup, else ``"text"``."""
    if looks_like_asciidoc(text):
        return "asciidoc"
    return "rst" if looks_like_rst(text) else "text"


def _txt_title(line: str) -> str:
    """A .txt file's title, given the text of its first item: that line, when short enough."""
    return line if len(line) <= _MAX_TXT_TITLE else ""


def read_bytes(path: Path) -> bytes | SkippedFile:
    """The file's bytes, or why it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as exc:
        return SkippedFile(path.name, f"cannot be read ({exc.strerror or exc})")


def document_from_bytes(
    source: str, data: bytes, file_hash: str, *, named: bool = False
) -> Document | SkippedFile:
    """Parse a file's bytes as ``source`` (its sha256 given); a ``SkippedFile`` (no warning)
    when they cannot become a document (``named``: see ``decoded``). Pure."""
    content = decoded(source, data, named=named)
    if isinstance(content, SkippedFile):
        return content
    return document_from_decoded(source, content, file_hash)


def decoded(source: str, data: bytes, *, named: bool = False) -> str | bytes | SkippedFile:
    """A file's text as ``source`` (unpacked when gzipped, decoded), or for a PDF its bytes;
    a ``SkippedFile`` when they cannot be, and for an HTML page that asks not to be indexed,
    sends its reader on at once or is a site's ``404.html``, and a file named as a manual page
    that holds no roff, unless the file was given by name (``named``). A caller that lets the
    bytes go before parsing (``document_from_decoded``) holds a large file's text once while
    it is parsed."""
    kind = format_of(source)
    try:
        if source.lower().endswith(GZIP):
            data = _gunzip(data)
        if kind == "pdf":
            return data
        html = kind == "html"
        if html and not named and _html_name(source).lower() in _NOT_FOUND_NAMES:
            raise _Skip(NOT_FOUND_PAGE)
        text = _decode(data, html=html)
        if html and not named and (reason := _not_a_page(text)) is not None:
            raise _Skip(reason)
        if not named and kind == "man" and not is_roff(text):
            raise _Skip(NOT_ROFF)
        return text
    except _Skip as exc:
        return SkippedFile(source, str(exc))


def document_from_decoded(
    source: str, content: str | bytes, file_hash: str
) -> Document | SkippedFile:
    """``document_from_bytes`` of what ``decoded`` gave. Pure."""
    try:
        if isinstance(content, bytes):
            document = _pdf_document(source, content)
        else:
            document = parse_document(source, content)
    except (_Skip, PdfSkip, InputError) as exc:
        return SkippedFile(source, str(exc))
    document = replace(document, content_hash=file_hash)
    if not document.sections:
        only_meta = set(document.metadata) != {"format"}
        return SkippedFile(source, "no text outside the front matter" if only_meta else "no text")
    return document


def document_stream(
    source: str, content: str | bytes, file_hash: str
) -> tuple[Document, Iterator[Iterator[Block]] | None] | SkippedFile:
    """``document_from_decoded``, but a plain text of more than ``STREAM_CHARS`` characters is
    read as it is chunked: the document's sections then hold no blocks, and the iterator (else
    None) gives each one's blocks in turn, made from the text as they are taken
    (``records.record_parts``' ``bodies``), so that the whole file is never held parsed
    (``plain.text_outline``, ``plain.text_bodies``)."""
    text = _long_text(source, content)
    if text is None:
        document = document_from_decoded(source, content, file_hash)
        return document if isinstance(document, SkippedFile) else (document, None)
    outline = text_outline(text)
    if not outline.sections:
        return SkippedFile(source, "no text")
    title = _txt_title(outline.first) or _title_from_name(source)
    metadata = {"format": "text"}
    document = Document(source, title, outline.sections, metadata, content_hash=file_hash)
    return document, text_bodies(text, outline)


def _long_text(source: str, content: str | bytes) -> str | None:
    """``content`` when ``document_stream`` reads it as it is chunked (a plain text of more
    than ``STREAM_CHARS`` characters), else None."""
    if not isinstance(content, str) or len(content) <= STREAM_CHARS:
        return None
    return content if format_of(source) == "text" and text_format(content) == "text" else None


def _pdf_document(source: str, data: bytes) -> Document:
    """A PDF as one section per page (see ``docqa.text.pdf``); titled by its file name."""
    return Document(
        source=source,
        title=_title_from_name(source),
        sections=pdf_sections(data),
        metadata={"format": "pdf"},
    )


def load_file(path: Path, source: str, *, named: bool = False) -> Document | SkippedFile:
    """Read and parse one file as ``source`` (see ``document_from_bytes``)."""
    data = read_bytes(path)
    if isinstance(data, SkippedFile):
        return SkippedFile(source, data.reason)
    return document_from_bytes(source, data, hashlib.sha256(data).hexdigest(), named=named)
