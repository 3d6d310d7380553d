"""The native HTML scanner (``docqa._parse.scan_html``) gives exactly what the reference
(``HTMLParser`` driving ``docqa.text.html._PageParser``) gives, or hands the text back to it:
on the real pages of the pydocs set, on the sample library's Markdown HTML blocks, on
generated pages and on markup soup."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa._parse import marks_content, scan_html
from docqa.text.documents import Block, Heading
from docqa.text.html import _MARKS_CONTENT, _reference, html_fragment_blocks, parse_html

ROOT = Path(__file__).resolve().parents[2]
# shared/ lies beside the checkout (or beside the folder of worktrees)
PYDOCS = [p / "shared" / "evalsets" / "pydocs" / "corpus" for p in (ROOT.parent, ROOT.parents[1])]
# the first of them found (a checkout may see the same set in both places)
PAGES = next((sorted(d.rglob("*.html")) for d in PYDOCS if d.is_dir()), [])


def same(text: str, first_line: int = 1, content_only: bool | None = None) -> bool:
    """True when the scanner handled ``text`` (asserting it equals the reference), False when
    it handed the text back."""
    only = bool(_MARKS_CONTENT.search(text)) if content_only is None else content_only
    found = scan_html(text, first_line, only)
    if found is None:
        return False
    assert found == _reference(text, first_line, only)
    return True


@pytest.mark.skipif(not PAGES, reason="the pydocs evaluation set is not beside the repository")
def test_every_pydocs_page_is_scanned_natively_and_the_same() -> None:
    handled = [same(path.read_text(encoding="utf-8-sig")) for path in PAGES]
    assert len(handled) > 100
    assert all(handled)  # none of these real pages needs the fallback


def test_public_functions_agree_with_their_reference_forms() -> None:
    page = "<title>T — site</title><main><h1>T</h1><p>a &amp; b<br>c</p></main><footer>x</footer>"
    assert parse_html(page) == parse_html(page, fast=False) == ("T", parse_html(page)[1])
    fragment = "<div>\n<p>one</p>\n<pre>\n  x = 1\n</pre></div>"
    assert html_fragment_blocks(fragment, first_line=7) == html_fragment_blocks(
        fragment, first_line=7, fast=False
    )
    assert html_fragment_blocks(fragment, first_line=7)[0].lines[0].number == 8


@pytest.mark.parametrize(
    "text",
    [
        "<p>a < b and c</p>",  # a < that opens nothing is text
        "<p>x</p><",  # ... also at the very end
        "<p class=a role=navigation>hidden</p><p>shown</p>",
        "<div role='main'><p>in</p><div><p>deep</p></div></div><p>out</p>",
        "<a class='x headerlink' href=#a>¶</a><p>kept</p>",
        '<br/><img src="a.png" /><hr  ><input disabled>text',
        "<script>if (a < b && c > d) { x = '</p>' }</script><p>after</p>",
        "<STYLE>p { }</style >\n<P>Upper</P>",
        "<script>never closed <p>lost</p>",
        "<!-- a\ncomment -- ><!DOCTYPE html><?php x ?><!bogus><p>t</p>",
        "<table><thead><tr><th>A</th></tr></thead><tbody><tr><td>1<td>2</tr></tbody></table>",
        "<h2>Head<div>block breaks it</div></h2>",
        "<pre>\n\n  code\n  more   \n\n</pre>",
        "<title>a &amp; b</title><h1>a</h1>",
        "<p title='a > b'>quoted gt</p>",
        '<p data-x="multi\nline">v</p>',
        "text &lt;&#62;&amp &nbsp;end",
        "<nav><nav>x</nav>still nav</nav><p>out</p>",
        "<header>banner</header><article><header>own</header><p>body</p></article>",
        # character references: decoded natively, by unescape, or kept as text
        "<p>&#65;&#x42;&#X63; &lt;&gt;&quot;&apos; &mdash;&hellip;&para; &sup2; &frac12;x</p>",
        "<p>&#128; &#0; &#xD800; &#1114112; &#9;tab &#13;cr &#99999999999; &#x; &#;</p>",
        "<p>a & b &&amp; &; &#abc; &amp &ampx; &notit; &\rx &Amp; &AMP;</p>",
        "<pre>\n  if a &lt; b:\n\n      pass &amp;&amp; done\n\n\n</pre>",
        "<td>cell outside a row</td><tr><td>  </td><th> </th></tr><tr><td>a\nb</td></tr>",
        # a <br> ends running text's block; in a term, heading, cell, code or title a space
        "<p><code># cmd<br>\nNew: x<br/>Done</code></p><p>a<br><br>b<br></p>",
        "<dl><dt>f(x)<br/>f(x, y)</dt><dd><p>Does.<br>More.</p></dd></dl>",
        "<h2>a<br>b</h2><table><tr><td>c<br>d</td></tr></table><pre>e<br>f</pre><title>g<br>h</title>",
        "<table><tr><td><ul><li>a</li><li>b<p>c</td><td><h3>h<p>i</h3></td></tr></table>",
        "<table><tr><td>1</td><td></td><td>3</td></tr></table><p>after</p>",
        "<title>one</title><title>two &amp; three</title><h1>two</h1>",
        "<h1>a</h1><h1>b<pre>code</pre></h1><h3>\n  spaced \n  out  </h3>",
        "<pre>a</pre><pre>\n</pre><pre>x<pre>nested</pre>y</pre>",
        "<section role=main><section><p>in</p></section></section><p>out</p>",
        "<div role='navigation'><div>n</div></div><div role='&#110;avigation'>e</div><p>k</p>",
        "<a class='a&#32;headerlink'>¶</a><a class='x\u00a0headerlink'>¶</a><a class>k</a>",
        "<a class=headerlinks>kept</a><a class='headerlink' class='x'>kept</a>",
        "<h2>Head<a class=anchor href=#h>§</a></h2><a class='x mark'>#</a><a class=Mark>k</a>",
        "<a class='hash-link anchor-link'>#</a><a class=anchors>kept</a><a class='a&#32;mark'>#</a>",
        "<pre><code>x = 1</code><button class=copy-button>copy</button></pre><p>after</p>",
        "<h1>Struct <span>Vec</span>&nbsp;<button id=copy-path>Copy <b>item</b> path</button></h1>",
        "<button>a<button>nested</button>b</button><p>k</p><BUTTON>up</BUTTON>",
        "<section><header><h1>own</h1></header><footer>f</footer></section><header>site</header>",
        "<section><div class=header>own</div></section><div class='footer'>site</div><p>k</p>",
        "<div role=banner>b</div><p role=contentinfo>c</p><div role='complementary'>x</div>",
        "<form role=search>s</form><div role=Banner>kept</div><div role='&#98;anner'>e</div>",
        "<section id=table_of_contents><h2>Table of contents</h2><ul><li>a</li></ul></section>",
        "<div id=TOC>t</div><ul id='table-of-contents'>u</ul><p id=toc>kept</p><div id=tocs>k</div>",
        "<div id='t&#111;c'>e</div><div id='toc\rx'>k</div><div id='table\rof\rcontents'>k</div>",
        "<div id=toc id=x>kept</div><div id=x id=toc>dropped</div><span id=toc>kept</span>",
        "<p>wide — “quotes”, emoji 😀, nbsp\u00a0and\u2003em\x1cx</p>",
        "<my-custom-element data-a=1>custom</my-custom-element><x:y>ns</x:y>",
        "<p>a\r\nb</p><pre>c\r\nd \r</pre>",
        "<p>x</p><ul><li><a href='#a'>A</a><ul><li><a href=#b>B</a></li></ul></li></ul><p>y</p>",
        "<ol><li><a href='#a'>A</a> does a</li></ol><ul><li><a href='b.html'>B</a></li></ul>",
        "<ul><li><a href='#'>top</a></li></ul><ul><li><a href='&#35;c'>C</a></li></ul><ul> </ul>",
        "<ul><li><a href=#a>A</a></li><li><h3><a href=#b>B</a></h3></li></ul><ol></ol>",
        "<ul><li><a href=#a>A</a><pre>code</pre></li></ul><ul><li><a href=#a>A</a></ul></li>",
        "<table><tr><td><ul><li><a href=#a>in a cell</a></li></ul></td></tr></table>",
        "<ul><li><a href=#a>A</li></ul><p>after an unclosed link</p><ul><li><a href=#a/>x</ul>",
        "<ul><li><a href=#a href=b>last href</a></li></ul><ul><li><a href=b href=#a>c</a></ul>",
        "<main><ul><li><a href=#a>in</a></li></ul></main><ul><li>outside</li></ul>",
    ],
)
def test_edge_markup_is_the_same(text: str) -> None:
    assert same(text)
    assert same(text, first_line=5, content_only=False)


@pytest.mark.parametrize(
    "text",
    [
        "<p>open <a href='x",
        "c<d</p>",
        "<![CDATA[x]]>",
        "<a b==c>",
        "<a \u00a0b>",
        "</p x>",
        "<!-- open",
        "<" + "x" * 70 + ">a tag name longer than the scanner keeps</" + "x" * 70 + ">",
        "<p>a&#10;b</p>",  # a reference that makes a newline would move the lines after it
    ],
)
def test_markup_outside_the_subset_goes_to_the_reference(text: str) -> None:
    assert scan_html(text, 1, False) is None
    assert parse_html(text) == parse_html(text, fast=False)


TAG = st.sampled_from(
    ["p", "div", "h1", "h2", "pre", "table", "tr", "td", "th", "a", "span", "br", "nav",
     "main", "article", "header", "footer", "title", "script", "style", "li", "B", "Section",
     "ul", "ol", "TABLE", "dl", "button", "section", "form", "dt", "dd", "DT", "dd"]
)  # fmt: skip
ATTR = st.sampled_from(
    ["", " class=headerlink", " class='x headerlink'", ' role="main"', " role=navigation",
     " id=a", ' title="a > b"', " hidden", " data-v='1\n2'", " class=&quot;x",
     " class='headerlink x'", " ROLE=Main", " role='main' role=navigation", " class='é headerlink'",
     " class=nav", " class='x NavHeader'", " class=\"toc\x0btoc\"", " class='navé'",
     " class='&#110;av'", " class='nav\x1cx'", " class=navigationx", " class='x nav' class=y",
     " class", " CLASS='TopNav'", " class='breadcrumbs\u00a0z'", " class=header",
     " class='x Footer'", " class=nav-panel", " class='mini-toc'", " class='&#104;eader'",
     " class=sphinxsidebar", " class='x nosearch'",
     " class=boring", " class='x boring'", " class=Boring",
     " class=anchor", " class='x mark'", " class=hash-link", " class='anchor-link y'",
     " class=Anchor", " class=marks", " class='doc-anchor'", " class=permalink", " class=permalinks",
     " class=copiable-anchor", " class='x copiable-link'", " class=copiable",
     " class=ttc", " class='x TTC'", " class=ttcs", " class=fragment", " class='x Fragment'",
     " class=fragments", " class=note", " class='x Tip'", " class=notes", " class='admonition&#32;warning'",
     " id=footer", " ID='Footer'", " id=footers", " id='&#102;ooter'", " id=header", " id=toc", " id='Table_Of_Contents'",
     " role=banner", " role='contentinfo'", " role=search", " id='t\roc'", " role=complementary",
     " href=#a", " href='#'", " HREF='#b c'", " href=x.html", " href='&#35;d'", " href"]
)  # fmt: skip
TEXT = st.sampled_from(
    ["loan", " ", "\n", "&amp;", "é", "a < b", "¶", "x\n\ny", "&#955;", "&", "&#10;", "&lt",
     "&#x41;", "&sup2;", "&nbsp;", "\u00a0", "\u2003", "😀", "—", "\x1c", "\r", "&#128;"]
)  # fmt: skip


@st.composite
def pages(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.integers(0, 4))
        tag = draw(TAG)
        if kind == 0:
            parts.append(f"<{tag}{draw(ATTR)}>")
        elif kind == 1:
            parts.append(f"</{tag}>")
        elif kind == 2:
            parts.append(f"<{tag}{draw(ATTR)}/>")
        elif kind == 3:
            parts.append(draw(st.sampled_from(["<!-- c -->", "<!doctype html>", "<?x?>", "<"])))
        else:
            parts.append(draw(TEXT))
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(pages())
def test_generated_pages_are_the_same(text: str) -> None:
    same(text)
    same(text, first_line=3, content_only=True)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="<>/!-?=\"' \n\tpadivhrole=mainclsx&;é\x0b\u00a0", max_size=80))
def test_any_markup_soup_is_the_same_or_handed_back(text: str) -> None:
    for only in (False, True):
        found = scan_html(text, 1, only)
        assert found is None or found == _reference(text, 1, only)


@pytest.mark.parametrize(
    "text",
    [
        "<main>", "<MAIN\t", "<main", "<mainx>", "<article\u2003x", "<artıcle>", "<maİn>",
        "role=main", "ROLE = 'Main'", 'role="main"x', "role=main_", "role=mainé", "role=main-",
        "role\u00a0=\x1c\"main", "role=''main", "rolemain", "xrole=main", "role=ma", "",
    ],
)  # fmt: skip
def test_marks_content_is_the_pattern(text: str) -> None:
    assert marks_content(text) == bool(_MARKS_CONTENT.search(text))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="<>mainMAINartcleRrolOLE=\"' _\t\u00a0\u0130\u0131xé1", max_size=40))
def test_marks_content_is_the_pattern_on_soup(text: str) -> None:
    assert marks_content(text) == bool(_MARKS_CONTENT.search(text))


@pytest.mark.skipif(not PAGES, reason="the pydocs evaluation set is not beside the repository")
def test_marks_content_on_the_pydocs_pages() -> None:
    texts = [path.read_text(encoding="utf-8-sig") for path in PAGES]
    assert [marks_content(t) for t in texts] == [bool(_MARKS_CONTENT.search(t)) for t in texts]


def test_scanned_objects_are_left_out_of_the_cycle_collector() -> None:
    page = "<h1>T</h1><p>a\nb</p><pre>x\ny</pre><table><tr><td>1</td></tr></table>"
    found = scan_html(page, 1, False)
    assert found is not None and found == _reference(page, 1, False)
    items = found[2]
    assert {type(i).__name__ for i in items} == {"Heading", "Block"}
    lines = [line for i in items if isinstance(i, Block) for line in i.lines]
    assert len(lines) == 6  # the table's row under an empty header (it has none)
    # they hold only str and int (and a block a tuple of lines): no cycle can pass through
    # them, so the collector need not walk them (the reference's stay tracked)
    assert not any(
        gc.is_tracked(o)
        for o in [*items, *lines, *(i.lines for i in items if isinstance(i, Block))]
    )
    gc.collect()
    assert found == _reference(page, 1, False)


DOCBOOK = """<html><head><title>2. Using the core</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr>
<th colspan="3" align="center">2. Using the core</th></tr><tr><td><a accesskey="p" href="a.html">Prev</a></td>
<th>Valgrind User Manual</th><td><a accesskey="n" href="c.html">Next</a></td></tr></table></div>
<div class="chapter"><h2 class="title">2. Using the core</h2>
<div class="toc"><p><b>Table of Contents</b></p><dl class="toc"><dt>2.1. Overview</dt></dl></div>
<p>Valgrind runs your program on a synthetic CPU.</p></div>
<div><table class="nav" width="100%" summary="Navigation footer"><tr>
<td>&lt;&lt; 1. Introduction</td><td><a href="manual.html">Up</a></td><td>3. Memcheck &gt;&gt;</td></tr>
<tr><td><a href="index.html">Home</a></td></tr></table></div>
<ul class="Nav"><li>menu</li></ul><span class="nav">a span is not a container: kept</span>
</body></html>"""


@pytest.mark.parametrize("fast", [True, False])
def test_docbook_and_gtk_doc_navigation_and_tables_of_contents_are_dropped(fast: bool) -> None:
    title, items = parse_html(DOCBOOK, fast=fast)
    assert title == "2. Using the core"
    text = " ".join(line.text for item in items if isinstance(item, Block) for line in item.lines)
    assert text == "Valgrind runs your program on a synthetic CPU. a span is not a container: kept"
    for gone in ("Prev", "Next", "Up", "Home", "Table of Contents", "Memcheck", "menu"):
        assert gone not in text
    assert same(DOCBOOK)  # the scanner takes the page, and agrees with the reference


@pytest.mark.parametrize(
    "classes",
    ["nav", "NAV", "x navigation", "navheader y", "navFooter", "topNav", "breadcrumbs", "toc",
     "ttc",  # Doxygen's hidden tooltip of a symbol in a code example
     "sphinxsidebar",  # a Sphinx theme's sidebar: the site's table of contents, a search box
     "nosearch"],  # what SQLite's pages keep out of their search: banner, menu, contents
)  # fmt: skip
def test_each_navigation_class_drops_its_element(classes: str) -> None:
    page = f"<div class='{classes}'><p>chrome</p></div><p>content</p>"
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [line.text for item in items for line in item.lines] == ["content"]
    assert same(page)


@pytest.mark.parametrize("classes", ["navigation-item", "tocx", "x-nav", "nav_bar", "mobile-nav"])
def test_names_that_only_contain_a_navigation_word_are_kept(classes: str) -> None:
    page = f"<div class='{classes}'><p>kept</p></div>"
    assert [line.text for item in parse_html(page)[1] for line in item.lines] == ["kept"]
    assert same(page)


# Doxygen (ffmpeg's API reference, cut down): a code example is a div.fragment of div.line,
# each symbol's tooltip a hidden div.ttc after the lines
DOXYGEN = """<h2 class="groupheader">Opening a media file</h2>
<p>The URL is passed to <a class="el" href="#ga">avformat_open_input()</a>, as in the following code:</p>
<div class="fragment"><div class="line"><span class="keyword">const</span> <span class="keywordtype">char</span>    *url = <span class="stringliteral">&quot;file:in.mp3&quot;</span>;</div>
<div class="line"><span class="keywordtype">int</span> ret = <a class="code" href="#ga">avformat_open_input</a>(&amp;s, url, NULL, NULL);</div>
<div class="line"><span class="keywordflow">if</span> (ret &lt; 0)</div>
<div class="line">    abort();</div>
<div class="ttc" id="aga"><div class="ttname"><a href="#ga">avformat_open_input</a></div><div class="ttdeci">int avformat_open_input(AVFormatContext **ps)</div><div class="ttdoc">Open an input stream and read the header.</div></div>
</div><!-- fragment --><p>The above code attempts to open the file.</p>"""


CODE_LINES = [
    'const char    *url = "file:in.mp3";',
    "int ret = avformat_open_input(&s, url, NULL, NULL);",
    "if (ret < 0)",
    "    abort();",
]


@pytest.mark.parametrize("fast", [True, False])
def test_doxygen_code_fragments_are_code_and_their_tooltips_are_dropped(fast: bool) -> None:
    _, items = parse_html(DOXYGEN, fast=fast)
    blocks = [(item.kind, item.text) for item in items if isinstance(item, Block)]
    assert blocks == [
        ("text", "The URL is passed to avformat_open_input(), as in the following code:"),
        ("code", "\n".join(CODE_LINES)),
        ("text", "The above code attempts to open the file."),
    ]
    assert same(DOXYGEN)


TEXINFO = """<html><head><title>Arrays (libffi)</title></head><body>
<div class="header"><p>Next: <a href="t.html" accesskey="n" rel="next">Type Example</a>,
Previous: <a href="s.html" accesskey="p" rel="prev">Size</a>, Up: <a href="u.html">Types</a></p></div>
<hr><h4 class="subsection">2.3.4 Arrays, Unions, and Enumerations</h4>
<ul class="mini-toc"><li><a href="#Arrays">Arrays</a></li><li><a href="#Unions">Unions</a></li></ul>
<p>libffi does not have direct support for arrays or unions.</p>
<div class="nav-panel"><p>Next: <a href="t.html">Type Example</a></p></div>
</body></html>"""


@pytest.mark.parametrize("fast", [True, False])
def test_texinfo_bars_and_mini_tables_of_contents_are_dropped(fast: bool) -> None:
    _, items = parse_html(TEXINFO, fast=fast)
    assert [item.text for item in items if isinstance(item, Heading)] == [
        "2.3.4 Arrays, Unions, and Enumerations"
    ]
    text = [line.text for item in items if isinstance(item, Block) for line in item.lines]
    assert text == ["libffi does not have direct support for arrays or unions."]
    assert same(TEXINFO)


@pytest.mark.parametrize("fast", [True, False])
def test_a_footnotes_mark_is_dropped(fast: bool) -> None:
    # R's manuals (Texinfo): "R CMD build will automatically59 create the vignettes"; Pandoc
    # writes its marks alike; a sup elsewhere (a power, "5<sup>th</sup>") and a footnote's
    # own text stay
    page = (
        '<p><code>R CMD build</code> will automatically<a id="DOCF59" href="#FOOT59"><sup>59'
        '</sup></a> create the 5<sup>th</sup> vignette.<a href="#fn1" class="footnote-ref">'
        '<sup>1</sup></a> See <a href="#x">x<b>y</b></a>.</p>\n<h4 id="FOOT59">(59)</h4>'
        "<p>Unless told not to.</p>"
    )
    _, items = parse_html(page, fast=fast)
    text = [line.text for item in items if isinstance(item, Block) for line in item.lines]
    assert text == [
        "R CMD build will automatically create the 5th vignette. See xy.",
        "Unless told not to.",
    ]
    assert same(page)


def test_a_header_or_footer_div_inside_the_marked_content_is_kept() -> None:
    # as the header and footer elements: an article's own header is content
    page = (
        "<div class='header'><p>site banner</p></div><main><div class='header'><p>kept</p>"
        "</div><p>body</p><div class='footer'><p>also kept</p></div></main>"
        "<div class='footer'><p>site footer</p></div>"
    )
    for fast in (True, False):
        _, items = parse_html(page, fast=fast)
        assert [line.text for item in items for line in item.lines] == ["kept", "body", "also kept"]
    assert same(page)
    # a span of class header is not a div: kept
    assert [ln.text for it in parse_html("<span class=header>x</span>")[1] for ln in it.lines] == [
        "x"
    ]


EXPAT = """<html><head><title>Expat XML Parser</title></head><body>
<h1>The Expat XML Parser</h1><p>Expat is a library, written in C, for parsing XML.</p>
<h2>Table of Contents</h2>
<ul>
  <li><a href="#overview">Overview</a></li>
  <li><a href="#reference">Reference</a>
  <ul><li><a href="#XML_Parse">XML_Parse</a></li></ul></li>
</ul>
<h2><a name="overview">Overview</a></h2>
<p>Expat is a stream-oriented parser.</p>
<ul><li><a href="#XML_Parse">XML_Parse</a>: pass a buffer to the parser</li></ul>
<ul><li><a href="https://libexpat.github.io/">The project's site</a></li></ul>
<h2><a name="reference">Reference</a></h2><h3><a name="XML_Parse">XML_Parse</a></h3>
<pre>enum XML_Status XML_Parse(XML_Parser p, const char *s, int len, int isFinal);</pre>
</body></html>"""


@pytest.mark.parametrize("fast", [True, False])
def test_a_list_of_links_to_the_page_itself_is_its_table_of_contents(fast: bool) -> None:
    _, items = parse_html(EXPAT, fast=fast)
    text = [line.text for item in items if isinstance(item, Block) for line in item.lines]
    assert text == [
        "Expat is a library, written in C, for parsing XML.",
        "Expat is a stream-oriented parser.",
        "XML_Parse: pass a buffer to the parser",  # a link, and text of its own: kept
        "The project's site",  # a link elsewhere: kept
        "enum XML_Status XML_Parse(XML_Parser p, const char *s, int len, int isFinal);",
    ]
    headings = [item.text for item in items if isinstance(item, Heading)]
    assert headings == ["The Expat XML Parser", "Table of Contents", "Overview", "Reference",
                        "XML_Parse"]  # fmt: skip
    assert same(EXPAT)
