"""HTML pages that are not UTF-8 load in the encoding they declare (docqa.text.encoding)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from docqa.text import SkippedFileWarning, load_path
from docqa.text.documents import Document, SkippedFile
from docqa.text.encoding import (
    EncodingRefused,
    codec_of,
    declared_encoding,
    decode_windows_1252,
)
from docqa.text.loaders import document_from_bytes, load_file

UNDEFINED_IN_CP1252 = (0x81, 0x8D, 0x8F, 0x90, 0x9D)


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}<title>T</title></head><body>{body}</body></html>"


def load(tmp_path: Path, name: str, data: bytes) -> Document | SkippedFile:
    path = tmp_path / name
    path.write_bytes(data)
    return load_file(path, name)


def text_of(doc: Document | SkippedFile) -> str:
    assert isinstance(doc, Document), getattr(doc, "reason", doc)
    return " ".join(s.text for s in doc.sections)


@pytest.mark.parametrize(
    ("head", "label"),
    [
        ('<meta charset="ISO-8859-1">', "ISO-8859-1"),
        ("<meta charset=latin1>", "latin1"),
        (
            '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252" />',
            "windows-1252",
        ),
        ("<META CONTENT='text/html;charset=koi8-r' HTTP-EQUIV='content-type'>", "koi8-r"),
        ('<meta name="generator" content="x"><meta charset="shift_jis">', "shift_jis"),
        ('<meta http-equiv="Content-Type" content="text/html">', None),
        ("", None),
    ],
)
def test_the_declared_label_is_found(head: str, label: str | None) -> None:
    assert declared_encoding(page("x", head).encode("ascii")) == label


def test_an_xml_declaration_counts_and_a_late_meta_does_not() -> None:
    xml = b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<html><body>x</body></html>'
    assert declared_encoding(xml) == "ISO-8859-1"
    late = b"<html><head>" + b" " * 1100 + b'<meta charset="koi8-r"></head></html>'
    assert declared_encoding(late) is None  # the prescan reads the first 1024 bytes only


def test_windows_1252_is_the_encoding_standards_for_every_byte() -> None:
    # the slow twin: byte by byte, Python's cp1252, and the five bytes it leaves undefined map
    # to the C1 control with the same number (the Encoding Standard's index)
    for byte in range(256):
        want = chr(byte) if byte in UNDEFINED_IN_CP1252 else bytes([byte]).decode("cp1252")
        assert decode_windows_1252(bytes([byte])) == want, hex(byte)


@given(st.binary(max_size=200))
def test_windows_1252_decodes_any_bytes_as_its_bytes_do_one_by_one(data: bytes) -> None:
    assert decode_windows_1252(data) == "".join(decode_windows_1252(bytes([b])) for b in data)


def test_labels_widen_as_the_encoding_standard_widens_them() -> None:
    assert codec_of("ISO-8859-1") == codec_of("us-ascii") == "windows-1252"
    assert codec_of("GB2312") == "gbk"
    assert codec_of("Shift_JIS") == "cp932"
    assert codec_of("utf-16") == "utf-8"  # a <meta> an ASCII prescan read is not UTF-16
    assert codec_of("koi8-r") == "koi8-r"
    with pytest.raises(EncodingRefused, match="declares charset 'x-klingon', which docqa"):
        codec_of("x-klingon")


def test_a_latin_1_page_loads_with_its_curly_quotes(tmp_path: Path) -> None:
    body = "<h1>Caf\xe9</h1><p>Fix typos (Jan Pokorn\xfd), \u201cquoted\u201d \u2013 done.</p>"
    data = page(body, '<meta charset="ISO-8859-1">').encode("cp1252")
    text = text_of(load(tmp_path, "news.html", data))
    assert "Fix typos (Jan Pokorn\xfd), \u201cquoted\u201d \u2013 done." in text


def test_an_undeclared_page_that_is_not_utf8_reads_as_windows_1252(tmp_path: Path) -> None:
    data = page("<p>na\xefve r\xe9sum\xe9 \u20ac5</p>").encode("cp1252")
    assert "na\xefve r\xe9sum\xe9 \u20ac5" in text_of(load(tmp_path, "old.html", data))


def test_other_declared_encodings(tmp_path: Path) -> None:
    jp = "<p>\u6771\u4eac\u306e\u56f3\u66f8\u9928\u306f\u6708\u66dc\u65e5\u306b\u4f11\u9928\u3067\u3059</p>"
    ru = "<p>\u0411\u0438\u0431\u043b\u0438\u043e\u0442\u0435\u043a\u0430 \u043e\u0442\u043a\u0440\u044b\u0442\u0430</p>"
    for name, head, body, codec in (
        ("jp.html", '<meta charset="Shift_JIS">', jp, "shift_jis"),
        (
            "ru.html",
            '<meta http-equiv="Content-Type" content="text/html; charset=KOI8-R">',
            ru,
            "koi8-r",
        ),
    ):
        text = text_of(load(tmp_path, name, page(body, head).encode(codec)))
        assert body[3:-4] in text


def test_utf16_with_a_byte_order_mark_loads_as_html_only(tmp_path: Path) -> None:
    html = page("<p>sixteen bits \xe9</p>")
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        assert "sixteen bits \xe9" in text_of(load(tmp_path, "w.html", bom + html.encode(codec)))
    skipped = load(tmp_path, "w.txt", b"\xff\xfe" + "plain".encode("utf-16-le"))
    assert isinstance(skipped, SkippedFile) and "binary" in skipped.reason


UTF8_DECLARED = page("<p>caf\xe9</p>", '<meta charset="utf-8">').encode("latin-1")
UNKNOWN_DECLARED = page("<p>caf\xe9</p>", '<meta charset="x-klingon">').encode("latin-1")
BAD_SHIFT_JIS = page("<p>\x81 x</p>", '<meta charset="shift_jis">').encode("latin-1")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            UTF8_DECLARED,
            (
                f"not valid UTF-8 (byte 0xe9 at offset {UTF8_DECLARED.index(0xE9)}) though it "
                "declares charset 'utf-8'; re-save it as UTF-8"
            ),
        ),
        (
            UNKNOWN_DECLARED,
            "declares charset 'x-klingon', which docqa cannot decode; re-save it as UTF-8",
        ),
        (
            BAD_SHIFT_JIS,
            (
                f"declares charset 'shift_jis', but byte 0x81 at offset {BAD_SHIFT_JIS.index(0x81)} "
                "is not cp932; re-save it as UTF-8"
            ),
        ),
    ],
)
def test_pages_that_cannot_be_read_as_declared_are_skipped_with_the_reason(
    tmp_path: Path, data: bytes, reason: str
) -> None:
    skipped = load(tmp_path, "bad.html", data)
    assert isinstance(skipped, SkippedFile)
    assert skipped.reason == reason


def test_markdown_and_text_stay_utf8_only(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"# Caf\xe9\n\nx\n")
    (tmp_path / "b.txt").write_bytes(b'<meta charset="latin1"> caf\xe9\n')
    (tmp_path / "c.html").write_bytes(page("<p>caf\xe9</p>").encode("latin-1"))
    with pytest.warns(SkippedFileWarning):
        documents, report = load_path(tmp_path)
    assert [d.source for d in documents] == ["c.html"]
    assert {s.path for s in report.skipped} == {"a.md", "b.txt"}


def test_a_utf8_page_never_takes_the_declared_encoding(tmp_path: Path) -> None:
    # mislabelled pages are common: bytes that are valid UTF-8 are read as UTF-8, so every
    # page that loaded before loads to the same chunks
    data = page("<p>caf\xe9 \u2013 \u6771</p>", '<meta charset="ISO-8859-1">').encode("utf-8")
    assert "caf\xe9 \u2013 \u6771" in text_of(load(tmp_path, "u.html", data))


_CP1252_TEXT = st.text(
    alphabet=st.characters(codec="cp1252", exclude_characters="<>&\x00\r"), min_size=1, max_size=60
).filter(str.strip)


@given(words=st.lists(_CP1252_TEXT, min_size=1, max_size=4))
def test_a_page_reads_the_same_in_windows_1252_as_in_utf8(words: list[str]) -> None:
    # the same characters, one page declared and encoded each way: the same document
    body = "".join(f"<h2>Part {i}</h2><p>{w}</p>" for i, w in enumerate(words))
    # bytes that are valid UTF-8 are read as UTF-8 first (the test above): "\xc3\xa9" is
    # "\xc3\xa9" in windows-1252 and "\xe9" in UTF-8, so such pages are not this property's
    try:
        body.encode("cp1252").decode("utf-8")
        assume(body.isascii())
    except UnicodeDecodeError:
        pass

    def doc(charset: str) -> Document:
        data = page(body, f'<meta charset="{charset}">').encode(charset)
        got = document_from_bytes("p.html", data, "0" * 64)
        assert isinstance(got, Document), getattr(got, "reason", got)
        return got

    latin, utf8 = doc("windows-1252"), doc("utf-8")
    assert latin.sections == utf8.sections
