"""A reply names the section it quotes: each run from a passage opens with the passage's
heading unless the run says it already."""

from __future__ import annotations

import pytest

from docqa.models.extractive import MAX_HEADING_CHARS, heading, quote, reply
from docqa.models.units import units
from docqa.prompt import Passage
from docqa.support import claims
from docqa.types import Chunk, Hit


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("OS > os.tmpdir()", "os.tmpdir()"),
        ("tempfile", "tempfile"),  # a page's only heading
        ("Shell > 8. Redirecting I/O > 8.6. Export to CSV", "Export to CSV"),
        ("Shell > 8.6 Export to CSV", "Export to CSV"),
        ("libpng > XI. Changes to Libpng", "Changes to Libpng"),
        ("News > 1.0.11: Feb 8 2002", "1.0.11: Feb 8 2002"),  # a release, not a section number
        ("Chapter 2. Users and Groups", "Chapter 2. Users and Groups"),
        ("borg mount > Description", "borg mount › Description"),  # one plain word: its parent
        ("git-branch(1) > OPTIONS", "git-branch(1) › OPTIONS"),
        ("Archives", "Archives"),
        ("libpng-manual.txt - A description on how to use and modify libpng > Reading", "Reading"),
        ("borg > key > 2.1 Examples", "key › Examples"),
        ("FAQ > How do I tell which version I have?", "How do I tell which version I have?"),
        ("Guide > )", ""),  # no letter or digit: a heading read badly
        ("", ""),
        ("Guide > " + "word " * 30, ""),  # a paragraph read as a heading
    ],
)
def test_what_a_title_names(title: str, said: str) -> None:
    assert heading(title) == said
    assert len(said) <= MAX_HEADING_CHARS


def test_a_reference_page_s_function_is_named_by_its_heading() -> None:
    passages = [
        Passage(
            "os#os-tmpdir",
            "OS > os.tmpdir()",
            "Returns the operating system's default directory for temporary files as a string.",
        ),
        Passage("os#os-homedir", "OS > os.homedir()", "Returns the home directory of the user."),
    ]
    text = reply("Which function returns the default directory for temporary files?", passages)
    assert text.startswith(
        "os.tmpdir(): Returns the operating system's default directory for temporary files"
    )
    assert "[os#os-tmpdir]" in text


def test_a_run_that_says_its_heading_is_not_opened_by_it() -> None:
    passage = Passage(
        "path#path-basename",
        "Path > path.basename(path)",
        "The path.basename(path) method returns the last portion of a path.",
    )
    assert quote(units(passage, 0), [passage]) == (
        "The path.basename(path) method returns the last portion of a path. [path#path-basename]"
    )
    said_in_other_case = Passage("x#loans", "Loans", "All LOANS last three weeks.")
    assert quote(units(said_in_other_case, 0), [said_in_other_case]) == (
        "All LOANS last three weeks. [x#loans]"
    )


def test_a_question_heading_takes_no_colon_and_code_begins_its_own_line() -> None:
    faq = Passage("faq#q", "FAQ > How can I check it?", "Run the check command on it weekly.")
    assert quote(units(faq, 0), [faq]) == (
        "How can I check it? Run the check command on it weekly. [faq#q]"
    )
    code = Passage("q#repo", "Make a repository", "$ borg init -e repokey /path\n$ borg info /path")
    found = units(code, 0)
    assert [u.block for u in found] == [True]
    assert quote(found, [code]) == (
        "Make a repository:\n$ borg init -e repokey /path\n$ borg info /path [q#repo]"
    )


def test_each_passage_s_run_is_named_once() -> None:
    one = Passage("a#fees", "Loans > Fees", "A late book costs ten cents a day. Fines cap at five.")
    two = Passage("b#desk", "Hours > Desk", "The desk opens at nine.")
    chosen = [*units(one, 0), *units(two, 1)]
    assert quote(chosen, [one, two]) == (
        "Loans › Fees: A late book costs ten cents a day. Fines cap at five. [a#fees] "
        "Hours › Desk: The desk opens at nine. [b#desk]"
    )


def test_a_claim_naming_its_passage_s_heading_is_supported_by_it() -> None:
    chunk = Chunk(
        "os#tmp", "os#tmp", ("OS", "Temporary files directory lookup"), "os.md", 0, 1, 1,
        "Returns a string.", "0" * 64,
    )  # fmt: skip
    hit = Hit(row=0, id=chunk.id, section=chunk.section, score=1.0, chunk=chunk)
    # four of the claim's six content words are the heading's: held by the passage's title
    text = "Temporary files directory lookup: Returns a string. [os#tmp]"
    (claim,) = claims(text, [hit])
    assert claim.supported_by == ("os#tmp",)
    wrong = "Home folder of the current user: Returns a string. [os#tmp]"
    assert claims(wrong, [hit])[0].unsupported_by == ("os#tmp",)


# a protocol's request (X11's XFIXES, as Debian's text manual sets it): its name, the line of
# its arguments, and the paragraph describing it
REQUEST = (
    "HideCursor\n\nwindow: WINDOW\n\n"
    "A client sends this request to hide the cursor. The sprite stays hidden until "
    "ShowCursor.\n\nNote that cursor events are still sent."
)


def test_a_definitions_later_sentence_is_said_under_its_term() -> None:
    passage = Passage("fixes#requests", "XFIXES > Requests", REQUEST)
    found = units(passage, 0)
    assert [(u.text, u.under) for u in found if u.text != "HideCursor"] == [
        ("HideCursor: window: WINDOW", "HideCursor"),
        # the argument line is no sentence: the definition goes on into the paragraph after it
        ("A client sends this request to hide the cursor.", "HideCursor"),
        ("The sprite stays hidden until ShowCursor.", "HideCursor"),
        ("Note that cursor events are still sent.", ""),  # a paragraph of its own
    ]
    # quoted, a sentence says the request's name instead of the section's (which does not)
    assert quote([found[3]], [passage]) == (
        "HideCursor: The sprite stays hidden until ShowCursor. [fixes#requests]"
    )
    assert quote([found[4]], [passage]) == (
        "XFIXES › Requests: Note that cursor events are still sent. [fixes#requests]"
    )
    # after the term's own line, the run goes on under it; a sentence outside it is not
    # said under the term, nor is the heading said again inside the run
    assert quote([found[1], found[3], found[4]], [passage]) == (
        "XFIXES › Requests: HideCursor: window: WINDOW … The sprite stays hidden until ShowCursor. "
        "Note that cursor events are still sent. [fixes#requests]"
    )


@pytest.mark.parametrize(
    ("terms", "under"),
    [
        ("SelectCursorInput", "SelectCursorInput"),
        ("-f\n\n--force", "-f, --force"),
        ("Note", ""),  # plain words name no thing
        ("See also", ""),
        ("DESCRIPTION", ""),
        ("<dir>", "<dir>"),  # fontconfig's element
        ("{string}", ""),  # a type (JSDoc's), not a name
        ("(String_Type s)", ""),  # an argument list
        ("LBX protocol.", ""),  # ends as a sentence does
        ("return list; }", ""),  # a line of code
        ("6.", ""),  # no letter
        ("-----\n\nstatvfs", ""),  # a rule above a name
    ],
)
def test_which_terms_name_what_they_define(terms: str, under: str) -> None:
    text = f"The requests are these.\n\n{terms}\n\nIt does one thing. It does it well."
    found = units(Passage("a#b", "A", text), 0)
    assert found[-1].text == "It does it well."
    assert found[-1].under == under


def test_a_reply_names_the_request_it_quotes() -> None:
    passage = Passage("fixes#requests", "XFIXES > Requests", REQUEST)
    answer = reply("How long does the sprite stay hidden?", [passage])
    assert answer.startswith("HideCursor: ")
    assert "The sprite stays hidden until ShowCursor." in answer
