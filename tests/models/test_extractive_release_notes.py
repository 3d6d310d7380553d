"""Release notes in an extractive answer: quoted only when the question asks about releases or
nothing else may be quoted (docqa.models.history)."""

from __future__ import annotations

import pytest

from docqa.models.extractive import reply
from docqa.models.history import asks_about_history, is_release_note
from docqa.prompt import REFUSAL, Passage


@pytest.mark.parametrize(
    "title",
    [
        "Changes > Version 2.11.0",  # Sphinx's changes page (Jinja)
        "News > The XSLT C library for GNOME > News > v1.1.33: Jan 03 2019",  # libxslt
        "News > 1.0.11: Feb 8 2002",
        "Change history for coverage.py > Version 7.2.7 \u2014 2023-05-29",
        "Changelog > pytest 7.2.0 (2022-10-23) > Bug Fixes",  # a heading below a version
        "Release notes > 3.1",
        # a history's name: BIND's changelog and release notes, the X Video extension's
        # changes, the .xz format's version history, Docker's API history
        "Changelog > Changes prior to 9.18.29",
        "Release Notes > Notes for BIND 9.18.0 > Bug Fixes",
        "Release Notes > Known Issues",
        "X Video Extension > Changes",
        "The .xz File Format > 0. Preface > 0.3. Version History",
        "Engine API version history > v1.41 API changes",
        "ChangeLog",
        "News",
    ],
)
def test_a_version_label_or_a_historys_name_on_the_heading_path_makes_a_release_note(
    title: str,
) -> None:
    assert is_release_note(title)


@pytest.mark.parametrize(
    "title",
    [
        "",
        "Borrowing > Loan periods",
        "RandR > 7.2 Extension Requests added in version 1.3 of the extension",  # numbered
        "Foreign keys > 4.3. ON DELETE and ON UPDATE Actions",
        "What's New In Python 3.11 > Summary",  # more than one word before the number
        "Template Designer Documentation > Assignments",
        # words of a history's names in other headings
        "Bash Reference Manual > Using History Interactively",
        "A Brief History of the DNS and BIND",
        "Git > Recording Changes to the Repository",
        "Changes to the database",
        "Notes for users",
    ],
)
def test_numbered_sections_and_other_headings_are_no_release_notes(title: str) -> None:
    assert not is_release_note(title)


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("In which release did libxslt move to the MIT licence?", True),
        ("What changed in 2.11?", True),
        ("When was the namespace object added?", True),
        ("Which version deprecated autoescape=False?", True),
        ("How do I load templates from a folder on disk?", False),
        ("How do I turn on HTML autoescaping?", False),
    ],
)
def test_a_question_asks_about_releases_by_its_words_or_a_version_number(
    question: str, asks: bool
) -> None:
    assert asks_about_history(question) is asks


# Jinja's manual (python-jinja2-doc): the changes page ranked second for "load templates from a
# folder" and its entry was quoted before the page that answers
NOTE = Passage(
    "changes#version-2-4",
    "Changes > Version 2.4",
    "The environment now features a method to compile the templates from a configured loader "
    "into a zip file or folder.",
)
DOCS = Passage(
    "api#loaders",
    "API > Loaders",
    "FileSystemLoader loads templates from a folder on disk. Pass it the path of the folder.",
)


def test_a_release_note_is_not_quoted_beside_the_documentation() -> None:
    answer = reply("How do I load templates from a folder on disk?", [NOTE, DOCS])
    assert "[api#loaders]" in answer
    assert "[changes#version-2-4]" not in answer
    assert "zip file" not in answer


def test_a_release_note_is_quoted_when_the_question_asks_about_releases() -> None:
    answer = reply("Which version can compile templates from a loader into a folder?", [NOTE, DOCS])
    assert "compile the templates from a configured loader" in answer
    assert "[changes#version-2-4]" in answer


def test_a_release_note_alone_is_still_quoted() -> None:
    # nothing a user could be told is dropped: with no other passage to quote, the note answers
    answer = reply("How do I compile the templates from a loader into a zip file?", [NOTE])
    assert answer != REFUSAL
    assert "[changes#version-2-4]" in answer
    # and a documentation passage that holds too little of the question leaves it the answer
    other = Passage("api#basics", "API > Basics", "An environment holds the settings.")
    answer = reply("How do I compile the templates from a loader into a zip file?", [NOTE, other])
    assert "[changes#version-2-4]" in answer
    assert "[api#basics]" not in answer
