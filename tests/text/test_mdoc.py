"""The mdoc(7) reader: OpenSSH's pages as ``man`` prints them: options and enclosures, lists
as terms with their text or as tables, literal displays as code, spacing turned off, and no
macro's name ever printed."""

from __future__ import annotations

from docqa.text.documents import Heading
from docqa.text.man import is_mdoc, man_title
from docqa.text.mdoc import mdoc_items, render


def shown(text: str) -> list[tuple[str, str]]:
    return [
        (f"h{i.level}", i.text) if isinstance(i, Heading) else (i.kind, i.text)
        for i in mdoc_items(text)
    ]


# after ssh(1) and ssh_config(5), as OpenSSH writes them
PAGE = r""".ig
Copyright text: never read.
..
.\" $OpenBSD: ssh.1 $
.Dd $Mdocdate: November 28 2022 $
.Dt SSH 1
.Os
.Sh NAME
.Nm ssh
.Nd OpenSSH remote login client
.Sh SYNOPSIS
.Nm ssh
.Op Fl 46A
.Op Fl D Oo Ar bind_address : Oc Ns Ar port
.Ar destination
.Sh DESCRIPTION
.Nm
connects to
.Ar destination ,
which may be given as either
.Sm off
.Oo user @ Oc hostname
.Sm on
or a URI.
See
.Xr ssh_config 5
and the
.Dq ForwardAgent
option.
.nr rF 0
.Pp
The options are as follows:
.Bl -tag -width Ds
.It Fl 4
Forces
.Nm
to use IPv4 addresses only.
.It Xo
.Fl L
.Sm off
.Oo Ar bind_address : Oc
.Ar port : host : hostport
.Sm on
.Xc
.It Fl L Ar local_socket : Ns Ar remote_socket
Specifies a forwarding.
.El
.Ss Escape characters
.Bl -column "~." "Meaning" -offset indent
.It Sy Escape Ta Sy Meaning
.It Cm ~. Ta Disconnect.
.El
.Bd -literal -offset indent
$ ssh -L 8080:localhost:80 host
.Ed
.Dl $ ssh host uptime
.Ex -std
"""


CONNECTS = "ssh connects to destination, which may be given as either [user@]hostname or a URI."
CONNECTS += " See ssh_config(5) and the \u201cForwardAgent\u201d option."
FORWARDS = "-L [bind_address:]port:host:hostport, -L local_socket:remote_socket"


def test_an_mdoc_page_reads_as_man_prints_it() -> None:
    assert is_mdoc(PAGE)
    items = mdoc_items(PAGE)
    assert man_title(items) == "ssh \u2014 OpenSSH remote login client"
    assert shown(PAGE) == [
        ("h1", "SSH(1)"),
        ("h2", "NAME"),
        ("text", "ssh \u2014 OpenSSH remote login client"),
        ("h2", "SYNOPSIS"),
        ("text", "ssh [-46A] [-D [bind_address:]port] destination"),
        ("h2", "DESCRIPTION"),
        ("text", CONNECTS),
        ("text", "The options are as follows:"),
        ("text", "-4: Forces ssh to use IPv4 addresses only."),
        ("text", f"{FORWARDS}: Specifies a forwarding."),
        ("h3", "Escape characters"),
        ("table", "|  |  |\n| Escape | Meaning |\n| ~. | Disconnect. |"),
        ("code", "$ ssh -L 8080:localhost:80 host"),
        ("code", "$ ssh host uptime"),
        ("text", "The ssh utility exits 0 on success, and >0 if an error occurs."),
    ]


def test_enclosures_options_and_punctuation() -> None:
    assert render(["Op", "Fl", "o", "Ar", "option"]) == "[-o option]"
    assert (
        render(["Op", "Ar", "command", "Op", "Ar", "argument", "..."]) == "[command [argument ...]]"
    )
    assert render(["Pq", "Pa", "~/.ssh/config"]) == "(~/.ssh/config)"
    assert render(["Cm", "Host", "No", "or", "Cm", "Match", "."]) == "Host or Match."
    assert render(["Fl", "w", "Ar", "local_tun", "Ns", "Op", ":", "Ns", "Ar", "remote_tun"]) == (
        "-w local_tun[:remote_tun]"
    )
    assert render(["Xr", "ssh-agent", "1", ","]) == "ssh-agent(1),"
    assert render(["Fn", "crypt", "phrase", "setting"]) == "crypt(phrase, setting)"
    assert render(["Nm"], name="scp") == "scp"
    assert render(["Ux", "Ns", "-domain"]) == "UNIX-domain"


def test_no_macro_name_and_no_request_is_printed() -> None:
    page = (
        ".Dd 2024\n.Dt T 5\n.ds Aq \\(aq\n.de hash\n.It Sy \\\\$1\n..\n.de IX\n..\n.Sh FORMATS\n"
        ".nr x 1\n.if n .ad l\n.Bl -tag\n.hash yescrypt\nA hash.\n.El\n.IX Header x\n"
        ".Zz unknown words\n.Aq file\n"
    )
    texts = [t for _, t in shown(page)]
    # a macro the page defines that prints its argument is read for it; one that does not
    # (an index entry), a request and an unknown macro's name are not
    # a string the page defines (.ds Aq) silences no macro of that name
    assert texts == ["T(5)", "FORMATS", "yescrypt A hash.", "unknown words <file>"]


def test_a_section_macro_without_a_name_opens_no_empty_section() -> None:
    # ".Dt" and ".Sh" given nothing: no heading without text (an empty id), the text kept
    assert shown(".Dd 2024\n.Dt\n.Sh\nText of the page.\n.Sh USAGE\nRun it.\n") == [
        ("text", "Text of the page."),
        ("h2", "USAGE"),
        ("text", "Run it."),
    ]
