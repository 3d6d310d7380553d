"""Whether two files whose ids would be the same hold the same page in two formats
(``vm.md`` beside ``vm.html``, as Node.js ships its API docs), or two different texts that
happen to share a name (``good.md``, ``good.txt``): the walk of a folder reads one file of
the first kind and counts the other with the file read for it, and reads every file of the
second kind, their ids keeping their suffixes (:func:`docqa.text.loaders.find_files`,
:func:`docqa.text.ids.suffixed`).
"""

from __future__ import annotations

import re
from pathlib import Path

from docqa.text.documents import SkippedFile
from docqa.text.reading import document_from_bytes, read_bytes

# Two files whose ids would be the same are the same page in two formats when the sets of
# words of their extracted texts overlap by at least this share (Jaccard). Measured on
# Node.js's API pages as Debian ships them: each of the 64 ``x.md`` beside ``x.html`` at
# 0.84 or more (median 0.96), 122 pairs of different pages at 0.42 or less (``http`` and
# ``http2``, the closest).
SAME_PAGE = 0.7
# ... or when the words of ``a`` (the file the walk would pass over) are nearly all in ``b``:
# passing ``a`` over then loses no word a search could find. Git's manual pages as Debian
# ships them (``git-doc``): an AsciiDoc source whose ``include::`` docqa does not follow
# beside its HTML page with the included text in it (24 of the 203 pairs overlap by less than
# 0.7, as little as 0.03; of those, 23 have every word of the source in the page and one
# 0.993). Node.js's pages: one page's words within another page's at most 0.91 (an 11-word
# page).
CONTAINED = 0.98
_WORD = re.compile(r"\w+")


def same_page(a: Path, a_source: str, b: Path, b_source: str) -> bool:
    """Whether file ``a`` holds the same page as file ``b`` (read as ``a_source``,
    ``b_source``): the same bytes, extracted texts whose word sets overlap by ``SAME_PAGE``,
    or a text of ``a`` with at least ``CONTAINED`` of its words in ``b``'s. A file that
    cannot be read or parsed is the same page as nothing (the walk reports it, never passes
    it over without a word)."""
    first, second = read_bytes(a), read_bytes(b)
    if isinstance(first, SkippedFile) or isinstance(second, SkippedFile):
        return False
    if first == second:
        return True
    words = []
    for source, data in ((a_source, first), (b_source, second)):
        doc = document_from_bytes(source, data, "")
        if isinstance(doc, SkippedFile):
            return False
        words.append(set(_WORD.findall(doc.text.lower())))
    union, common = len(words[0] | words[1]), len(words[0] & words[1])
    return union > 0 and (common >= SAME_PAGE * union or common >= CONTAINED * len(words[0]) > 0)
