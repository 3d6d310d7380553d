"""The extractive answer: whole sentences, commands kept with the sentence introducing them,
at most three units in prompt order, nothing from a passage that holds too little of the
question."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from docqa.models.extractive import (
    FEATURES,
    MAX_UNITS,
    WEIGHTS,
    candidates,
    choose,
    pick,
    quote,
    reply,
)
from docqa.models.units import MAX_BLOCK_CHARS, is_label, units
from docqa.prompt import REFUSAL, Passage
from docqa.text.tokenize import content_words, tokenize


def p(pid: str, text: str) -> Passage:
    return Passage(pid, "", text)


def test_a_continuation_window_drops_the_sentence_it_starts_inside() -> None:
    text = "and they keep showing up in the output of status. Ignored files are listed apart."
    assert [u.text for u in units(p("git#ignoring-p2", text), 0)] == [
        "Ignored files are listed apart."
    ]
    # the first window of a section starts where the section starts: nothing is dropped
    first = [u.text for u in units(p("git#ignoring", text), 0)]
    assert first[0].startswith("and they keep")


def test_a_sentence_cut_at_the_window_end_is_dropped() -> None:
    text = "Loans last three weeks. You can renew an item twice if nobody"
    assert [u.text for u in units(p("loans#periods", text), 0)] == ["Loans last three weeks."]
    # a last line that ends like a sentence, a code line or a closing bracket stays
    assert units(p("a#b", "Call it:\n\nprint(x)"), 0)[-1].text.endswith("print(x)")
    assert units(p("a#b", "See the list (below)"), 0)[-1].text == "See the list (below)"


def test_a_command_stays_with_the_sentence_that_introduces_it() -> None:
    text = (
        "To undo the last commit but keep its changes, run:\n\n"
        "    git reset --soft HEAD~1\n    git status\n\n"
        "The changes stay staged."
    )
    found = units(p("git#undo", text), 0)
    assert found[0].text == (
        "To undo the last commit but keep its changes, run:\n"
        "    git reset --soft HEAD~1\n    git status"
    )
    assert [u.text for u in found[1:]] == ["The changes stay staged."]
    answer = reply("How do I undo the last commit but keep the changes?", [p("git#undo", text)])
    assert "git reset --soft HEAD~1\n    git status" in answer
    assert answer.endswith("[git#undo]")
    # the sentence after the command starts a line of its own: not read as the command's words
    assert "    git status\nThe changes stay staged. [git#undo]" in answer


REDIRECTION = (
    "Note that the order of redirections is significant. For example, the command\n\n"
    "ls > dirlist 2>&1\n\n"
    "directs both standard output and standard error to the file dirlist, while the command\n\n"
    "ls 2>&1 > dirlist\n\n"
    "directs only the standard output to file dirlist. Redirections are read left to right."
)


def test_a_sentence_written_around_a_command_is_one_unit() -> None:
    """A man page's "the command" / ``ls > dirlist 2>&1`` / "directs both ...": quoted as the
    one sentence it is, never from "directs only ..." on."""
    found = [u.text for u in units(p("bash#redirection", REDIRECTION), 0)]
    assert found == [
        "Note that the order of redirections is significant.",
        (
            "For example, the command\nls > dirlist 2>&1\ndirects both standard output and"
            " standard error to the file dirlist, while the command\nls 2>&1 > dirlist\ndirects"
            " only the standard output to file dirlist."
        ),
        "Redirections are read left to right.",
    ]
    # a window that begins inside that sentence quotes none of it
    tail = "ls 2>&1 > dirlist\n\ndirects only the standard output. Redirections are read in order."
    assert [u.text for u in units(p("bash#redirection-p2", tail), 0)] == [
        "Redirections are read in order."
    ]
    # a page that begins with the command: it is quoted with the description going on from it
    assert next(u.text for u in units(p("bash#redirection", tail), 0)) == (
        "ls 2>&1 > dirlist\ndirects only the standard output."
    )
    answer = reply("How do I redirect standard output and standard error to a file?",
                   [p("bash#redirection", REDIRECTION)])  # fmt: skip
    assert "the command\nls > dirlist 2>&1\ndirects both" in answer
    assert not answer.startswith("directs")


def test_a_list_of_lower_case_items_is_no_sentence_around_commands() -> None:
    """rsyslog's "Processing Principles": items that begin in lower case and end with no
    stop were joined as one sentence written around commands, the whole list one unit."""
    items = [
        "a rule consists of a filter and an action list",
        "an action list contains one or many actions",
        "inside an action list no further filters are possible",
        (
            "actions consist of the action call itself (e.g. “:omusrmsg:”) as well as all"
            " action-defining configuration statements ($Action… directives)"
        ),
        "rules are evaluated in sequence. No rules are skipped.",
    ]
    found = [u.text for u in units(p("a#b", "\n\n".join(items)), 0)]
    assert found == [*items[:4], "rules are evaluated in sequence.", "No rules are skipped."]
    # a command inside a sentence, and a term its description goes on from, are still joined
    term = "'-i, --case-insensitive'\n\ninstructs flex to generate a case-insensitive scanner."
    assert [u.text for u in units(p("a#b", term), 0)] == [term.replace("\n\n", "\n")]
    command = "Show it with the command\n\ngit log --oneline --all\n\nwhich lists each commit."
    assert [u.text for u in units(p("a#b", command), 0)] == [command.replace("\n\n", "\n")]
    # a list of names written on one line is no prose (man-db's manual)
    names = (
        "The interfaces are known as\n\no ndbm (UNIX) o gdbm (GNU) o btree (Berkeley DB)\n\n"
        "and man-db uses one at a time."
    )
    assert [u.text for u in units(p("a#b", names), 0)] == [names.replace("\n\n", "\n")]
    # code whose comments are words is code (rsyslog's log rotation tutorial)
    commented = (
        "Putting the following directive\n\n# start log rotation via outchannel\n"
        "*.* :omfile:$log_rotation\n\nto rsyslog.conf instruct rsyslog to log everything."
    )
    assert [u.text for u in units(p("a#b", commented), 0)] == [commented.replace("\n\n", "\n")]


def test_a_sentence_that_cannot_end_where_it_stops_ends_in_the_command_below() -> None:
    """R's manual (Texinfo): "the command is" / ``> help(solve)`` / "An alternative is": the
    command was a unit of its own and the sentence stopped at "is"."""
    text = (
        "To get help on a function, for example solve, the command is\n\n> help(solve)\n\n"
        "An alternative is\n\n> ?solve\n\nQuotes are needed for special characters.\n\n"
        '> help("[[")\n\nEither form of quote mark may be used.'
    )
    assert [u.text for u in units(p("R-intro#help", text), 0)] == [
        "To get help on a function, for example solve, the command is\n> help(solve)",
        "An alternative is\n> ?solve",
        "Quotes are needed for special characters.",
        '> help("[[")',  # a command typed at a prompt is no term the next paragraph defines
        "Either form of quote mark may be used.",
    ]
    answer = reply("How do I get help on a function?", [p("R-intro#help", text)])
    assert "the command is\n> help(solve)" in answer
    # a sentence stopping on a noun before a command typed at a prompt ends in the command
    vector = "To set up a vector x, use the R command\n\n> x <- c(10.4, 5.6)\n\nThis assigns it."
    assert [u.text for u in units(p("R-intro#vectors", vector), 0)] == [
        "To set up a vector x, use the R command\n> x <- c(10.4, 5.6)",
        "This assigns it.",
    ]
    # a sentence that stops on a noun (a full stop left out) does not take the next option's
    # name along (CMake's ctest manual)
    options = (
        "It can also be enabled by the CTEST_OUTPUT_ON_FAILURE environment variable\n\n"
        "--stop-on-failure\n\nStop running the tests when the first failure happens."
    )
    assert next(u.text for u in units(p("ctest#run", options), 0)) == (
        "It can also be enabled by the CTEST_OUTPUT_ON_FAILURE environment variable"
    )


def test_a_block_is_joined_only_inside_a_sentence() -> None:
    """A sentence that ended, a next block that starts a sentence or is a table, or a block
    too long to quote: each stays a unit of its own."""
    ended = "Run the command.\n\nls -l\n\nlists the files."
    assert next(u.text for u in units(p("a#b", ended), 0)) == "Run the command."
    capital = "For example, the command\n\nls -l\n\nThe files are listed."
    assert "The files are listed." in [u.text for u in units(p("a#b", capital), 0)]
    table = "The rows of\n\nthe list\n\n| a | b |\n| 1 | 2 |"
    assert not any("\n| a" in u.text for u in units(p("a#b", table), 0))
    long = "For example, the code\n\n" + "x = 1; " * 100 + "\n\nsets x a hundred times."
    assert "sets x a hundred times." in [u.text for u in units(p("a#b", long), 0)]
    # a single word begins no sentence: a code block's caption (Flask's tutorial, Sphinx)
    caption = "flaskr/db.py\n\ndef get_db():\n    return g.db\n\ng is a special object."
    assert [u.text for u in units(p("a#b", caption), 0)] == [
        "flaskr/db.py",
        "def get_db():\n    return g.db",
        "g is a special object.",
    ]
    # a sentence ending in ":" with its command is whole: the next paragraph is not joined to
    # it though the block after that starts in lower case
    shell = (
        "For example:\n\nsqlite> .mode list\n\n"
        "The output can go to a command instead:\n\nsqlite> .once | open -f"
    )
    assert [u.text for u in units(p("cli#output", shell), 0)] == [
        "For example:\nsqlite> .mode list",
        "The output can go to a command instead:\nsqlite> .once | open -f",
    ]


# PostgreSQL's synopsis of ALTER VIEW (postgresql-doc-15), cut down: a code block standing alone
SYNOPSIS = (
    "ALTER VIEW [ IF EXISTS ] name ALTER [ COLUMN ] column_name SET DEFAULT expression\n"
    "ALTER VIEW [ IF EXISTS ] name RENAME [ COLUMN ] column_name TO new_column_name\n"
    "ALTER VIEW [ IF EXISTS ] name SET ( view_option_name [, ... ] )"
)


def test_a_block_of_code_alone_is_one_unit_with_its_lines() -> None:
    """Several lines that are no table are code (prose is one line a paragraph): quoted whole
    with its line breaks, never cut at the "..." or "." inside it; too long, not at all."""
    text = f"The forms of the command.\n\n{SYNOPSIS}\n\nSee ALTER TABLE."
    assert [u.text for u in units(p("sql-alterview#synopsis", text), 0)] == [
        "The forms of the command.",
        SYNOPSIS,
        "See ALTER TABLE.",
    ]
    script = "cmake_minimum_required(VERSION 3.5)\nproject(demo)\nset(X 1)"
    tail = "--   2 | ccc | 3\n--   3 | bbb | 2\nSELECT x FROM t0;"  # starts as a list item would
    for first in (script, tail):  # a continuation's first block may be the tail of a longer one
        assert [u.text for u in units(p("a#b-p2", f"{first}\n\nIt sets X."), 0)] == ["It sets X."]
        assert next(u.text for u in units(p("a#b", f"{first}\n\nIt sets X."), 0)) == first
    assert [u.text for u in units(p("a#b", f"Ends with code.\n\n{script}"), 0)][-1] == script
    long = "\n".join(f"ALTER VIEW v{i} RENAME COLUMN a TO b;" for i in range(30))
    assert [u.text for u in units(p("a#b", f"Rename it.\n\n{long}"), 0)] == ["Rename it."]
    answer = reply("How do I rename a view column?", [p("sql-alterview#synopsis", SYNOPSIS)])
    assert answer == f"{SYNOPSIS} [sql-alterview#synopsis]"


# HAProxy's manual sets each keyword's description in a <pre>, wrapped at 80 columns
WRAPPED = (
    "Set the maximum inactivity time on the client side. The inactivity timeout\n"
    "applies when the client is expected to acknowledge or send data. In HTTP\n"
    "mode, this timeout is particularly important to consider during the first phase."
)


def test_prose_wrapped_by_hand_is_cut_into_sentences_not_quoted_as_code() -> None:
    found = [u.text for u in units(p("configuration#timeout-client", WRAPPED), 0)]
    assert found == [
        "Set the maximum inactivity time on the client side.",
        "The inactivity timeout applies when the client is expected to acknowledge or send data.",
        "In HTTP mode, this timeout is particularly important to consider during the first phase.",
    ]
    # code with a comment in prose stays code: its symbols
    script = "# Set the mode first. Then the file.\nset(CMAKE_BUILD_TYPE Debug)\nproject(demo)"
    assert [u.text for u in units(p("a#b", f"Do this.\n\n{script}"), 0)] == ["Do this.", script]


# pytest's reference prints ``pytest --help`` in a <pre>: an option table wrapped by hand
HELP = """usage: pytest [options] [file_or_dir] [file_or_dir] [...]
general:
  -k EXPRESSION         Only run tests which match the given substring
                        expression. An expression is a Python evaluatable
                        expression where all names are substring-matched.
  --markers             show markers (builtin, plugin and per-project ones).
  -x, --exitfirst       Exit instantly on first error or failed test
  --fixtures, --funcargs
                        Show available fixtures, sorted by plugin appearance
  --lf, --last-failed   Rerun only the tests that failed at the last run (or
                        all if none failed)"""


def test_an_option_table_wrapped_by_hand_gives_each_option_its_own_sentences() -> None:
    found = [u.text for u in units(p("reference#command-line-flags", HELP), 0)]
    assert found == [
        "usage: pytest [options] [file_or_dir] [file_or_dir] [...]",
        "general:",
        "-k EXPRESSION Only run tests which match the given substring expression.",
        "An expression is a Python evaluatable expression where all names are substring-matched.",
        "--markers show markers (builtin, plugin and per-project ones).",
        "-x, --exitfirst Exit instantly on first error or failed test",
        "--fixtures, --funcargs Show available fixtures, sorted by plugin appearance",
        (
            "--lf, --last-failed Rerun only the tests that failed at the last run (or all if"
            " none failed)"
        ),
    ]
    answer = reply("How do I run only the tests that failed last time?",
                   [p("reference#command-line-flags", HELP)])  # fmt: skip
    assert "--lf, --last-failed Rerun only the tests that failed at the last run" in answer
    # hanging indents without a table: each keyword over its indented description (HAProxy)
    keywords = (
        "maxconn <number>\n  Sets the maximum number of concurrent connections. It is\n"
        "  equivalent to the command-line argument.\nmaxconnrate <number>\n"
        "  Sets the maximum per-process number of connections per second."
    )
    assert [u.text for u in units(p("configuration#maxconn", keywords), 0)] == [
        "maxconn <number> Sets the maximum number of concurrent connections.",
        "It is equivalent to the command-line argument.",
        "maxconnrate <number> Sets the maximum per-process number of connections per second.",
    ]


def test_a_block_of_code_alone_begins_its_own_line_in_a_reply() -> None:
    text = (
        "To protect the directory, use the following directives in its section.\n\n"
        'AuthType Basic\nAuthName "Restricted Files"\nRequire user rbowen'
    )
    answer = reply(
        "Which directives protect a directory?", [p("howto/auth#getting-it-working", text)]
    )
    assert answer == (
        "To protect the directory, use the following directives in its section.\n"
        'AuthType Basic\nAuthName "Restricted Files"\nRequire user rbowen'
        " [howto/auth#getting-it-working]"
    )


def test_a_table_of_fields_reads_as_its_fields() -> None:
    # the Apache manual's table over each directive (its first column: th cells ending in ":")
    table = (
        "| Description: | Amount of time the server will wait for subsequent requests |\n"
        "| Syntax: | KeepAliveTimeout num[ms] |\n"
        "| Default: | KeepAliveTimeout 5 |"
    )
    assert [u.text for u in units(p("mod/core#keepalivetimeout-directive", table), 0)] == [
        "Description: Amount of time the server will wait for subsequent requests.",
        "Syntax: KeepAliveTimeout num[ms].",
        "Default: KeepAliveTimeout 5.",
    ]
    # a table with a header row still names its columns
    assert units(p("a#b", "| Code | Meaning |\n| RNW-409 | Limit reached |"), 0)[0].text == (
        "Code: RNW-409; Meaning: Limit reached."
    )


def test_the_sentence_after_the_best_one_comes_along() -> None:
    text = (
        "Several functions make identifiers. "
        "If all you want is a unique ID, call uuid1() or uuid4(). "
        "uuid4() creates a random UUID. Note that uuid1() uses the network address."
    )
    answer = reply("How do I get a unique ID?", [p("uuid#functions", text)])
    assert answer == (
        "If all you want is a unique ID, call uuid1() or uuid4(). uuid4() creates a random UUID."
        " [uuid#functions]"
    )


def test_a_label_is_never_quoted_alone() -> None:
    """ "See also", "6." or a defined term "-f" is a label, not a sentence: never quoted on its
    own, a label holding a question word is no answer; after a finished sentence it is the term
    the next paragraph defines, quoted with that paragraph's first sentence."""
    text = (
        "The -e option makes the shell exit when a command fails.\n\n-f\n\n"
        "Filename expansion is turned off.\n\nSee also\n\nShell options are listed apart."
    )
    assert [u.text for u in units(p("bash#set", text), 0) if not is_label(u)] == [
        "The -e option makes the shell exit when a command fails.",
        "-f: Filename expansion is turned off.",
        "See also: Shell options are listed apart.",
    ]
    answer = reply("What does the -e option do when a command fails?", [p("bash#set", text)])
    assert answer.startswith("The -e option makes the shell exit when a command fails.")
    assert "-f: Filename expansion is turned off." in reply(
        "What does the -f option do?", [p("bash#set", text)]
    )
    assert reply("Which options are there? See also", [p("a#b", "See also\n\nNote")]) == REFUSAL


def test_terms_defined_by_the_paragraph_after_them() -> None:
    # zsh's prompt escapes (a definition list): two terms share one definition
    escapes = "The return status.\n\n%d\n\n%/\n\nCurrent working directory. It may be cut."
    assert [u.text for u in units(p("zsh#prompt", escapes), 0) if not is_label(u)] == [
        "The return status.",
        "%d, %/: Current working directory.",
        "It may be cut.",
    ]
    # a term ending in punctuation takes no colon after it (libjpeg's numbered steps)
    step = "Read the scanlines.\n\njpeg_finish_decompress(...);\n\nAfter all data is read, call it."
    assert "jpeg_finish_decompress(...); After all data is read, call it." in [
        u.text for u in units(p("libjpeg#steps", step), 0)
    ]
    # a field ("Returns: {string}") defines nothing; nor does a command inside a sentence
    field = "Gets the name.\n\nReturns: {string}\n\nThe directory for temporary files."
    assert "The directory for temporary files." in [u.text for u in units(p("os#a", field), 0)]
    command = "For example, the command\n\nls -l\n\nThe files are listed."
    assert "The files are listed." in [u.text for u in units(p("a#b", command), 0)]
    # a label that begins a sentence written around a command defines no paragraph after it
    # (ffmpeg's manual: "For example: For each stream, the last matching c option ...")
    around = "For example\n\nffmpeg -i IN OUT\n\nencodes all streams.\n\nFor each stream, one."
    assert [u.text for u in units(p("ffmpeg#main", around), 0)] == [
        "For example\nffmpeg -i IN OUT\nencodes all streams.",
        "For each stream, one.",
    ]


def test_a_table_opening_a_continuation_window_has_no_header_row() -> None:
    # the rest of Python's LogRecord attributes table, cut by the window before: its first
    # row was read as the header ("filename: levelname; %(filename)s: %(levelname)s; ...") and
    # the row after it dropped as a sentence's tail
    rest = (
        "| filename | %(filename)s | Filename portion of pathname. |\n"
        "| funcName | %(funcName)s | Name of function containing the logging call. |\n"
        "| levelno | %(levelno)s | Numeric logging level for the message. |"
    )
    assert [u.text for u in units(p("logging#logrecord-attributes-p2", rest), 0)] == [
        "filename; %(filename)s; Filename portion of pathname.",
        "funcName; %(funcName)s; Name of function containing the logging call.",
        "levelno; %(levelno)s; Numeric logging level for the message.",
    ]
    # a table in the first window keeps its header
    whole = "| Attribute | Format |\n| filename | %(filename)s |"
    assert [u.text for u in units(p("logging#logrecord-attributes", whole), 0)] == [
        "Attribute: filename; Format: %(filename)s."
    ]


def test_units_from_several_passages_are_cited_in_prompt_order() -> None:
    passages = [
        p("fines#overdue", "Overdue DVDs cost $1.00 a day. Cats are not fined."),
        p("loans#periods", "DVDs are lent for 7 days. Board games for 14 days."),
    ]
    answer = reply("How long are DVDs lent and what is the overdue fine?", passages)
    assert answer.index("[fines#overdue]") < answer.index("[loans#periods]")
    assert "$1.00" in answer and "7 days" in answer


def test_at_most_three_units_in_the_order_of_the_prompt() -> None:
    text = " ".join(f"Word{i} alpha beta gamma delta epsilon{i}." for i in range(8))
    chosen = choose("alpha beta gamma delta epsilon1 epsilon2 epsilon5 epsilon6", [p("a#b", text)])
    assert len(chosen) == MAX_UNITS
    assert [u.place for u in chosen] == sorted(u.place for u in chosen)


def test_a_passage_holding_too_little_of_the_question_is_not_quoted() -> None:
    passages = [
        p("a#renewals", "You can renew a loan online, at a kiosk or by phone."),
        p("b#phones", "Phones must be silent in the reading room."),
    ]
    # "phone" is a sixth of the question's words but weighs less than 0.15 of it (a word two
    # units hold weighs less than one that one unit or none holds)
    answer = reply("Can I renew a loan by phone, online, at a kiosk or the desk?", passages)
    assert "[b#phones]" not in answer
    assert "[a#renewals]" in answer


def test_a_passage_is_judged_with_its_title() -> None:
    # fish's manual: the titles ask the question, the texts say only "greeting"; judged by
    # their texts alone no passage held 0.15 of the question's weight, and the answer was the
    # refusal
    faq = Passage(
        "faq#how-do-i-change-the-greeting-message",
        "Frequently asked questions > How do I change the greeting message?",
        "Change the value of the variable fish_greeting or create a fish_greeting function. "
        "For example, to remove the greeting use:\n\nset -U fish_greeting\n\n"
        "Or if you prefer not to use a universal variable, use:\n\nset -g fish_greeting\n\n"
        "in config.fish.",
    )
    example = Passage(
        "cmds/fish_greeting#example",
        "fish_greeting - display a welcome message in interactive shells > Example",
        "To just empty the text, with the default greeting function:\n\nset -U fish_greeting\n\n"
        "or set -g fish_greeting in config.fish.\n\nA simple greeting:\n\n"
        "function fish_greeting\n    echo Hello friend!\nend",
    )
    question = "How do I turn off the greeting message at login?"
    answer = reply(question, [faq, example])
    assert (
        "set -U fish_greeting" in answer and "[faq#how-do-i-change-the-greeting-message]" in answer
    )
    # the same texts without titles hold too little of the question: the title is what counts
    untitled = [Passage(x.id, "", x.text) for x in (faq, example)]
    assert reply(question, untitled) == REFUSAL


def test_a_passage_is_judged_by_words_weighed_over_the_passages() -> None:
    # R's "The plot() function": every unit holds "plot", none "scatter" (the text says
    # "scatterplot"); weighed over the units "plot" was next to nothing and the answer refused
    plot = Passage(
        "R-intro#the-plot-function",
        "Graphical procedures > The plot() function",
        "One of the most used plotting functions is the plot() function.\n\n"
        "plot(x, y): If x and y are vectors, plot(x, y) produces a scatterplot of y against x."
        "\n\nplot(x): If x is a time series, this produces a time-series plot. If x is a "
        "vector, it produces a plot of its values.\n\nplot(f): The first form generates a "
        "bar plot of f.\n\nplot(df): The first form plots the variables of a data frame. The "
        "third form plots y against every object named in expr.",
    )
    pairs = Passage(
        "R-intro#multivariate",
        "Graphical procedures > Displaying multivariate data",
        "R provides two useful functions for multivariate data. The command pairs(X) plots "
        "every column of X against every other column.",
    )
    answer = reply("How do I make a scatter plot?", [plot, pairs])
    assert "plot(x, y) produces a scatterplot of y against x." in answer
    # a passage holding only a word that every passage holds, of a longer question, is not
    # quoted from
    assert reply("How do I make a scatter plot with colour legends?", [plot, pairs]) == REFUSAL


def test_no_shared_word_means_the_refusal() -> None:
    assert reply("zebras?", [p("a#b", "The library opens at nine.")]) == REFUSAL
    assert reply("zebras?", []) == REFUSAL
    assert reply("the of and?", [p("a#b", "The library opens at nine.")]) == REFUSAL


@given(st.text(max_size=400), st.text(max_size=60), st.integers(1, 4))
def test_every_quoted_unit_is_text_of_its_passage(text: str, question: str, n: int) -> None:
    pid = f"doc#sec-p{n}"
    for unit in choose(question, [p(pid, text)]):
        words = unit.text.split()
        assert words and all(w in text for w in words)


def test_a_page_reference_ends_no_sentence() -> None:
    # gnuplot's PDF manual (LaTeX): "see multiple keys (p. 123)" was cut after "(p."
    text = (
        "To place titles elsewhere, see multiple keys (p. 123). When inside, keys move. Up p. Next."
    )
    assert [u.text for u in units(p("gnuplot.pdf#key", text), 0)] == [
        "To place titles elsewhere, see multiple keys (p. 123).",
        "When inside, keys move.",
        "Up p.",  # a "p." before no page number ends its sentence
        "Next.",
    ]


def test_a_closing_bracket_or_quote_stays_with_its_sentence() -> None:
    # Lua's manual: "(So, there is no n such that ... of that table.)" lost its ")"
    text = '(So, the table is no sequence.) He said "Stop." Then it ends.'
    assert [u.text for u in units(p("manual#length", text), 0)] == [
        "(So, the table is no sequence.)",
        'He said "Stop."',
        "Then it ends.",
    ]


def test_a_term_is_quoted_with_the_description_going_on_from_it() -> None:
    # flex's manual (Texinfo): the answer quoted "instructs flex to generate a case-insensitive
    # scanner." without the option it describes
    text = (
        "'-i, --case-insensitive, %option case-insensitive'\n\n"
        "instructs flex to generate a case-insensitive scanner. The case is ignored.\n\n"
        "'-l, --lex-compat'\n\nAnother paragraph.\n\nOne more"
    )
    term = "'-i, --case-insensitive, %option case-insensitive'"
    assert [u.text for u in units(p("flex#options", text), 0)] == [
        f"{term}\ninstructs flex to generate a case-insensitive scanner.",
        "The case is ignored.",
        "'-l, --lex-compat'",
        "Another paragraph.",
    ]


def test_code_starting_in_lower_case_goes_on_with_no_sentence() -> None:
    # lighttpd's manual: "if the name starts with a '|' ... output" / "e.g.:" / the example;
    # the example was read as the sentence going on, and quoted as one line: the sentence
    # goes on in the lead-in, which takes its example along, lines kept
    code = 'accesslog.filename = "/var/log/lighttpd.log"\n$HTTP["host"] == "mail.example.org" {\n}'
    text = f"if the name starts with a bar it is taken as a process\n\ne.g.:\n\n{code}\n\nDone."
    assert [u.text for u in units(p("accesslog#options", text), 0)] == [
        f"if the name starts with a bar it is taken as a process\ne.g.:\n{code}",
        "Done.",
    ]
    # a term with code under it: the code stands alone, its lines kept
    text = f"'--log'\n\n{code}\n\nMore follows."
    assert [u.text for u in units(p("a#b", text), 0)] == ["'--log'", code, "More follows."]
    # a lead-in that starts a sentence of its own takes the code by itself
    text = f"if the name starts with a bar it is taken as a process\n\nFor example:\n\n{code}"
    assert [u.text for u in units(p("a#b", text), 0)][-1] == f"For example:\n{code}"


HOOK = 'add_custom_command(\n  TARGET app POST_BUILD\n  COMMAND hasher "$<TARGET_FILE:app>")'


def test_a_sentence_going_on_after_the_code_it_introduces_is_one_unit() -> None:
    """CMake's "For example, the code:" / the code / "will run hasher ...": the sentence goes
    on after its code; quoting "will run hasher ..." alone named neither the event nor the
    command (the fact was in the code)."""
    text = (
        "A post-build event may process a binary after linking. For example, the code:\n\n"
        f"{HOOK}\n\nwill run hasher to write a hash next to the executable after linking. "
        "The hash is checked at load time.\n\nThe other events are listed below."
    )
    found = [u.text for u in units(p("cmake#build-events", text), 0)]
    assert found == [
        "A post-build event may process a binary after linking.",
        (
            f"For example, the code:\n{HOOK}\nwill run hasher to write a hash next to the"
            " executable after linking."
        ),
        "The hash is checked at load time.",
        "The other events are listed below.",
    ]
    # the sentence going on may introduce code in turn: it takes that along too
    lock = (
        "The preferred way is a with statement:\n\nwith lock:\n    work()\n\n"
        "which is equivalent to:\n\nlock.acquire()\ntry:\n    work()\nfinally:\n"
        "    lock.release()\n\nLocks are fair."
    )
    assert [u.text for u in units(p("asyncio#lock", lock), 0)] == [
        (
            "The preferred way is a with statement:\nwith lock:\n    work()\nwhich is"
            " equivalent to:\nlock.acquire()\ntry:\n    work()\nfinally:\n    lock.release()"
        ),
        "Locks are fair.",
    ]
    answer = reply(
        "How do I run a program right after my executable is linked?",
        [p("cmake#build-events", text)],
    )
    assert "POST_BUILD" in answer
    assert "\nwill run hasher" in answer
    assert not re.search(r"(?:^|: )will run", answer)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # a sentence of its own that starts with a name, not a word going on with the one above
        (f"For example:\n\n{HOOK}", "git status shows the files that changed."),
        (f"For example:\n\n{HOOK}", "group() returns the part that matched."),
        # a list's item is no code: what follows it is not taken into the lead-in's sentence
        ("The context holds the following:\n\na pointer to the stylesheet", "and a stack."),
    ],
)
def test_only_prose_starting_with_a_stop_word_goes_on_after_code(before: str, after: str) -> None:
    found = [u.text for u in units(p("a#b", f"{before}\n\n{after}"), 0)]
    assert found[-1] == after


def test_a_list_going_on_after_its_lead_in_is_quoted_to_its_last_item() -> None:
    """SQLite's "Foreign key DML errors are reported if:" / "The parent table does not exist,
    or" / ...: the lead-in took its first item only, and the reply ended on "or"."""
    text = (
        "Errors are reported if:\n\nThe parent table does not exist, or\n\n"
        "The parent key columns named in the constraint do not exist, or\n\n"
        "The parent key columns are not the primary key.\n\nThis is checked at run time."
    )
    assert [u.text for u in units(p("fk#errors", text), 0)] == [
        (
            "Errors are reported if:\nThe parent table does not exist, or\nThe parent key"
            " columns named in the constraint do not exist, or\nThe parent key columns are not"
            " the primary key."
        ),
        "This is checked at run time.",
    ]
    # items ending in "," go on as well; what follows the last item is a sentence of its own
    parts = "The frame has parts:\n\nA frame type,\n\nA starting boundary,\n\nAn end.\n\nMore."
    assert [u.text for u in units(p("w#f", parts), 0)] == [
        "The frame has parts:\nA frame type,\nA starting boundary,\nAn end.",
        "More.",
    ]


def test_lines_of_code_ending_in_a_semicolon_are_no_list_going_on() -> None:
    text = "The calls are:\n\nx = f(1);\n\ny = g(2);\n\nDone here."
    assert [u.text for u in units(p("a#b", text), 0)] == [
        "The calls are:\nx = f(1);",
        "y = g(2);",
        "Done here.",
    ]
    # a list longer than a unit may quote stops where it would grow past MAX_BLOCK_CHARS
    item = "an item of the list that goes on and on with many words in it,"
    long = "The list is:\n\n" + "\n\n".join([item] * 20) + "\n\nThe end."
    first = units(p("a#b", long), 0)[0].text
    assert first.startswith("The list is:\n") and first.count(item) < 20
    assert len(first) - len("The list is:\n") <= MAX_BLOCK_CHARS + 20


def test_a_sentence_ending_in_a_colon_takes_a_caption_and_its_code_along() -> None:
    # the Rust book: "This code ... will fail:" / "Filename: src/main.rs" / the code, which
    # the answer left out
    text = (
        "This code that makes two mutable references will fail:\n\n"
        "Filename: src/main.rs\n\n"
        "fn main() {\n    let r1 = &mut s;\n    let r2 = &mut s;\n}\n\n"
        "Here is the error:\n\nFilename: a caption of more than six words here\n\n"
        "error[E0499]: cannot borrow\n  --> src/main.rs:5:14"
    )
    found = [u.text for u in units(p("book#refs", text), 0)]
    assert found[0] == (
        "This code that makes two mutable references will fail:\nFilename: src/main.rs\n"
        "fn main() {\n    let r1 = &mut s;\n    let r2 = &mut s;\n}"
    )
    assert found[1] == "Here is the error:\nFilename: a caption of more than six words here"


def test_a_caption_of_code_too_long_to_quote_is_not_quoted_without_it() -> None:
    # the Rust book, its hidden lines dropped: "... without losing any functionality:" /
    # "Filename: src/main.rs" / 17 lines of code; the reply ended in the caption alone
    code = "\n".join(f"    let word{i} = first_word(&my_string[0..{i}]);" for i in range(17))
    text = (
        "Defining a function to take a string slice makes our API more general:\n\n"
        f"Filename: src/main.rs\n\nfn main() {{\n{code}\n}}\n\n"
        "String slices, as you might imagine, are specific to strings."
    )
    found = [u.text for u in units(p("book#slices", text), 0)]
    assert found[0] == "Defining a function to take a string slice makes our API more general:"
    assert not any(t.startswith("Filename") or "\nFilename" in t for t in found)


def test_a_title_over_a_block_of_code_is_quoted_with_it() -> None:
    # git's reset examples: a title, the commands, what they do; the commands were quoted with
    # no word of what they are for
    text = (
        "Switch to topic/wip branch and keep working.\n\n"
        "Undo commits permanently\n\n"
        "$ git commit ...\n$ git reset --hard HEAD~3   <1>\n\n"
        "The last three commits were bad.\n\n"
        "or\n\n$ git reset --keep HEAD~3\n$ git status"
    )
    assert [u.text for u in units(p("git-reset#examples-p2", text), 0)] == [
        "Switch to topic/wip branch and keep working.",
        "Undo commits permanently\n$ git commit ...\n$ git reset --hard HEAD~3   <1>",
        "The last three commits were bad.",
        "or",  # a word between two blocks is no title
        "$ git reset --keep HEAD~3\n$ git status",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Call uuid4(). uuid4() is random, e.g. for keys. Done.",
            ["Call uuid4().", "uuid4() is random, e.g. for keys.", "Done."],
        ),
        # the Rust book: "... only allowed to use the ?" / "operator in a function that ..."
        (
            "Use the ? operator in a function. Calling panic! or returning is fine. Is it? Yes.",
            [
                "Use the ? operator in a function.",
                "Calling panic! or returning is fine.",
                "Is it?",
                "Yes.",
            ],
        ),
        # CMake's CMAKE_BUILD_TYPE: the answer read "... generators (e.g. Typical values ..."
        (
            "It sets the type (e.g. Makefile Generators or Ninja). Typical values include Debug.",
            [
                "It sets the type (e.g. Makefile Generators or Ninja).",
                "Typical values include Debug.",
            ],
        ),
        # Valgrind's quick start: "Your program will run much slower (eg." was a sentence;
        # "eg." and "ie." (no inner stop) are as common in manuals as "e.g." and "i.e."
        (
            "It runs slower (eg. 20 to 30 times). It checks reads, ie. Memcheck does. Done.",
            [
                "It runs slower (eg. 20 to 30 times).",
                "It checks reads, ie. Memcheck does.",
                "Done.",
            ],
        ),
    ],
)
def test_sentences_split_before_lower_case_names_but_not_where_one_goes_on(
    text: str, expected: list[str]
) -> None:
    assert [u.text for u in units(p("a#b", text), 0)] == expected


class Closeness:
    """A stand-in for a semantic model: every text is a fixed 2-d direction; the question
    points at whatever ``near`` names."""

    name = "closeness"
    dim = 2

    def __init__(self, near: str) -> None:
        self.near = near

    def config(self) -> dict[str, object]:
        return {}

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        rows = [[1.0, 0.0] if (query or self.near in t) else [0.0, 1.0] for t in texts]
        return np.asarray(rows, dtype=np.float32)


def test_meaning_decides_between_sentences_holding_the_same_words() -> None:
    passages = [
        p("a#one", "Loans of DVDs are short."),
        p("b#two", "Overdue loans of DVDs cost a dollar a day."),
    ]
    question = "What about loans of DVDs?"
    assert best(question, passages, None) == "Loans of DVDs are short."
    assert (
        best(question, passages, Closeness("dollar"))
        == "Overdue loans of DVDs cost a dollar a day."
    )


def best(question: str, passages: list[Passage], meaning: Closeness | None) -> str:
    """The text of the unit :func:`choose` ranks first."""
    found = candidates(question, passages, meaning)
    assert found is not None
    scores = found.features @ np.array(WEIGHTS[meaning is not None])
    return found.found[found.order[int(np.argmax(scores))]].text


def test_meaning_quotes_a_sentence_that_answers_in_other_words() -> None:
    passages = [
        p("a#one", "Loans of DVDs are short."),
        p("b#two", "Loans of DVDs are for members. Each lasts a week."),
    ]
    question = "What about loans of DVDs?"
    # "Each lasts a week." holds no question word: by words alone it is never quoted
    assert "Each lasts a week." not in [u.text for u in choose(question, passages, None)]
    # judged by its meaning, it is the answer
    assert best(question, passages, Closeness("week")) == "Each lasts a week."


def test_meaning_never_quotes_a_passage_that_holds_too_little_of_the_question() -> None:
    passages = [
        p("a#one", "Loans of DVDs are short. Renewals of DVDs are free."),
        p("b#two", "The cafe sells a dollar coffee."),
    ]
    # the cafe's sentence is the closest in meaning, but its passage holds no question word
    chosen = choose("What about loans of DVDs?", passages, Closeness("dollar"))
    assert [u.text for u in chosen] == [
        "Loans of DVDs are short.",
        "Renewals of DVDs are free.",
    ]
    assert choose("What about loans of DVDs?", passages[1:], Closeness("dollar")) == []


def test_judging_meaning_takes_the_model_out_of_the_services_loop() -> None:
    from docqa.models import ExtractiveModel

    assert ExtractiveModel().in_process is True
    assert ExtractiveModel(meaning=Closeness("x")).in_process is False


def test_the_features_of_each_quotable_unit() -> None:
    passages = [
        Passage(
            "a#renew", "Loans", "Renew a loan online. It costs nothing.\n\nCall us:\n\n  555-0100"
        ),
        Passage("b#fees", "Fees", "| Item | Fee |\n| --- | --- |\n| Loan renewal | free |"),
    ]
    found = candidates("How do I renew a loan?", passages)
    assert found is not None
    col = {name: found.features[:, j] for j, name in enumerate(FEATURES)}
    texts = [found.found[i].text for i in found.order]
    # "It costs nothing." and the "Call us:" block hold no question word: not quotable
    assert texts == ["Renew a loan online.", "Item: Loan renewal; Fee: free."]
    # four units ("| --- |" is no row): "renew" is in one, "loan" in two; "renewal" is not "renew"
    loan = np.log1p(4 / 3) / (np.log1p(4 / 2) + np.log1p(4 / 3))
    assert col["coverage"].tolist() == [1.0, pytest.approx(loan)]
    assert col["meaning"].tolist() == [0.0, 0.0]
    assert col["first_passage"].tolist() == [1.0, 0.0]
    assert col["second_passage"].tolist() == [0.0, 1.0]
    assert col["opens_passage"].tolist() == [1.0, 1.0]  # the table's header is no unit
    assert col["pairs"].tolist() == [1.0, 0.0]  # "renew loan" in a row
    assert col["title"].tolist() == [pytest.approx(loan), 0.0]
    assert col["place"].tolist() == [0.0, 0.0] and col["density"].tolist() == [0.5, 1 / 6]
    assert col["after"].tolist() == [0.0, 0.0] and col["before"].tolist() == [0.0, 0.0]
    assert col["row"].tolist() == [0.0, 1.0] and col["block"].tolist() == [0.0, 0.0]
    assert col["length"][0] == pytest.approx(np.log1p(4))


def test_pick_takes_the_best_the_one_after_it_then_the_next_best() -> None:
    text = "Alpha one ran. Alpha two ran. Alpha three ran. Alpha four ran. Alpha five ran."
    found = candidates("alpha?", [p("a#b", text)])
    assert found is not None and found.order == [0, 1, 2, 3, 4]
    chosen = pick(found, np.array([0.1, 0.2, 0.9, 0.0, 0.5]))
    assert [u.text for u in chosen] == ["Alpha three ran.", "Alpha four ran.", "Alpha five ran."]
    chosen = pick(found, np.array([0.1, 0.2, 0.3, 0.4, 0.9]))  # the last has no unit after it
    assert [u.text for u in chosen] == ["Alpha three ran.", "Alpha four ran.", "Alpha five ran."]
    tie = pick(found, np.zeros(5))
    assert [u.text for u in tie] == ["Alpha one ran.", "Alpha two ran.", "Alpha three ran."]


def test_judged_by_meaning_pick_takes_the_three_best() -> None:
    """By meaning the unit after the best is a candidate scored like the others: it is quoted
    only when it is among the best, not for its place."""
    text = "Alpha one ran. Alpha two ran. Alpha three ran. Alpha four ran. Alpha five ran."
    words = candidates("alpha?", [p("a#b", text)])
    found = candidates("alpha?", [p("a#b", text)], Closeness("two"))
    assert words is not None and not words.by_meaning
    assert found is not None and found.by_meaning and found.order == [0, 1, 2, 3, 4]
    scores = np.array([0.1, 0.2, 0.9, 0.0, 0.5])
    assert [u.text for u in pick(words, scores)] == [
        "Alpha three ran.", "Alpha four ran.", "Alpha five ran."
    ]  # fmt: skip
    assert [u.text for u in pick(found, scores)] == [
        "Alpha two ran.", "Alpha three ran.", "Alpha five ran."
    ]  # fmt: skip


def test_pick_never_says_a_sentence_twice() -> None:
    """Two passages (or a question heading and its answer) can hold the same sentence: the
    reply says it once and fills with the next best instead."""
    twice = "Alpha runs under Valgrind."
    passages = [
        p("a#b", f"{twice} Alpha one ran."),
        p("a#c", f"{twice} Alpha two ran. Alpha three ran."),
    ]
    found = candidates("alpha valgrind?", passages)
    assert found is not None
    assert [found.found[i].text for i in found.order] == [
        twice, "Alpha one ran.", twice, "Alpha two ran.", "Alpha three ran."
    ]  # fmt: skip
    chosen = pick(found, np.array([0.9, 0.0, 0.8, 0.5, 0.1]))  # best, its follower, then a copy
    assert [u.text for u in chosen] == [twice, "Alpha one ran.", "Alpha two ran."]
    tie = pick(found, np.zeros(5))
    assert [u.text for u in tie] == [twice, "Alpha one ran.", "Alpha two ran."]  # ties: the earlier
    copy_after = candidates("alpha?", [p("a#b", "Alpha one ran. Alpha one ran. Alpha two ran.")])
    assert copy_after is not None
    said = [u.text for u in pick(copy_after, np.array([0.9, 0.1, 0.0]))]
    assert said == [
        "Alpha one ran.",
        "Alpha two ran.",
    ]  # the follower is the same sentence: skipped


def reference_features(question: str, passages: list[Passage]) -> tuple[list[int], list[list]]:
    """The slow twin of :func:`candidates`: the same features, each text tokenized on its own."""
    wanted = content_words(question)
    found = [u for i, x in enumerate(passages) for u in units(x, i)]
    words = [content_words(u.text) & wanted for u in found]
    n = len(words)
    weight = {w: math.log1p(n / (1 + sum(w in u for u in words))) for w in sorted(wanted)}
    total = math.fsum(weight.values())

    def share(held: set[str]) -> float:
        return math.fsum(weight[w] for w in held & wanted) / total

    if total <= 0:
        return [], []
    held = [content_words(f"{x.title}\n{x.text}") & wanted for x in passages]
    by_passage = {
        w: math.log1p(len(held) / (1 + sum(w in h for h in held))) for w in sorted(wanted)
    }
    mass = math.fsum(by_passage.values())
    eligible = {i for i, h in enumerate(held) if math.fsum(by_passage[w] for w in h) / mass >= 0.15}
    order = [
        i
        for i in range(n)
        if found[i].passage in eligible and words[i] and len(re.findall(r"\w+", found[i].text)) >= 3
    ]  # a unit of one or two words is a label, never quoted
    asked = pairs_of(question)
    rows = []
    for i in order:
        u = found[i]
        near = [share(words[j]) if 0 <= j < n and found[j].passage == u.passage else 0.0
                for j in (i - 1, i + 1)]  # fmt: skip
        rows.append([
            share(words[i]), 0.0, u.passage == 0, u.passage == 1, u.place == 0,
            math.log1p(u.place), math.log1p(len(u.text.split())),
            len(words[i]) / (1 + len(content_words(u.text))),
            len(asked & pairs_of(u.text)) / len(asked) if asked else 0.0,
            share(content_words(passages[u.passage].title)), *near, "\n" in u.text, u.row,
        ])  # fmt: skip
    return order, rows


def pairs_of(text: str) -> set[tuple[str, str]]:
    tokens = tokenize(text, stop_words=True, fold_plurals=True)
    return set(itertools.pairwise(tokens))


WORDS = st.sampled_from(["loan", "loans", "renew", "the", "fine", "DVD", "desk", "a", "of"])
TEXTS = st.lists(st.one_of(WORDS, st.sampled_from([".", ". ", "\n\n", ":", "| x | y |\n"])))


@given(
    st.lists(st.tuples(TEXTS, TEXTS), min_size=1, max_size=3),
    st.lists(WORDS, min_size=1, max_size=6),
)
def test_the_features_equal_their_slow_twin(
    texts: list[tuple[list[str], list[str]]], asked: list[str]
) -> None:
    passages = [Passage(f"d#s{i}", " ".join(t), " ".join(b)) for i, (t, b) in enumerate(texts)]
    question = " ".join(asked) + "?"
    found = candidates(question, passages)
    order, rows = reference_features(question, passages)
    if found is None:
        assert order == []
    else:
        assert found.order == order
        assert found.features.tolist() == [[float(x) for x in row] for row in rows]


def test_units_left_out_between_two_quoted_ones_are_marked() -> None:
    # ImageMagick's architecture page: "Set global resource limits ... policy.xml" and, a few
    # sentences on, "Here is an example:" with the MPC commands, quoted side by side as if
    # the example set the limits
    example = "convert image.tif image.mpc\nconvert image.mpc 1.png"
    text = (
        "Set limits in the policy file. Use the MPC format for speed.\n\n"
        f"It is fast. Here is an example:\n\n{example}\n\nMPC is ideal for web sites.\n\n"
        "convert a.mpc b.png\nconvert a.mpc c.png"
    )
    passage = p("www/architecture#best-practices", text)
    found = units(passage, 0)
    assert [u.text for u in found] == [
        "Set limits in the policy file.",
        "Use the MPC format for speed.",
        "It is fast.",
        f"Here is an example:\n{example}",
        "MPC is ideal for web sites.",
        "convert a.mpc b.png\nconvert a.mpc c.png",
    ]
    cite = " [www/architecture#best-practices]"
    assert quote(found[:2], [passage]) == f"{found[0].text} {found[1].text}{cite}"
    assert quote([found[0], found[3]], [passage]) == (
        f"Set limits in the policy file. … Here is an example:\n{example}{cite}"
    )
    assert found[5].block  # code standing alone: the ellipsis has a line of its own
    assert quote([found[3], found[5]], [passage]) == (
        f"Here is an example:\n{example}\n…\nconvert a.mpc b.png\nconvert a.mpc c.png{cite}"
    )
    # units of different passages are runs of their own, each with its id
    other = p("www/mogrify#usage", "Use mogrify to convert in place.")
    assert quote([found[0], units(other, 1)[0]], [passage, other]) == (
        f"Set limits in the policy file.{cite} Use mogrify to convert in place. [www/mogrify#usage]"
    )


def test_meaning_reads_a_unit_under_its_heading() -> None:
    # the same sentence under two headings: only the heading says which function it is
    passages = [
        Passage("os#os-homedir", "OS > os.homedir()", "Returns the directory as a string."),
        Passage("os#os-tmpdir", "OS > os.tmpdir()", "Returns the directory as a string."),
    ]
    question = "Which function returns the directory for temporary files?"
    found = candidates(question, passages, Closeness("tmpdir"))
    assert found is not None
    meaning = found.features[:, FEATURES.index("meaning")]
    assert [found.found[i].passage for i in found.order] == [0, 1]
    assert meaning[1] > meaning[0]
    assert reply(question, passages, Closeness("tmpdir")).startswith(
        "os.tmpdir(): Returns the directory as a string. [os#os-tmpdir]"
    )


def test_a_question_the_passages_ask_is_not_quoted_as_its_answer() -> None:
    # Valgrind's FAQ: its list of questions, then each question with its answer
    faq = [
        p(
            "faq#list",
            "5.3. Why is Valgrind slow? 5.4. Can I attach Valgrind to a running program?",
        ),
        p(
            "faq#misc",
            "5.4. Can I attach Valgrind to a running program? No, it is not possible to attach "
            "Valgrind to a running program. It must have full control from the very start.",
        ),
    ]
    answer = reply("Can I attach Valgrind to a program that is already running?", faq)
    assert "?" not in answer
    assert answer.startswith("No, it is not possible to attach Valgrind to a running program.")
    assert "full control" in answer
    # a passage that only asks answers nothing
    assert reply("Why is Valgrind slow?", faq[:1]) == REFUSAL


def test_a_sentence_telling_what_the_command_above_does_is_quoted_with_it() -> None:
    # Docker's reference (docker-doc), exec.md: each command, then "This ..." saying what it
    # does; the answer quoted the three "This ..." sentences and not one command
    exec_ = Passage(
        "reference/commandline/exec#run",
        "exec > Run docker exec on a running container",
        "First, start a container.\n\n"
        "$ docker run --name mycontainer -d -i -t alpine /bin/sh\n\n"
        "This creates and starts a container named mycontainer from an alpine image.\n\n"
        "Next, execute an interactive sh shell on the container.\n\n"
        "$ docker exec -it mycontainer sh\n\n"
        "This starts a new shell session in the container mycontainer.",
    )
    texts = [u.text for u in units(exec_, 0)]
    assert (
        "$ docker exec -it mycontainer sh\nThis starts a new shell session in the "
        "container mycontainer." in texts
    )
    answer = reply("How do I start a new shell session in a container?", [exec_])
    assert "$ docker exec -it mycontainer sh\nThis starts a new shell session" in answer
    # a block of code, and the sentences after it that introduce the next block or do not
    # refer back to it
    script = Passage(
        "a#b",
        "A > B",
        "cmake_minimum_required(VERSION 3.10)\nproject(Foo)\n\n"
        "This is an example of a longer script:\n\n"
        "add_library(foo foo.c)\ntarget_link_libraries(foo m)\n\n"
        "The library links the math library.",
    )
    texts = [u.text for u in units(script, 0)]
    assert "cmake_minimum_required(VERSION 3.10)\nproject(Foo)" in texts
    assert "The library links the math library." in texts
