"""The manual-page reader: man(7) sections, definition lists, code, tables, escapes and fonts
read as ``man`` prints them; no request read as text; a page that only includes another
refused by name."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from docqa.errors import InputError
from docqa.text import load_path, parse_document, section_ids
from docqa.text.documents import Heading
from docqa.text.man import inline, is_roff, man_items
from docqa.text.reading import format_of


def shown(text: str) -> list[tuple[str, str]]:
    return [
        (f"h{i.level}", i.text) if isinstance(i, Heading) else (i.kind, i.text)
        for i in man_items(text)
    ]


PAGE = r""".\" a comment: never text
.TH LS 1 "2024-01-01" "coreutils" "User Commands"
.de XX
.  ft B
.  .
.SH NAME
ls \- list directory contents
.SH SYNOPSIS
.B ls
[\fIOPTION\fR]... [\fIFILE\fR]...
.SH DESCRIPTION
List information about the FILEs (the current directory by default).
Sort entries alphabetically.
.PP
Mandatory arguments to long options are mandatory for short options too.
.TP
\fB\-a\fR, \fB\-\-all\fR
do not ignore entries starting with .
.TP
.BR \-C " (" \-\-columns )
list entries by columns
.SS "Exit status"
.IP \(bu 2
0 if OK,
.IP \(bu 2
2 if serious trouble.
.SH EXAMPLES
.EX
$ ls \-l \e
    /tmp
.EE
After the example \(em the end.
"""


LISTS = "List information about the FILEs (the current directory by default). Sort entries"
LISTS += " alphabetically."


def test_a_page_reads_as_man_prints_it() -> None:
    assert shown(PAGE) == [
        ("h1", "LS(1)"),
        ("h2", "NAME"),
        ("text", "ls - list directory contents"),
        ("h2", "SYNOPSIS"),
        ("text", "ls [OPTION]... [FILE]..."),
        ("h2", "DESCRIPTION"),
        ("text", LISTS),
        ("text", "Mandatory arguments to long options are mandatory for short options too."),
        ("text", "-a, --all: do not ignore entries starting with ."),
        ("text", "-C (--columns): list entries by columns"),
        ("h3", "Exit status"),
        ("text", "0 if OK,"),
        ("text", "2 if serious trouble."),
        ("h2", "EXAMPLES"),
        ("code", "$ ls -l \\\n    /tmp"),
        ("text", "After the example \u2014 the end."),
    ]


def test_no_request_and_no_macro_definition_is_read_as_text() -> None:
    # a definition ends at "..", or at ".  ." inside a conditional block (util-linux's pages:
    # reading on to the page's end lost 99.8% of flock(1))
    page = (
        ".TH FLOCK 1\n.de URL\n\\fI\\\\$2\\fP <\\\\$1>\\\\$3\n..\n.if \\n[.g] \\{\\\n"
        ".  am URL\n.    ad l\n.  .\n.\\}\n.SH NAME\nflock \\- manage locks\n"
        ".SH OPTIONS\n.nh\n.ad l\n.RS 4\nThe lock.\n.RE\n"
    )
    texts = [t for _, t in shown(page)]
    assert texts == ["FLOCK(1)", "NAME", "flock - manage locks", "OPTIONS", "The lock."]


def test_a_line_over_an_indented_paragraph_is_its_term() -> None:
    # DocBook's and Asciidoctor's pages (git's): ``.PP`` / the option / ``.RS 4`` / its text
    page = (
        ".TH GIT-BLAME 1\n.SH OPTIONS\n.PP\n\\fB\\-b\\fR\n.RS 4\nShow blank SHA-1 for "
        "boundary commits.\n.RE\n.PP\n\\-\\-root\n.RS 4\nDo not treat root commits as "
        "boundaries.\n.RE\n"
    )
    assert shown(page)[2:] == [
        ("text", "-b: Show blank SHA-1 for boundary commits."),
        ("text", "--root: Do not treat root commits as boundaries."),
    ]


def test_a_tbl_table_is_a_table_of_its_rows() -> None:
    page = (
        ".TH T 1\n.SH CODES\n.TS\ntab(;);\nl l.\nCode;Meaning\n_\n0;success\n"
        "1;T{\nfailure\nT}\n.TE\n"
    )
    [(kind, text)] = shown(page)[2:]
    assert kind == "table"
    assert "| Code | Meaning |" in text and "| 0 | success |" in text
    assert "_" not in text.replace("| ", "")


def test_escapes_read_as_printed() -> None:
    assert inline(r"\fBbold\fR \-n \(em \[bu] \e \&. \(lqq\(rq \s-1SMALL\s0") == (
        "bold -n \u2014 \u2022 \\ . \u201cq\u201d SMALL"
    )
    assert inline(r"caf\[u00E9] na\[u00EF]ve") == "caf\u00e9 na\u00efve"
    assert inline(r"text \" a comment") == "text "
    assert inline(r"a \\\" b") == "a \\"  # an escaped backslash, then a comment


def test_a_page_that_only_includes_another_is_refused_saying_what_to_do() -> None:
    with pytest.raises(InputError, match=r"a link to another manual page \(.so man1/ls.1\)"):
        man_items(".so man1/ls.1\n")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("ls.1", "man"),
        ("git-blame.1.gz", "man"),
        ("CURLOPT_TIMEOUT.3", "man"),
        ("openssl-req.1ssl.gz", "man"),
        ("notes.md", "markdown"),
        ("data.10", None),
        ("x.0", None),
    ],
)
def test_a_manual_page_is_known_by_its_section_suffix(name: str, kind: str | None) -> None:
    assert format_of(name) == kind


def test_a_gzipped_page_in_a_folder_is_indexed_under_its_name(tmp_path: Path) -> None:
    (tmp_path / "man1").mkdir()
    (tmp_path / "man1" / "ls.1.gz").write_bytes(gzip.compress(PAGE.encode()))
    (tmp_path / "man1" / "dash.1").write_text(".Dd January 1, 2024\n.Dt DASH 1\n.Sh NAME\n"
                                              ".Nm dash\n.Nd command interpreter\n")  # fmt: skip
    (tmp_path / "man1" / "sh.1").write_text(".so man1/dash.1\n")
    with pytest.warns(UserWarning, match="sh.1"):
        docs, report = load_path(tmp_path)
    dash, doc = docs
    assert dash.title == "dash \u2014 command interpreter"  # mdoc, docqa.text.mdoc
    assert doc.title == "ls - list directory contents"
    assert doc.metadata["format"] == "man"
    assert section_ids(doc)[:3] == ["man1/ls#ls-1", "man1/ls#name", "man1/ls#synopsis"]
    assert [(s.path, s.reason[:29]) for s in report.skipped] == [
        ("man1/sh.1", "a link to another manual page")
    ]
    assert parse_document("ls.1", PAGE).title == doc.title


CHANGELOG = "2001-06-01  Peter Stephenson  <pws@csr.com>\n\n\t* 14659: Src/exec.c: fix.\n"


def test_a_file_named_as_a_page_without_roff_is_skipped_unless_given_by_name(
    tmp_path: Path,
) -> None:
    # zsh's Debian package ships ChangeLog-3.1.gz beside its manual: a changelog, not a page
    (tmp_path / "ChangeLog-3.1.gz").write_bytes(gzip.compress(CHANGELOG.encode()))
    (tmp_path / "ls.1").write_text(PAGE)
    with pytest.warns(UserWarning, match="ChangeLog-3.1.gz"):
        docs, report = load_path(tmp_path)
    assert [d.source for d in docs] == ["ls.1"]
    [skipped] = report.skipped
    assert skipped.path == "ChangeLog-3.1.gz"
    assert skipped.reason.startswith("named as a manual page (.1 to .9) but holds no roff")
    assert "give its path" in skipped.reason
    docs, report = load_path(tmp_path / "ChangeLog-3.1.gz")
    assert not report.skipped
    assert docs[0].metadata["format"] == "text"
    assert "14659: Src/exec.c: fix." in docs[0].sections[0].text


@pytest.mark.parametrize(
    "page",
    [PAGE, ".Dd January 1, 2024\n.Dt DASH 1\n.Sh NAME\n", ".so man1/dash.1\n",
     "'\\\" t\n.\\\" generated\n.TH X 1\n"],
)  # fmt: skip
def test_roff_is_known_by_its_title_section_include_or_comment(page: str) -> None:
    assert is_roff(page)
    assert not is_roff(page.replace("\n.", "\n ").replace("'", " ").lstrip("."))


def test_an_untagged_ip_inside_a_sentence_goes_on_with_it() -> None:
    # help2man's pages (coreutils' tail(1)) break an option's wrapped sentence with ``.IP``;
    # after a finished sentence it still begins a paragraph
    page = (
        ".TH TAIL 1\n.SH DESCRIPTION\n.TP\n\\fB\\-\\-max\\-unchanged\\-stats\\fR=\\fI\\,N\\/\\fR\n"
        "with \\fB\\-\\-follow\\fR=\\fI\\,name\\/\\fR, reopen a FILE which has not\n.IP\n"
        "changed size after N iterations.\n.IP\nWith inotify, this option is rarely useful.\n"
    )
    option = "--max-unchanged-stats=N: with --follow=name, reopen a FILE which has not"
    assert shown(page)[2:] == [
        ("text", f"{option} changed size after N iterations."),
        ("text", "With inotify, this option is rarely useful."),
    ]


def test_a_packages_readme_faq_and_news_are_read_as_text(tmp_path: Path) -> None:
    # Debian's /usr/share/doc/<package>: README, README.Debian and NEWS.gz hold what a user
    # asks about; the licence and the changelog are no documentation
    (tmp_path / "README").write_text("Curl notes\n\nUse the easy interface for one transfer.\n")
    (tmp_path / "README.Debian").write_text("Debian notes\n\nThe FAQ is in FAQ.\n")
    (tmp_path / "NEWS.gz").write_bytes(gzip.compress(b"News\n\nVersion 2 adds HTTP/3.\n"))
    (tmp_path / "copyright").write_text("Copyright the authors.\n")
    (tmp_path / "changelog.gz").write_bytes(gzip.compress(b"curl (1.0-1) unstable\n"))
    docs, report = load_path(tmp_path)
    assert sorted(d.source for d in docs) == ["NEWS.gz", "README", "README.Debian"]
    assert {d.metadata["format"] for d in docs} == {"text"}
    assert {section_ids(d)[0].split("#")[0] for d in docs} == {"NEWS", "README", "README.Debian"}
    assert not report.skipped
