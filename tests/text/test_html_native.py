"""The native HTML scanner (``docqa._parse.scan_html``) gives exactly what the reference
(``HTMLParser`` driving ``docqa.text.html._PageParser``) gives, or hands the text back to it:
on the real pages of the pydocs set, on the sample library's Markdown HTML blocks, on
generated pages and on markup soup."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa._parse import scan_html
from docqa.text.html import _MARKS_CONTENT, _reference, html_fragment_blocks, parse_html

ROOT = Path(__file__).resolve().parents[2]
# shared/ lies beside the checkout (or beside the folder of worktrees)
PYDOCS = [p / "shared" / "evalsets" / "pydocs" / "corpus" for p in (ROOT.parent, ROOT.parents[1])]
PAGES = sorted(page for d in PYDOCS if d.is_dir() for page in d.rglob("*.html"))


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
    ],
)
def test_markup_outside_the_subset_goes_to_the_reference(text: str) -> None:
    assert scan_html(text, 1, False) is None
    assert parse_html(text) == parse_html(text, fast=False)


TAG = st.sampled_from(
    ["p", "div", "h1", "h2", "pre", "table", "tr", "td", "th", "a", "span", "br", "nav",
     "main", "article", "header", "footer", "title", "script", "style", "li", "B", "Section"]
)  # fmt: skip
ATTR = st.sampled_from(
    ["", " class=headerlink", " class='x headerlink'", ' role="main"', " role=navigation",
     " id=a", ' title="a > b"', " hidden", " data-v='1\n2'", " class=&quot;x"]
)  # fmt: skip
TEXT = st.sampled_from(["loan", " ", "\n", "&amp;", "é", "a < b", "¶", "x\n\ny", "&#955;", "&"])


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
