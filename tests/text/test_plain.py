"""Plain text: the headings a plain-text manual writes (numbered, roman, underlined), what
stays text (list items, counts, contents lists), and no line lost or renumbered; read in two
passes (``text_outline``, ``text_bodies``), the same items grouped in the same sections."""

from __future__ import annotations

from dataclasses import replace
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa.text import plain, plain_lines
from docqa.text.documents import Block, Heading, build_sections
from docqa.text.loaders import parse_document
from docqa.text.plain import numbered_heading, text_bodies, text_items, text_outline
from docqa.text.plain_lines import strip_terminal


def headings(text: str) -> list[tuple[str, int, int]]:
    return [(i.text, i.level, i.line) for i in text_items(text) if isinstance(i, Heading)]


def test_numbered_and_roman_headings_take_their_depth_as_level() -> None:
    text = (
        "The Policy\n\n1. Copyright\n\nSome text.\n\n2.1. Removal of the unversioned packages¶\n\n"
        "More.\n\n2.1.1.  Stream Header\n\nIII. Reading\n\nBody.\n"
    )
    assert headings(text) == [
        ("1. Copyright", 2, 3),
        ("2.1. Removal of the unversioned packages", 3, 7),
        ("2.1.1. Stream Header", 4, 11),
        ("III. Reading", 2, 13),
    ]


def test_what_is_not_a_heading() -> None:
    for line in (
        "3 years",  # a count, no dot
        "1. Install the package.",  # a list item: one number and a full stop
        "2. the lower-case start of a list item",
        "1.  Introduction ........................................    1",  # a contents entry
        "4.2. Compressed cat pages and,",  # ends in a comma: the line goes on
        "12. " + "Word " * 20,  # too many words
        "    7. Indented four spaces",
        "IV Missing its dot",
    ):
        assert numbered_heading(line) is None, line
        assert headings(f"Title\n\n{line}\n\nText.\n") == [], line


def test_a_section_number_of_two_parts_may_end_in_a_colon() -> None:
    # zsh's FAQ (FAQ.gz, written by yodl): its contents list the questions as "3.21.", the
    # questions themselves stand alone as "3.21:"
    faq = (
        "Archive-Name: unix-faq/shell/zsh\n\nContents:\n3.20. Why is my output duplicated?\n"
        "3.21. Why is my history not being saved?\n\n\n3.20: Why is my output duplicated?\n"
        "\n\nIt is the MULTIOS option.\n\n\n3.21: Why is my history not being saved?\n\n\n"
        "$SAVEHIST tells it how many lines to write out.\n"
    )
    assert headings(faq) == [
        ("3.20: Why is my output duplicated?", 3, 8),
        ("3.21: Why is my history not being saved?", 3, 14),
    ]
    for line in ("3: The third step", "IV: Roman", "10:30 Coffee", "2.1:No space"):
        assert numbered_heading(line) is None, line


def test_a_section_number_may_end_in_a_full_stop_or_wrap() -> None:
    assert numbered_heading("5.9. The 'r' command isn't inserting the file into the text.") == (
        "5.9. The 'r' command isn't inserting the file into the text.",
        3,
    )
    wrapped = "T\n\n4.41. How do I make substitutions in every file in a directory, or in\n      a complete directory tree?\n\nAnswer.\n"
    assert headings(wrapped) == [
        (
            (
                "4.41. How do I make substitutions in every file in a directory, or in a "
                "complete directory tree?"
            ),
            3,
            3,
        )
    ]
    # a list item does not wrap into a heading, nor does an unindented second line
    assert (
        headings("T\n\n1. Applications should use Python 3 and must not\n   be packaged.\n") == []
    )
    assert headings("T\n\n2.1. Removal of the unversioned\npackages\n") == []


def test_underlined_headings_take_levels_in_order_of_first_use() -> None:
    text = (
        "TRIGGERS\n========\n\nIntro.\n\nConcepts\n--------\n\nText.\n\n"
        "DISCUSSION\n==========\n\nShort\n-------------------\n\nLong title line here\n---\n"
    )
    assert headings(text) == [
        ("TRIGGERS", 2, 1),
        ("Concepts", 3, 6),
        ("DISCUSSION", 2, 11),
        ("Short", 3, 14),
    ]  # "---" under a 20-character title is less than half as long: text


def test_a_contents_list_stays_text_and_the_heading_written_later_heads() -> None:
    text = (
        "FAQ\n\nCONTENTS\n\n1. GENERAL\n1.1. Introduction\n\n2.3. Where can I learn?\n\n"
        "2.3.1. Books\n2.3.2. Mailing list\n\n1. GENERAL\n\nAbout it.\n\n"
        "2.3. Where can I learn?\n\nRead books.\n"
    )
    assert headings(text) == [("1. GENERAL", 2, 13), ("2.3. Where can I learn?", 3, 17)]
    doc = parse_document("faq.txt", text)
    assert [s.heading for s in doc.sections] == ["", "1. GENERAL", "2.3. Where can I learn?"]
    assert doc.title == "FAQ"
    assert doc.sections[0].blocks[-1].lines[0].text == "2.3.1. Books"  # contents: text


LINES = st.sampled_from(
    [
        "1. Intro", "2.1. Details here", "III. Reading", "Plain prose line.", "Title",
        "=====", "-----", "  wrapped tail?", "3 years", "1. A list item.", "", "", "",
        "the dae-", "mon", "mon(8) runs the daemon", "well-",
    ]
)  # fmt: skip


@given(st.lists(LINES, max_size=40))
@settings(max_examples=300, deadline=None)
def test_every_line_is_kept_once_with_its_number(lines: list[str]) -> None:
    text = "\n".join(lines)
    items = text_items(text)
    seen: list[int] = []
    for item in items:
        if isinstance(item, Heading):
            seen.append(item.line)
        else:
            assert isinstance(item, Block)
            seen.extend(line.number for line in item.lines)
    non_blank = [n for n, raw in enumerate(lines, start=1) if raw.strip()]
    assert seen == sorted(seen) and len(set(seen)) == len(seen)
    missing = set(non_blank) - set(seen)
    # only a setext underline or a wrapped title's second line is folded into its heading,
    # and a line holding nothing but the rest of a word hyphenated on the line before
    for n in missing:
        rest = lines[n - 2].endswith("-") and len(lines[n - 1].split()) == 1
        assert rest or n - 1 in {i.line for i in items if isinstance(i, Heading)}
    assert set(seen) <= set(non_blank)


def test_a_list_is_its_lead_in_and_one_block_per_item_as_markdown_gives_it() -> None:
    # dpkg's spec/protected-field.txt and triggers.txt
    text = (
        "Update the consumer package:\n * Declare an interest in the trigger.\n"
        " * Handle the trigger\n   in postinst.\n\n"
        "  * These packages are not required.\n  * Dependencies are spelled out.\n\n"
        "1. Build it.\n2. Test it.\n\n"
        "A sentence wrapped before\n- a dash stays one paragraph.\n"
    )
    blocks = [b for b in text_items(text) if isinstance(b, Block)]
    assert [b.text for b in blocks] == [
        "Update the consumer package:",
        "Declare an interest in the trigger.",
        "Handle the trigger in postinst.",
        "These packages are not required.",
        "Dependencies are spelled out.",
        "Build it.",
        "Test it.",
        "A sentence wrapped before - a dash stays one paragraph.",
    ]
    assert [line.number for line in blocks[2].lines] == [3, 4]
    markdown = parse_document("a.md", text.replace(" * ", "* ").replace("  * ", "* "))
    assert "Declare an interest in the trigger." in [b.text for b in markdown.sections[0].blocks]


def test_a_man_page_saved_as_text_is_cut_at_its_sections() -> None:
    text = (
        "LS(1)                    User Commands                    LS(1)\n\n"
        "NAME\n       ls - list directory contents\n\n"
        "SYNOPSIS\n       ls [OPTION]... [FILE]...\n\n"
        "SEE ALSO\n       Full documentation <https://www.gnu.org/software/coreutils/ls>\n\n"
        "NOTE\n\nA line in capitals alone stays text.\n\n"
        "WARNING not indented\nstays text too\n"
    )
    doc = parse_document("ls.1.txt", text)
    assert [(s.heading, s.level, s.start_line) for s in doc.sections] == [
        ("", 0, 1), ("NAME", 2, 3), ("SYNOPSIS", 2, 6), ("SEE ALSO", 2, 9),
    ]  # fmt: skip
    assert doc.sections[1].blocks[0].lines[0].text == "ls - list directory contents"
    assert doc.sections[1].blocks[0].lines[0].number == 4
    tail = [b.lines[0].text for b in doc.sections[3].blocks]
    assert tail == ["Full documentation <https://www.gnu.org/software/coreutils/ls>", "NOTE",
                    "A line in capitals alone stays text.", "WARNING not indented"]  # fmt: skip


def test_titles_at_the_margin_head_a_text_dump_and_not_a_text_written_at_the_margin() -> None:
    dump = (
        "fonts-conf\n\nName\n\n   fonts.conf -- Font configuration files\n\n"
        "Functional Overview\n\n   Fontconfig contains two modules,\n   the configuration"
        " module and the matching module.\n\n   More of it\n   on two lines.\n"
    )
    assert headings(dump) == [("Name", 2, 3), ("Functional Overview", 2, 7)]
    prose = (
        "Guide\n\nWrite the code at the margin, as prose is,\nover several lines.\n\n"
        "Typical code is just\n\n    jpeg_create_compress(&cinfo);\n    jpeg_finish(&cinfo);\n\n"
        "And prose again\nat the margin.\n"
    )
    assert headings(prose) == []  # most paragraphs sit at the margin: the lead-in is a sentence


def test_a_large_texts_lines_are_not_held_twice() -> None:
    # a paragraph's raw lines go as its block is made: the peak of the parse is the blocks,
    # not the raw lines beside them (5.5x the text before, 3.1x after, as traced here)
    import tracemalloc

    words = [f"word{i % 997}" for i in range(12)]
    paragraph = "\n".join(" ".join(words[j:] + words[:j]) for j in range(8))
    text = "\n\n".join(paragraph for _ in range(8000))
    tracemalloc.start()
    try:
        items = text_items(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(items) == 8000
    assert peak < 4 * len(text), peak / len(text)


STREAM_LINES = st.sampled_from(
    [
        "1. Intro", "2.1. Details here", "III. Reading", "Plain prose line.", "Title", "=====",
        "-----", "  wrapped tail?", "3 years", "1. A list item.", "", "", "", "   ", "NAME",
        "SEE ALSO", "       ls - list directory contents", "Synopsis", "   indented body",
        "4.41. How do I make substitutions in every file in a directory, or in",
        "      a complete directory tree?", "_\bB\x1b[1mold\x1b[0m", "a\rb", "c\x0cd", "e\x85f",
        "\u2028", "\xa0", "the dae-", "mon", "mon(8) runs the daemon", "well-", "known",
    ]
)  # fmt: skip


@given(st.lists(STREAM_LINES, max_size=40), st.sampled_from(["\n", "\r\n"]), st.integers(1, 30))
@settings(max_examples=400, deadline=None)
def test_the_outline_and_bodies_are_the_items_in_sections(
    lines: list[str], newline: str, slice_chars: int
) -> None:
    text = newline.join(lines)
    items = text_items(text)
    sections = build_sections(items)
    with patch.object(plain_lines, "SLICE", slice_chars):  # lines cut out a slice at a time
        assert list(plain_lines.lines(text)) == strip_terminal(text).splitlines()
        outline = text_outline(text)
        bodies = [tuple(blocks) for blocks in text_bodies(text, outline)]
        assert text_items(text) == items
    assert outline.sections == tuple(replace(s, blocks=()) for s in sections)
    assert bodies == [s.blocks for s in sections]
    first = items[0] if items else None
    assert outline.first == (first.text if isinstance(first, Heading) else
                             first.lines[0].text if first else "")  # fmt: skip


def test_a_sections_blocks_left_untaken_are_passed_over() -> None:
    text = "Intro words.\n\nMore words.\n\n1. Copyright\n\nMine.\n\n2. Licence\n\nFree.\n"
    outline = text_outline(text)
    bodies = text_bodies(text, outline)
    assert next(next(bodies)).lines[0].text == "Intro words."  # "More words." left
    assert [b.lines[0].text for b in next(bodies)] == ["Mine."]
    assert [[b.lines[0].text for b in body] for body in bodies] == [["Free."]]


def test_a_large_text_is_parsed_a_paragraph_at_a_time() -> None:
    # the first pass keeps the headings, the second makes a section's blocks as they are
    # taken: beside the text, the parse holds its headings and a slice's lines (measured 0.36x
    # the text here; the whole text's items are 3.1x)
    import tracemalloc

    words = [f"word{i % 997}" for i in range(12)]
    paragraph = "\n".join(" ".join(words[j:] + words[:j]) for j in range(8))
    parts = [f"{n // 20 + 1}.1. Part\n\n{paragraph}" if n % 20 == 0 else paragraph
             for n in range(16_000)]  # fmt: skip
    text = "\n\n".join(parts)
    tracemalloc.start()
    try:
        outline = text_outline(text)
        blocks = sum(1 for body in text_bodies(text, outline) for _ in body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert blocks == 16_000 and len(outline.sections) == 800
    assert peak < 0.5 * len(text), peak / len(text)


def test_a_word_hyphenated_at_a_lines_end_is_whole_again() -> None:
    # a manual page as a formatter prints it (Postfix's pages, `man postconf > postconf.txt`)
    page = """DESCRIPTION
       The  master(8) dae-
       mon(8) starts each service  of  Post-
       fix.  A daemon  runs  under  the  master;  a  well-known  port,  its  well-
       known  name,  and  a  pro-
       gram.  Options: -a, -
       b.  Postfix.
"""
    (_, block) = text_items(page)
    assert isinstance(block, Block)
    assert [line.text for line in block.lines] == [
        "The master(8) daemon(8)",  # written whole elsewhere: whole
        "starts each service of Postfix.",
        "A daemon runs under the master; a well-known port, its well-known",  # with its hyphen
        "name, and a program.",  # in neither form, in a text that hyphenates: whole
        "Options: -a, -",  # not a word
        "b. Postfix.",
    ]
    assert [line.number for line in block.lines] == [2, 3, 4, 5, 6, 7]
    # a line that held only the word's rest goes; its number with it
    (block,) = text_items("the dae-\nmon\nand the daemon")
    assert isinstance(block, Block)
    assert [(line.number, line.text) for line in block.lines] == [
        (1, "the daemon"),
        (3, "and the daemon"),
    ]


def test_a_text_that_breaks_compounds_at_their_hyphen_keeps_an_unknown_word_hyphenated() -> None:
    # text wrapped as Python's textwrap does, breaking "command-line" after its hyphen: a word
    # the text writes in neither form keeps its hyphen when compounds outnumber hyphenations
    text = "use the command-\nline flag, the side-\nband, see command-line and side-band\nand the hex-\nvalued one"
    (block,) = text_items(text)
    assert isinstance(block, Block)
    assert block.text == (
        "use the command-line flag, the side-band, see command-line and side-band and the "
        "hex-valued one"
    )


def test_the_words_written_whole_are_read_from_the_texts_first_part_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a hyphenated word decided by what the text writes within plain.EVIDENCE_CHARS
    text = "the dae-\nmon runs\n\n" + "filler words here.\n" * 20 + "\nthe daemon again"
    assert "the daemon runs" in [b.text for b in text_items(text) if isinstance(b, Block)]
    monkeypatch.setattr(plain, "EVIDENCE_CHARS", 10)  # "daemon" whole stands past the limit
    assert "the dae-mon runs" in [b.text for b in text_items(text) if isinstance(b, Block)]
