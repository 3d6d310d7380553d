"""The terms of a definition, as the extractive answer says them: what a definition list's
labels or a paragraph's opening term name, and the first sentence of a definition with its
terms in front. Pure functions of text; :mod:`docqa.models.units` uses them to tell which
term each quoted sentence stands ``under``.
"""

from __future__ import annotations

import re

from docqa.text.documents import NO_COLON

_TERM_FIRST = re.compile(r"([^\s:][^:\n]{0,60}?): (?=\S)")  # a definition's term, then its text
# a parameter as Sphinx writes one with its type, then a dash and its description, the first
# of a list after the list's name: ``Parameters: message (Optional[str]) – The message to
# show. ... Defaults to "%(prog)s".``
_FIELD_FIRST = re.compile(
    r"(?:[A-Z][a-z]+(?: [A-Za-z]+)?: )?"  # the list's name
    r"([A-Za-z_*][\w.*]*(?: \([^\n]{1,80}?\))?) [\u2013\u2014] (?=\S)"  # name (type) –
)
_PLAIN_WORDS = re.compile(r"(?:[A-Z]?[a-z]+|[A-Z]+)(?: (?:[A-Z]?[a-z]+|[A-Z]+))*")


def defined(terms: list[str], sentence: str) -> str:
    """The first sentence of a paragraph after labels, as the definition of those terms: a
    definition list's ``%~`` / "As %d and %/, but ..." (zsh's prompt escapes), ``-f, --follow`` /
    "Follow log output" read ``"%~: As %d and %/, but ..."``."""
    head = ", ".join(terms)
    return f"{head} {sentence}" if head.endswith(NO_COLON) else f"{head}: {sentence}"


def name_of(terms: list[str]) -> str:
    """What a definition's ``terms`` name, said before any of its sentences in a reply
    (``HideCursor``, ``-f, --force``, ``%d``, ``<dir>``); ``""`` when they name no thing: plain
    words ("Note", "See also", "DESCRIPTION"), a term in brackets (a type, ``{string}`` as
    JSDoc writes one; an argument list, ``(String_Type s)``), one that ends as a sentence or a
    line of code does ("LBX protocol.", ``return list; }``) or one with no letter ("6.", a line
    of dashes)."""
    if all(_PLAIN_WORDS.fullmatch(t) for t in terms) or any(
        t.startswith(("(", "[", "{")) or t.endswith((".", ";", "}")) or not any(map(str.isalpha, t))
        for t in terms
    ):
        return ""
    return ", ".join(terms)


def own_term(first: str) -> str:
    """The term a paragraph whose first sentence is ``first`` opens with, when it names a thing
    (:func:`name_of`): a reader's ``-v: Verbose mode.``, a Sphinx parameter's ``message
    (Optional[str]) – The message to show.`` (also after its list's name, ``Parameters:``);
    ``""`` for none."""
    own = _FIELD_FIRST.match(first) or _TERM_FIRST.match(first)
    return name_of([own[1]]) if own else ""
