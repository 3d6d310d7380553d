"""Which elements of an HTML page are not its content but its chrome, dropped with everything
inside them: scripts and styles, navigation (by element, ARIA role, class or id, as
documentation generators mark it), the site's header and footer outside the content, a
heading's permalink mark, a footnote's mark and the lines an example hides (mdBook's). The
reference reader (``docqa.text.html_reference``) asks :func:`is_chrome`; the native scanner
(``csrc/_html_page.pxi``) encodes the same rules and is tested equal to it.
"""

from __future__ import annotations

DROP = frozenset({"script", "style", "noscript", "template", "svg", "nav", "aside", "button"})
# the classes of an ``a`` that is a heading's permalink mark (compared as written, token by
# token): Sphinx's and MkDocs's, rustdoc's (two) and GitHub's, Bootstrap's and Jupyter's,
# Docusaurus's, Node.js's, the Apache HTTP Server manual's, Texinfo's (6.8; 7)
PERMALINK_CLASSES = frozenset(
    {
        *("headerlink", "anchor", "doc-anchor", "anchor-link", "hash-link", "mark", "permalink"),
        *("copiable-anchor", "copiable-link"),
    }
)
# the class of a ``span`` holding an example's hidden lines: mdBook writes a Rust example's
# lines that the page hides until asked (``# fn main() {`` in the source) as
# ``<span class="boring">``; compared as written
HIDDEN_LINE_CLASSES = frozenset({"boring"})
SITE_CHROME = frozenset({"header", "footer"})
# class names that mark navigation, on the elements documentation generators put it in
# (DocBook's div.navheader / table.nav, gtk-doc's table.navigation, Doxygen's div.navpath,
# Javadoc's div.topNav, Bootstrap's ul.nav; DocBook's div.toc, a page's table of contents),
# and what a page hides as navigation aids do (Doxygen's div.ttc, a symbol's tooltip), and a
# book's index, a list of links to the sections that hold its words (DocBook's and gtk-doc's
# div.indexdiv, PostgreSQL's bookindex.html; Sphinx's table.indextable, its general and
# module indexes; Texinfo's table.index-cp and its other indexes), the Apache manual's
# bars of links to a page's translations (div.toplang, div.bottomlang: "Available Languages:
# de | en | fr"), the sidebar of every Sphinx theme (div.sphinxsidebar: the site's
# table of contents and search box, marked role="navigation" by Sphinx's own themes but
# not by all, e.g. the guzzle theme of Borg's manual), and what a site keeps out of its own
# search (SQLite's div.nosearch: its banner, menu and a page's table of contents); compared
# lower-cased, token by token
NAV_CLASSES = frozenset(
    {
        *("nav", "navbar", "navigation", "navheader", "navfooter", "navpath", "topnav"),
        *("bottomnav", "subnav", "breadcrumb", "breadcrumbs", "toc", "nav-panel", "mini-toc"),
        *("ttc", "toplang", "bottomlang"),
        *("indexdiv", "indextable", "index-cp", "index-fn", "index-vr", "index-ky"),
        *("index-pg", "index-tp", "sphinxsidebar", "nosearch"),
    }
)
NAV_CONTAINERS = frozenset({"div", "table", "ul", "ol", "section"})
# ids that mark a table of contents on those elements (npm's section#table_of_contents),
# compared lower-cased
NAV_IDS = frozenset({"toc", "table-of-contents", "table_of_contents"})
# ARIA landmark roles of what is around a page's content, not in it: its navigation, the
# site's banner and footer (contentinfo), asides (complementary) and the search form
CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
# a div of these classes is site chrome as the header and footer elements are (HTML5 named
# those elements after these most common class names): Texinfo's Next / Previous / Up bar
CHROME_CLASSES = frozenset({"header", "footer"})
# ... and a div of these ids (AsciiDoc's "Last updated" line, the Apache manual's copyright and
# menu at the bottom, its menu and version line at the top); not "header", which AsciiDoc
# gives the div holding a page's title and NAME section
CHROME_IDS = frozenset({"footer", "page-header"})


def is_chrome(
    tag: str,
    attrs: list[tuple[str, str | None]],
    outside_content: bool,
    *,
    in_section: bool,
    in_link: bool,
) -> bool:
    """Whether the element ``tag`` (with ``attrs``) is dropped with everything inside it:
    ``outside_content`` when no ``main`` or ``article`` is open around it, ``in_section``
    when a ``section`` is (a ``header`` in one is that section's own), ``in_link`` inside an
    ``a`` to one of the page's own anchors (a ``sup`` there is a footnote's mark)."""
    named = dict(attrs)
    value = (named.get("class") or "").split()
    classes = {c.lower() for c in value}
    chrome = outside_content and (
        (tag in SITE_CHROME and (tag == "footer" or not in_section))
        or (
            tag == "div"
            and (
                not classes.isdisjoint(CHROME_CLASSES)
                or (named.get("id") or "").lower() in CHROME_IDS
            )
        )
    )
    permalink = tag == "a" and not PERMALINK_CLASSES.isdisjoint(value)
    hidden_line = tag == "span" and not HIDDEN_LINE_CLASSES.isdisjoint(value)
    nav = any(k == "role" and v in CHROME_ROLES for k, v in attrs) or (
        tag in NAV_CONTAINERS
        and (not classes.isdisjoint(NAV_CLASSES) or (named.get("id") or "").lower() in NAV_IDS)
    )
    footnote = tag == "sup" and in_link  # a footnote's mark: "automatically⁵⁹"
    return tag in DROP or chrome or permalink or hidden_line or nav or footnote
