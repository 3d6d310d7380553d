"""Real documentation pages: what the Sphinx-style chrome around the content becomes."""

from __future__ import annotations

from docqa.text import parse_document
from docqa.text.documents import Block, Heading
from docqa.text.html import parse_html

SPHINX = """<html><head><title>secrets — Generate secrets — Python 3.11 documentation</title></head>
<body>
<div class="related" role="navigation"><a href="index.html">index</a></div>
<div class="document">
<div class="body" role="main">
<section id="secrets">
<h1>secrets — Generate secrets<a class="headerlink" href="#secrets" title="Permalink">¶</a></h1>
<p>The module <div>nested div</div> makes tokens.</p>
<dl class="py function"><dt id="secrets.choice"><span>secrets.choice(seq)</span><a class="headerlink" href="#secrets.choice">¶</a></dt>
<dd><p>Return an element.</p></dd></dl>
<table><thead><tr><th>Level</th><th>Value</th></tr></thead>
<tbody><tr><td>CRITICAL</td><td>50</td></tr><tr><td>ERROR</td><td>40</td></tr></tbody></table>
</section>
</div>
</div>
<div class="footer">© Copyright 2001-2026. Created using Sphinx.</div>
</body></html>
"""


def texts(items: list[object]) -> str:
    return "\n".join(getattr(i, "text", "") for i in items)


def test_footer_outside_role_main_is_dropped_and_nesting_is_followed() -> None:
    _, items = parse_html(SPHINX)
    text = texts(items)
    assert "Copyright" not in text and "index" not in text
    assert "nested div" in text and "Return an element." in text  # inner divs stay inside


def test_permalink_signs_are_dropped() -> None:
    _, items = parse_html(SPHINX)
    assert "¶" not in texts(items)
    assert "secrets.choice(seq)" in texts(items)


def test_title_suffix_dropped_when_the_title_starts_with_the_h1() -> None:
    doc = parse_document("library/secrets.html", SPHINX)
    assert doc.title == "secrets — Generate secrets"
    other = parse_document("a.html", "<title>Site name</title><h1>Page</h1><p>x</p>")
    assert other.title == "Site name"  # a title that does not start with the h1 is kept


def test_table_header_and_body_rows_are_one_block() -> None:
    _, items = parse_html(SPHINX)
    tables = [i for i in items if getattr(i, "kind", "") == "table"]
    assert len(tables) == 1
    assert [line.text for line in tables[0].lines] == [
        "| Level | Value |",
        "| CRITICAL | 50 |",
        "| ERROR | 40 |",
    ]


def test_pages_that_mark_no_content_keep_all_their_text_but_site_chrome() -> None:
    _, items = parse_html("<div>one</div><div class='note'>two</div><p class=x>three</p>")
    assert texts(items).split() == ["one", "two", "three"]
    # chrome by name only: the header and footer elements, and divs of those classes (the
    # names HTML5 took them from), as Texinfo writes its Next / Previous / Up bars
    _, items = parse_html("<div>one</div><div class='footer'>two</div><footer>three</footer>")
    assert texts(items).split() == ["one"]
    # and a div of id footer (AsciiDoc's "Last updated", Apache's copyright); AsciiDoc's
    # div#header holds the page's title and NAME section: kept
    page = "<div id=header><h1>git-log(1)</h1><p>Show logs</p></div><div id=footer>Last</div>"
    assert texts(parse_html(page)[1]).split() == ["git-log(1)", "Show", "logs"]
    assert texts(parse_html("<main><div id=footer>kept</div></main>")[1]) == "kept"


# Node.js's API pages (``/usr/share/doc/nodejs/api``) and rustdoc's (``std`` as rustup ships
# it), cut down: a "#" permalink after each heading, a "copy" button in each code block, a
# "Copy item path" button inside the h1 and a "§" permalink inside and before headings.
NODE = """<title>File system | Node.js v20 Documentation</title>
<main><h3>Promise example<span><a class="mark" href="#promise-example" id="promise-example">#</a></span></h3>
<p>Promise-based operations return a promise.</p>
<pre><code class="language-js">import { unlink } from 'node:fs/promises';</code><button class="copy-button">copy</button></pre>
</main>"""
RUSTDOC = """<title>Vec in std::vec - Rust</title>
<main><h1>Struct <span class="struct">Vec</span>&nbsp;<button id="copy-path" title="Copy item path to clipboard">Copy item path</button></h1>
<h2 id="implementations" class="section-header">Implementations<a href="#implementations" class="anchor">§</a></h2>
<section id="impl-Vec" class="impl"><a href="#impl-Vec" class="anchor">§</a><h3 class="code-header">impl Vec</h3></section>
<p>A contiguous growable array type.</p>
<h3 id="examples"><a class="doc-anchor" href="#examples">§</a>Examples</h3></main>"""


def test_node_and_rustdoc_permalinks_and_buttons_are_dropped() -> None:
    _, items = parse_html(NODE)
    headings = [i.text for i in items if isinstance(i, Heading)]
    assert headings == ["Promise example"]
    code = [i for i in items if isinstance(i, Block) and i.kind == "code"]
    assert [line.text for line in code[0].lines] == [
        "import { unlink } from 'node:fs/promises';"
    ]  # no "copy" line from the button
    _, items = parse_html(RUSTDOC)
    headings = [i.text for i in items if isinstance(i, Heading)]
    assert headings == ["Struct Vec", "Implementations", "impl Vec", "Examples"]
    assert "§" not in texts(items) and "Copy item path" not in texts(items)
    assert "A contiguous growable array type." in texts(items)
    doc = parse_document("struct.Vec.html", RUSTDOC)
    assert [s.heading for s in doc.sections][:2] == ["Struct Vec", "Implementations"]


def test_apaches_permalinks_are_dropped() -> None:
    # the Apache HTTP Server manual (apache2-doc), cut down: a pilcrow after each heading
    page = (
        '<div id="page-content"><h2 id="enable">Enabling Compression <a title="Permanent link"'
        ' href="#enable" class="permalink">&para;</a></h2><p>Compression is on.</p></div>'
    )
    _, items = parse_html(page)
    assert [i.text for i in items if isinstance(i, Heading)] == ["Enabling Compression"]
    assert "¶" not in texts(items)


def test_apaches_menu_and_language_bars_are_dropped() -> None:
    # the top of every page of the Apache manual, cut down: the menu and version line, then
    # links to the page's translations above and below its text
    page = """<body id="manual-page"><div id="page-header">
<p class="menu"><a href="../mod/index.html">Modules</a> | <a href="../glossary.html">Glossary</a></p>
<p class="apache">Apache HTTP Server Version 2.4</p></div>
<div id="page-content"><div id="preamble"><h1>Name-based Virtual Host Support</h1>
<div class="toplang"><p><span>Available Languages: </span><a href="../../de/x.html"
hreflang="de" rel="alternate">&nbsp;de&nbsp;</a> | <a href="../../en/x.html">&nbsp;en&nbsp;</a>
</p></div><p>This document describes name-based virtual hosts.</p></div>
<div class="bottomlang"><p><span>Available Languages: </span> de | en</p></div></div>"""
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [getattr(i, "text", "") for i in items] == [
            "Name-based Virtual Host Support",
            "This document describes name-based virtual hosts.",
        ]


def test_a_sphinx_sidebar_without_a_navigation_role_is_dropped() -> None:
    # Borg's manual (borgbackup-doc, the guzzle theme), cut down: the sidebar, with the site's
    # whole table of contents, has no role="navigation" and the content no role="main"
    page = """<body><div class="related" role="navigation"><a href="../index.html">Docs</a></div>
<div id="left-column"><div class="sphinxsidebar"><a href="../index.html" class="text-logo">
Borg 1.2.4</a><div class="sidebar-block"><div class="sidebar-toc"><ul>
<li><a href="../quickstart.html">Quick Start</a></li><li><a href="diff.html">borg diff</a></li>
<li><a href="prune.html">borg prune</a></li></ul></div></div></div></div>
<div id="right-column"><div class="document clearer body"><section id="borg-diff">
<h1>borg diff</h1><section id="description"><h2>Description</h2>
<p>This command finds differences between archives.</p></section></section></div></div>"""
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [getattr(i, "text", "") for i in items] == [
            "borg diff",
            "Description",
            "This command finds differences between archives.",
        ]
    doc = parse_document("usage/diff.html", page)
    assert [s.heading for s in doc.sections] == ["borg diff", "Description"]


def test_what_sqlites_pages_keep_out_of_their_search_is_dropped() -> None:
    # SQLite's manual (sqlite3-doc), cut down: the banner and menu, then the page's title and
    # table of contents, each in a div.nosearch; 41 of 538 passages held the banner
    page = """<title>The SELECT statement</title><body><div class=nosearch>
<a href="index.html"><img class="logo" src="images/sqlite370_banner.gif" alt="SQLite"></a>
<div class="tagline desktoponly">Small. Fast. Reliable.<br>Choose any three.</div>
<div class="menu mainmenu"><ul><li><a href="index.html">Home</a>
<li class='desktoponly'><a href="docs.html">Documentation</a></ul></div></div>
<div class=fancy><div class=nosearch><div class="fancy_title">SELECT</div>
<div class="fancy_toc"><a onclick="toggle_toc()">Table Of Contents</a>
<div id="toc_sub"><div class="fancy-toc1"><a href="#overview">1. Overview</a></div></div>
</div></div><h1 id="overview"><span>1. </span>Overview</h1>
<p>The SELECT statement is used to query the database.</p></div></body>"""
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [i.text for i in items] == [
            "1. Overview",
            "The SELECT statement is used to query the database.",
        ]


def test_an_mdbook_examples_hidden_lines_are_dropped() -> None:
    # The Rust book (rust-doc, mdBook), cut down: the lines a Rust example hides until asked
    page = """<main><h2 id="constants">Constants</h2>
<p>Here’s an example of a constant declaration:</p>
<pre><code class="language-rust"><span class="boring">#![allow(unused)]
</span><span class="boring">fn main() {
</span>const THREE_HOURS_IN_SECONDS: u32 = 60 * 60 * 3;
<span class="boring">}</span></code></pre>
<p>Shown: <span class="Boring">a class of another case</span>,
<span class="x boring">not this</span>.</p>
</main>"""
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [i.text for i in items] == [
            "Constants",
            "Here’s an example of a constant declaration:",
            "const THREE_HOURS_IN_SECONDS: u32 = 60 * 60 * 3;",
            "Shown: a class of another case, .",
        ]


def test_texinfos_permalinks_are_dropped() -> None:
    # Autoconf's manual (Texinfo 6.8) and a Texinfo 7 page: a pilcrow after each definition
    page = (
        '<dl class="def"><dt id="index-AC_INIT"><span class="category">Macro: </span><span>'
        "<strong>AC_INIT</strong> <em>(package, version)</em><a href='#index-AC_INIT' "
        "class='copiable-anchor'> &para;</a></span></dt><dd><p>Process arguments.</p></dd>"
        '<dt>AC_OUTPUT<a class="copiable-link" href="#index-AC_OUTPUT"> &para;</a></dt></dl>'
    )
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [i.text for i in items] == [
            "Macro: AC_INIT (package, version): Process arguments.",
            "AC_OUTPUT",
        ]


# PostgreSQL's manual (DocBook XSL), cut down: a Note inside the list of psql's meta-commands
DOCBOOK = """<title>psql</title>
<div class="refsect2"><h3 class="title">Meta-Commands</h3>
<dl><dt>\\encoding</dt><dd><p>Sets the client encoding.</p>
<div class="note"><h3 class="title">Note</h3><p>Use <code>\\encoding</code> without an argument.</p></div>
</dd><dt>\\list</dt><dd><p>Lists the databases in the server.</p></dd></dl></div>
<div class="tip"><h3 class="title">Tip</h3><div class="para"><p>Nested.</p></div></div>
<p>After the tip.</p><div class="notes"><h3>Notes</h3><p>A section of that name.</p></div>"""


def test_a_heading_inside_an_admonition_is_its_label_not_a_section() -> None:
    _, items = parse_html(DOCBOOK)
    assert [i.text for i in items if isinstance(i, Heading)] == ["Meta-Commands", "Notes"]
    blocks = [i.text for i in items if isinstance(i, Block)]
    assert blocks[blocks.index("Note") + 1 :][:2] == [
        "Use \\encoding without an argument.",
        "\\list: Lists the databases in the server.",
    ]
    assert blocks[blocks.index("Tip") :][:3] == ["Tip", "Nested.", "After the tip."]
    doc = parse_document("app-psql.html", DOCBOOK)
    sections = {s.heading: [b.text for b in s.blocks] for s in doc.sections}
    assert "\\list: Lists the databases in the server." in sections["Meta-Commands"]  # not Note's


def test_links_of_other_classes_keep_their_text() -> None:
    page = '<p>See <a class="marks" href="#x">marks</a> and <a class="Anchor">Anchor</a>.</p>'
    assert texts(parse_html(page)[1]) == "See marks and Anchor."  # whole class names, as written


# npm's command pages (``/usr/lib/node_modules/npm/docs/output/commands``), cut down: the h1
# and the one-line description are in the section's own header, then a table of contents.
NPM = """<title>npm-bugs</title><body>
<div id="banner"><div class="title">npm command-line interface</div></div>
<section id="content">
<header class="title"><h1 id="npm-bugs"><span>npm-bugs</span> <span class="version">@10.8.2</span></h1>
<span class="description">Report bugs for a package in a web browser</span></header>
<section id="table_of_contents"><h2 id="table-of-contents">Table of contents</h2>
<div id="_table_of_contents"><ul><li><a href="#synopsis">Synopsis</a></li></ul></div></section>
<div id="_content"><h3 id="synopsis">Synopsis</h3><pre><code>npm bugs [&lt;pkgname&gt;]</code></pre></div>
<footer id="edit"><a href="https://github.com/npm/cli/edit/latest/docs/lib/content/commands/npm-bugs.md">Edit this page on GitHub</a></footer>
</section></body>"""


def test_a_sections_own_header_is_kept_and_a_table_of_contents_by_id_is_dropped() -> None:
    _, items = parse_html(NPM)
    headings = [i.text for i in items if isinstance(i, Heading)]
    assert headings == ["npm-bugs @10.8.2", "Synopsis"]  # no "Table of contents"
    text = texts(items)
    assert "Report bugs for a package in a web browser" in text
    assert "npm bugs [<pkgname>]" in text
    assert "Edit this page" not in text  # a section's footer is still chrome
    # a header or footer outside any section, article or main is still the site's
    _, items = parse_html("<header><h1>Site</h1></header><p>body</p><footer>(c) site</footer>")
    assert texts(items) == "body"


def test_landmark_roles_around_the_content_are_dropped() -> None:
    page = (
        '<div role="banner">Site banner</div><div role="search">Search the docs</div>'
        '<p>Body text.</p><div role="complementary">Related pages</div>'
        '<div role="contentinfo">(c) 2026</div>'
    )
    assert texts(parse_html(page)[1]) == "Body text."


# ffmpeg's manual (ffmpeg-doc, Texinfo 6.8), cut down: a table of options
FFMPEG = """<dl compact="compact">
<dt><span><samp>-y (<em>global</em>)</samp></span></dt>
<dd><p>Overwrite output files without asking.
</p>
</dd>
<dt><span><samp>-c[:<var>stream_specifier</var>] <var>codec</var></samp></span></dt>
<dt><span><samp>-codec[:<var>stream_specifier</var>] <var>codec</var></samp></span></dt>
<dd><p>Select an encoder.</p><p>For example</p></dd>
<dt>-example</dt>
<dd><pre class="example">ffmpeg -i INPUT -map 0 OUTPUT
</pre><p>encodes all streams.</p></dd>
<dt>Parameters:</dt><dd><p>obj – the object</p></dd>
<dt>-n</dt><dd>Do not overwrite.</dd>
</dl>"""


def test_a_books_index_is_navigation_not_text() -> None:
    # PostgreSQL's bookindex.html (DocBook), Python's genindex-A.html (Sphinx), libffi's
    # Index.html (Texinfo): lists of words linking to the sections that hold them, which a
    # question's words matched ("ignore_checksum_failure configuration parameter, Developer
    # Options, ...") before the sections themselves
    page = (
        '<h1>Index</h1><div class="indexdiv"><h3>A</h3><dl><dt>ALTER TABLE, '
        '<a class="indexterm" href="sql-altertable.html">ALTER TABLE</a></dt></dl></div>'
        '<table class="indextable"><tr><td><a href="f.html#abs">abs()</a></td></tr></table>'
        '<table class="index-cp"><tr><td><a href="c.html">closure</a></td></tr></table>'
        # the letters over an index: Texinfo's "Jump to:" table, DocBook's quick links
        '<table><tr><th>Jump to:</th><td><a href="#A">A</a> <a href="#C">C</a> '
        '<a href="#F">F</a></td></tr></table><p><a href="#s">Symbols</a> | <a href="#a">A</a> | '
        '<a href="#b">B</a> | <a href="#c">C</a></p>'
        "<p>Body text.</p><p>A B</p><pre>X Y Z</pre>"
    )
    for fast in (True, False):
        assert texts(parse_html(page, fast=fast)[1]) == "Index\nBody text.\nA B\nX Y Z"
    # a definition list after the letters keeps its terms with their definitions (the terms
    # are found by their place among the page's blocks, before any is dropped)
    terms = "<p>Symbols | A | B | C</p><dl><dt>-y</dt><dd><p>Overwrite.</p></dd><dt>-n</dt><dd><p>Never.</p></dd></dl>"
    for fast in (True, False):
        assert texts(parse_html(terms, fast=fast)[1]) == "-y: Overwrite.\n-n: Never."


def test_a_term_that_asks_a_question_takes_no_colon_after_it() -> None:
    # git's FAQ (gitfaq.html): "How do I change it?" over its answer, read "How do I change it?:"
    faq = (
        "<dl><dt>How do I change it?</dt><dd><p>Run git commit --amend.</p></dd>"
        "<dt>Stop!</dt><dd><p>Wait.</p></dd></dl>"
    )
    for fast in (True, False):
        assert [i.text for i in parse_html(faq, fast=fast)[1] if isinstance(i, Block)] == [
            "How do I change it? Run git commit --amend.",
            "Stop! Wait.",
        ]


def test_a_definition_lists_terms_come_with_their_definitions_first_paragraph() -> None:
    for fast in (True, False):
        items = parse_html(FFMPEG, fast=fast)[1]
        assert [(i.kind, i.text) for i in items if isinstance(i, Block)] == [
            ("text", "-y (global): Overwrite output files without asking."),
            (
                "text",
                "-c[:stream_specifier] codec, -codec[:stream_specifier] codec: Select an encoder.",
            ),
            ("text", "For example"),  # the second paragraph of a definition stands alone
            ("text", "-example"),  # a definition that begins with code: the term on its own
            ("code", "ffmpeg -i INPUT -map 0 OUTPUT"),
            ("text", "encodes all streams."),
            ("text", "Parameters: obj – the object"),  # a term ending in ":" takes no other
            ("text", "-n: Do not overwrite."),
        ]
        merged = items[0]
        assert isinstance(merged, Block)
        # the term's line, then its definition's: a chunk still says where it was found
        assert [line.number for line in merged.lines] == [2, 3]
        assert [line.number for line in items[-1].lines] == [13]  # one line: one Line


def test_only_a_definition_right_after_its_terms_takes_them() -> None:
    page = (
        "<dl><dt>orphan</dt></dl><p>A paragraph after the list.</p>"
        # a list whose text is all in-page links is a table of contents, dropped: a term in it
        # is gone with it and defines nothing after it
        '<ul><li><dl><dt><a href="#a">Contents</a></dt></dl></li></ul>'
        "<p>Intro.</p><dl><dd><p>A definition with no term.</p></dd></dl>"
    )
    for fast in (True, False):
        assert [i.text for i in parse_html(page, fast=fast)[1]] == [
            "orphan",
            "A paragraph after the list.",
            "Intro.",
            "A definition with no term.",
        ]
    # an empty dt defines nothing: the paragraph after it is no term of the next dd
    empty = "<dl><dt></dt><dd><p>A.</p></dd><dd><p>B.</p></dd><dt><p>t</p></dt><dd>d.</dd></dl>"
    for fast in (True, False):
        assert [i.text for i in parse_html(empty, fast=fast)[1]] == ["A.", "B.", "t: d."]
    # end tags a page leaves out (they are optional): each dt ends at the next dt or dd;
    # Graphviz's list of output formats also writes the comma between two terms itself
    graphviz = "<dl><dt><strong>svg</strong>\n,<dt><strong>svgz</strong>\n<dd>Produce SVG output."
    for fast in (True, False):
        assert [i.text for i in parse_html(graphviz, fast=fast)[1]] == [
            "svg , svgz: Produce SVG output."
        ]


def _prose_lines(n: int) -> str:
    return "".join(
        f"The undo command reverts the change number {i} of the text here.\n" for i in range(n)
    )


def test_a_pre_that_holds_a_page_of_text_is_read_as_plain_text() -> None:
    # Vim's help pages (vim-doc): the whole page is one <pre> of the help file's text
    page = (
        "<title>Vim documentation: undo</title>\n<h1>Vim documentation: undo</h1>\n<pre>\n"
        + _prose_lines(60)
        + "\n1. Undo and redo commands\t\t\t*<a name='undo-commands'></a>undo-commands*\n\n"
        + "u\t\t\tUndo [count] changes.\n\n"
        + _prose_lines(60)
        + "</pre>"
    )
    for fast in (True, False):
        items = parse_html(page, fast=fast)[1]
        headings = [(i.text, i.level, i.line) for i in items if isinstance(i, Heading)]
        assert headings == [
            ("Vim documentation: undo", 1, 2),
            ("1. Undo and redo commands *undo-commands*", 2, 65),  # the page's line
        ]
        blocks = [i for i in items if isinstance(i, Block)]
        assert all(b.kind == "text" for b in blocks)
        assert "u Undo [count] changes." in [b.text for b in blocks]
        assert blocks[0].lines[0].number == 4


def test_a_manual_page_in_a_pre_has_its_sections() -> None:
    # Postfix's postqueue.1.html (postfix-doc): a manual page formatted for a terminal
    body = "".join(
        f"       the queue is flushed and the mail number {i} is sent out now.\n"
        for i in range(100)
    )
    page = (
        "<html><body><pre>\nPOSTQUEUE(1)\n\n<b>NAME</b>\n       postqueue - Postfix queue control\n\n"
        f"<b>DESCRIPTION</b>\n{body}</pre>"
    )
    for fast in (True, False):
        items = parse_html(page, fast=fast)[1]
        assert [i.text for i in items if isinstance(i, Heading)] == ["NAME", "DESCRIPTION"]


def test_a_short_manual_page_in_a_pre_is_text_and_its_hyphenated_words_whole() -> None:
    # Postfix's postkick.1.html: 89 lines, too few to be read as prose by length alone
    page = """<html><body><pre>
POSTKICK(1)                                                        POSTKICK(1)

<b>NAME</b>
       postkick - kick a Postfix service

<b>SYNOPSIS</b>
       <b>postkick</b> [<b>-c</b> <i>config_dir</i>] <i>class service request</i>

<b>DESCRIPTION</b>
       The  <b>postkick</b>(1) command sends <i>request</i> to the specified <i>service</i> over a lo-
       cal transport channel. This command makes Postfix  private  IPC  ac-
       cessible to shell scripts: a local  transport  and  accessible  mail.
</pre>"""
    for fast in (True, False):
        items = parse_html(page, fast=fast)[1]
        assert [i.text for i in items if isinstance(i, Heading)] == [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
        ]
        assert items[-1].text == (
            "The postkick(1) command sends request to the specified service over a local "
            "transport channel. This command makes Postfix private IPC accessible to shell "
            "scripts: a local transport and accessible mail."
        )
    # a short <pre> with no manual page's sections stays code
    code = "<pre>\nNAME\n    x = 1\nOPTIONS\n    y = 2\n</pre>"
    assert [(i.kind, len(i.lines)) for i in parse_html(code)[1] if isinstance(i, Block)] == [
        ("code", 4)
    ]


def test_code_in_a_long_pre_stays_code() -> None:
    code = "".join(
        f"def add_{i}(values):\n    total = 0  # the sum so far\n    for value in values:\n"
        "        total += value\n    return total\n\n"
        for i in range(20)
    )
    comments = "".join(
        f"//! The module documents the part number {i} of the std library.\n" for i in range(120)
    )
    for text in (code, comments, _prose_lines(99)):  # too few lines for a page
        for fast in (True, False):
            items = parse_html(f"<pre>{text}</pre>", fast=fast)[1]
            assert [i.kind for i in items if isinstance(i, Block)] == ["code"]


# ImageMagick's jp2.html: a table of options and what they do, no header row; its first row
# was read as the columns' names ("jp2:layer-number=x: jp2:reduce-factor=x; set the ...")
NO_HEADER = """<p>Here is a complete list of JPEG-2000 decoding options:</p>
<table class="table table-sm table-hover">
  <tr>
    <td>jp2:layer-number=<var>x</var></td>
    <td>set the maximum number of quality layers to decode.</td>
  </tr>
  <tr>
    <td>jp2:reduce-factor=<var>x</var></td>
    <td>set the number of highest resolution levels to be discarded.</td>
  </tr>
</table>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
<table><tr><th>Default:</th><td>5</td></tr><tr><th>Context:</th><td>server</td></tr></table>
"""


def tables(page: str, fast: bool) -> list[list[str]]:
    """The lines of each table block ``parse_html`` reads from ``page``."""
    _, items = parse_html(page, fast=fast)
    return [[ln.text for ln in i.lines] for i in items if getattr(i, "kind", "") == "table"]


def test_a_table_with_no_header_row_gets_an_empty_one() -> None:
    for fast in (True, False):
        assert tables(NO_HEADER, fast) == [
            [
                "|  |  |",
                "| jp2:layer-number=x | set the maximum number of quality layers to decode. |",
                (
                    "| jp2:reduce-factor=x | set the number of highest resolution levels to be"
                    " discarded. |"
                ),
            ],
            ["| Name | Value |", "| a | 1 |"],  # a row of header cells is the header
            ["|  |  |", "| Default: | 5 |", "| Context: | server |"],  # header cells by rows
        ]


def test_the_answer_reads_each_row_of_a_table_with_no_header_as_its_cells() -> None:
    from docqa.models.sentences import sentences

    document = parse_document("www/jp2.html", NO_HEADER)
    assert list(sentences(document.sections[0].text)) == [
        "Here is a complete list of JPEG-2000 decoding options:",
        "jp2:layer-number=x; set the maximum number of quality layers to decode.",
        "jp2:reduce-factor=x; set the number of highest resolution levels to be discarded.",
        "Name: a; Value: 1",
        "Default: 5",
        "Context: server",
    ]


def test_a_pipe_inside_a_cell_is_written_escaped_and_read_back_as_one_cell() -> None:
    from docqa.models.sentences import sentences

    page = (
        "<h1>Redirection</h1><table><tr><th>Form</th><th>Effect</th></tr>"
        "<tr><td><code>a | b</code></td><td>pipes a into b</td></tr>"
        "<tr><td>||</td><td>or</td></tr></table>"
    )
    for fast in (True, False):
        want = ["| Form | Effect |", "| a \\| b | pipes a into b |", "| \\|\\| | or |"]
        assert tables(page, fast) == [want]
    document = parse_document("shell.html", page)
    assert list(sentences(document.sections[0].text)) == [
        "Form: a | b; Effect: pipes a into b",
        "Form: ||; Effect: or",
    ]


def test_a_line_break_in_running_text_keeps_the_lines_apart() -> None:
    # the Apache manual's examples: a command and what it prints, in one paragraph
    page = """<h2>Getting it working</h2>
<p>To create the file, type:</p>
<div class="example"><p><code>
  # htpasswd -c /usr/local/apache/passwd/passwords rbowen<br>
  New password: mypassword<br>
  Adding password for user rbowen
</code></p></div>
<ul><li>Security:<br />Fix use-after-free<br />Fix memory leak</li></ul>
<dl><dt>like(X,Y)<br />like(X,Y,Z)</dt><dd><p>The like() function.</p></dd></dl>
<table><tr><th>Syntax:</th><td>a<br>b</td></tr></table>"""
    for fast in (True, False):
        blocks = [i for i in parse_html(page, fast=fast)[1] if isinstance(i, Block)]
        assert [(b.kind, b.text) for b in blocks] == [
            ("text", "To create the file, type:"),
            ("text", "# htpasswd -c /usr/local/apache/passwd/passwords rbowen"),
            ("text", "New password: mypassword"),
            ("text", "Adding password for user rbowen"),
            ("text", "Security:"),
            ("text", "Fix use-after-free"),
            ("text", "Fix memory leak"),
            # a term's breaks and a cell's stay spaces: one term, one cell
            ("text", "like(X,Y) like(X,Y,Z): The like() function."),
            ("table", "|  |  |\n| Syntax: | a b |"),
        ]
        assert [b.lines[0].number for b in blocks[1:4]] == [4, 5, 6]


def test_the_items_and_paragraphs_of_a_cell_are_words_apart() -> None:
    # the Apache manual's "Related Directives": one list in a cell, one directive an item
    page = (
        "<table><tr><th>Related Modules</th><th>Related Directives</th></tr>"
        "<tr><td><ul><li><code>core</code></li></ul></td><td><ul><li><code>DocumentRoot</code>"
        "</li><li><code>ServerName</code></li></ul></td></tr>"
        "<tr><td><p>one</p><p>two</p></td><td><div>a</div>b</td></tr></table>"
    )
    for fast in (True, False):
        (table,) = parse_html(page, fast=fast)[1]
        assert isinstance(table, Block)
        assert table.text.splitlines() == [
            "| Related Modules | Related Directives |",
            "| core | DocumentRoot ServerName |",
            "| one two | a b |",
        ]
