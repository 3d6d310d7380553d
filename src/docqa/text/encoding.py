"""The text of an HTML page that is not UTF-8: the encoding it declares, as browsers read it.

docqa reads every file as UTF-8 first, so a file that decodes never takes this path and its
chunks do not change. An HTML page that does not decode is read the way the HTML standard's
encoding sniffing reads it (WHATWG "determining the character encoding", simplified to what
files on disk carry):

1. a UTF-16 byte order mark;
2. the ``<meta charset="...">`` or ``<meta http-equiv="Content-Type" content="...;
   charset=...">`` in the first 1024 bytes (the standard's prescan), else an XML declaration's
   ``encoding="..."`` (XHTML pages carry both, and older generators only the latter);
3. no declaration: windows-1252, the standard's fallback for pages without one.

Labels are resolved by Python's codec registry, then widened as the Encoding Standard widens
them: ``ISO-8859-1`` and ``US-ASCII`` are read as windows-1252 (pages so labelled routinely hold
its curly quotes), ``GB2312`` as GBK, ``Shift_JIS`` as cp932, ``EUC-KR`` as cp949,
``ISO-8859-9`` as windows-1254, ``TIS-620`` / ``ISO-8859-11`` as windows-874. A page that
declares UTF-8 and is not, or declares an encoding Python does not know, or does not decode
in the one it declares, is refused with the reason (:class:`EncodingRefused`).

Written here rather than taken from a library: ``charset-normalizer`` guesses from statistics
where the page says what it is, and ``webencodings`` (the label table alone) does not prescan.
"""

from __future__ import annotations

import codecs
import re

PRESCAN = 1024
_META = re.compile(rb"<meta\b[^>]*>", re.IGNORECASE)
_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9._:()-]+)""", re.IGNORECASE)
_XML = re.compile(rb"""^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_WIDER = {
    "iso8859-1": "windows-1252",
    "ascii": "windows-1252",
    "cp1252": "windows-1252",
    "gb2312": "gbk",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "iso8859-9": "cp1254",
    "tis-620": "cp874",
    "iso8859-11": "cp874",
}
# windows-1252 as the Encoding Standard defines it: Python's cp1252 leaves five bytes
# undefined (0x81, 0x8d, 0x8f, 0x90, 0x9d); the standard maps them to U+0081 and so on, which
# latin-1 does too. So: decode as latin-1, then move 0x80-0x9f to cp1252's characters.
_C1_TO_1252 = {
    b: bytes([b]).decode("cp1252")
    for b in range(0x80, 0xA0)
    if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}


class EncodingRefused(ValueError):
    """The page cannot be read in the encoding it declares (the message says why)."""


def declared_encoding(data: bytes) -> str | None:
    """The label a page declares for itself (a ``<meta>`` in the first 1024 bytes, else an
    XML declaration), as written; ``None`` when it declares none."""
    head = data[:PRESCAN]
    for tag in _META.finditer(head):
        found = _CHARSET.search(tag.group(0))
        if found:
            return found.group(1).decode("ascii")
    xml = _XML.match(head)
    return xml.group(1).decode("ascii") if xml else None


def codec_of(label: str) -> str:
    """The Python codec a declared ``label`` reads as (see the module docstring)."""
    try:
        name = codecs.lookup(label).name
    except LookupError:
        raise EncodingRefused(
            f"declares charset {label!r}, which docqa cannot decode; re-save it as UTF-8"
        ) from None
    if name.startswith(("utf-16", "utf-32")):
        return "utf-8"  # a <meta> read by an ASCII prescan cannot be UTF-16 (the standard)
    return _WIDER.get(name, name)


def decode_windows_1252(data: bytes) -> str:
    """``data`` as the Encoding Standard's windows-1252 (every byte decodes)."""
    return data.decode("latin-1").translate(_C1_TO_1252)


def utf16_bom(data: bytes) -> str | None:
    """The UTF-16 codec ``data``'s byte order mark names, or ``None``."""
    if data.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    return "utf-16-be" if data.startswith(codecs.BOM_UTF16_BE) else None


def decode_html(data: bytes, utf8_error: UnicodeDecodeError) -> str:
    """The text of a page whose bytes are not valid UTF-8 (``utf8_error`` says where), read
    as the module docstring says. Raises :class:`EncodingRefused` with the reason."""
    bom = utf16_bom(data)
    if bom is not None:
        return _strict(data[2:], bom, "its byte order mark says UTF-16")
    label = declared_encoding(data)
    codec = "windows-1252" if label is None else codec_of(label)
    if codec == "utf-8":
        raise EncodingRefused(
            f"not valid UTF-8 (byte 0x{data[utf8_error.start]:02x} at offset "
            f"{utf8_error.start}) though it declares charset {label!r}; re-save it as UTF-8"
        )
    if codec == "windows-1252":
        return decode_windows_1252(data)
    return _strict(data, codec, f"declares charset {label!r}")


def _strict(data: bytes, codec: str, why: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise EncodingRefused(
            f"{why}, but byte 0x{data[exc.start]:02x} at offset {exc.start} is not {codec}; "
            "re-save it as UTF-8"
        ) from None
