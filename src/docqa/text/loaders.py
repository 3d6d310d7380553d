"""Files and folders to ``Document``s: a folder (recursively) or files of .md, .rst, .adoc (and
.asciidoc), .txt, .html, .htm and .pdf, manual pages (``ls.1``) and a package's README, FAQ
and NEWS files (``docqa.text.reading.TEXT_NAMES``), each also gzipped (``guide.md.gz``, as
Debian ships documentation). One file's reading and parsing is
:mod:`docqa.text.reading`; this module finds the files of the paths given and loads them,
reporting what it skips.

A file that cannot become a document is skipped: the rest still loads, the file and the reason
go into the ``LoadReport``, and a ``SkippedFileWarning`` is issued naming both. A warning rather
than a log record because a skip is a problem with the caller's input that the caller can act
on: tests catch it with ``pytest.warns``, a strict caller turns it into an error with
``-W error``, the CLI silences it with ``warnings.catch_warnings`` and prints the report
instead, and nothing has to configure logging for it to be seen.

Folders are walked in sorted order; hidden files and folders (``.git``, ``.docqa``) and files
of other types are ignored, and so is a Sphinx build's copy of a page's source
(``_sources/os.rst.txt``) when the built page (``os.html``) is in the same folder: the same
text twice would fill a search's hits with pairs; so are the files of a Sphinx build's
``_static`` folder (its theme's: a font's README is no page of the documents). ``source`` is
the path relative to the folder given (for a file given directly, its name), with ``/``
separators.
"""

from __future__ import annotations

import errno
import os
import stat
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from docqa.errors import InputError
from docqa.text.documents import Document, LoadReport, SkippedFile
from docqa.text.ids import id_base, suffixed
from docqa.text.reading import (
    FORMATS,
    GZIP,
    READS,
    document_from_bytes,
    format_of,
    load_file,
    parse_document,
    read_bytes,
)
from docqa.text.same_page import same_page
from docqa.text.walk import tree

__all__ = [
    "BUILT_SOURCES",
    "COPIES",
    "FORMATS",
    "GZIP",
    "LINKS",
    "OTHER_FORMATS",
    "READS",
    "SPHINX_SOURCES",
    "SPHINX_STATIC",
    "STATIC_FILES",
    "SkippedFileWarning",
    "check_unique",
    "document_from_bytes",  # one file's reading (docqa.text.reading), named here too
    "find_files",
    "format_of",
    "load_file",
    "load_path",
    "load_paths",
    "parse_document",
    "printable_name",
    "raise_nothing_loaded",
    "read_bytes",
]


class SkippedFileWarning(UserWarning):
    """A file was skipped while loading; the message names the file and the reason."""


def printable_name(path: str | Path) -> str:
    """``path`` as text that can be printed and stored: bytes of a file name that are not
    UTF-8 (kept by Python as lone surrogates) are shown as ``\\xff``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _walk_problem(relative: str, symlink: Path | None) -> str | None:
    """Why a path met while walking a folder cannot be loaded, or None when it can
    (``symlink``: the entry's path, when it is a symbolic link)."""
    if printable_name(relative) != relative:
        return "the file name is not valid UTF-8; rename the file"
    if symlink is None:
        return None
    path = symlink
    try:
        target = path.stat()
    except FileNotFoundError:
        return f"dangling symlink (points to {printable_name(os.readlink(path))!r})"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop"
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISDIR(target.st_mode):
        return "symlinked folder, not followed; give its path to index it"
    return None


# A Sphinx build keeps each page's source beside the built page: ``_sources/os.rst.txt`` (or
# ``.md.txt``; ``os.txt`` before Sphinx 1.5) for ``os.html`` (``os/index.html`` from dirhtml).
SPHINX_SOURCES = "_sources"
BUILT_SOURCES = "Sphinx sources of built pages"  # how the summary counts those passed over


# ... and copies its theme's and extensions' files into ``_static`` beside the pages (the build's
# root holds ``objects.inv`` and ``searchindex.js``): stylesheets, scripts, fonts, and with them
# such files as a font's README, never a page of the documents (Borg's manual ships three font
# READMEs, whose "Installation instructions" were found for the manual's own).
SPHINX_STATIC = "_static"
STATIC_FILES = "files of a Sphinx build's _static folder"  # how the summary counts those
_SPHINX_ROOT_FILES = frozenset({"objects.inv", "searchindex.js"})


def _sphinx_roots(entries: Sequence[tuple[tuple[str, ...], os.DirEntry[str]]]) -> set[str]:
    """The folders (``"a/b/"``; ``""``: the one walked) of Sphinx builds among ``entries``."""
    marks = (parts for parts, e in entries if e.name in _SPHINX_ROOT_FILES)
    return {"".join(f"{p}/" for p in parts[:-1]) for parts in marks}


def _in_static(parts: tuple[str, ...], roots: set[str]) -> bool:
    """Whether ``parts`` lies in the ``_static`` folder of a Sphinx build at one of ``roots``."""
    return any(
        part == SPHINX_STATIC and "".join(f"{p}/" for p in parts[:i]) in roots
        for i, part in enumerate(parts[:-1])
    )


def _built_page(parts: tuple[str, ...], files: set[str]) -> bool:
    """Whether ``parts`` is a Sphinx build's copy of a page's source (``_sources/...txt``)
    whose built page is in ``files`` (relative paths): the same text, twice, else."""
    at = parts.index(SPHINX_SOURCES)
    name = "/".join(parts[at + 1 :])
    if not name.lower().endswith(".txt"):
        return False
    prefix = "".join(f"{p}/" for p in parts[:at])
    stem = name[:-4]
    stems = [stem]
    dot = stem.rfind(".")
    if dot > stem.rfind("/") + 1:
        stems.append(stem[:dot])  # os.rst -> os
    return any(f"{prefix}{s}{page}" in files for s in stems for page in (".html", "/index.html"))


# A folder often holds one page in several formats: Node.js's API docs ship ``vm.md`` beside
# ``vm.html``, Debian's docs ``guide.html`` beside ``guide.txt.gz``. They would get the same
# ids (``vm#...``), so when their texts are the same page (``docqa.text.same_page``) one is
# read: the format a writer keeps (Markdown, reStructuredText, AsciiDoc) before what is made
# from it (HTML, then a manual page, then plain text, then PDF), the first by name among equals
# (``guide.md`` before ``guide.md.gz``); the others are counted, each with the file read for
# it. Files of one name and different texts are all read, their ids keeping their suffixes
# (``docqa.text.ids``).
# A PDF's ids keep its suffix (``bash.pdf#p3``), so it clashes with no one, but a PDF beside
# its page (Debian's ``bash.pdf`` and ``bash.html``) is the same manual twice: every passage
# found twice, in a prompt's three places. It is compared with the files of its name too.
_FORMAT_RANK = {"markdown": 0, "rst": 1, "asciidoc": 1, "html": 2, "man": 3, "text": 4, "pdf": 5}
OTHER_FORMATS = "the same page in another format"  # how the summary counts those passed over
# Debian's python3 docs hold ``index.html``, a symlink to ``python-policy.html``: one file
# met twice in a walk is read once, under the name that is not a link.
LINKS = "links to pages read"
COPIES = (BUILT_SOURCES, OTHER_FORMATS, LINKS)  # counted apart from the files of other types


def _page_name(relative: str) -> str:
    """What files holding one page in several formats share: their ``id_base``, a PDF's
    without its ``.pdf`` (``bash.pdf`` and ``bash.html``: ``bash``)."""
    base = id_base(relative)
    return base[:-4] if base[-4:].lower() == ".pdf" else base


def _copies(wanted: list[tuple[str, os.DirEntry[str]]]) -> dict[int, int]:
    """Of the files of one walk (relative path and entry, in walk order), those that are the
    same page as another file read, by their place: the place of that file. Files whose ids
    would be the same are taken in the order of the most kept format (then walk order), and
    each is compared with those of them already read."""
    ranks: dict[str, list[tuple[int, int]]] = {}
    for i, (relative, _) in enumerate(wanted):
        rank = (_FORMAT_RANK[format_of(relative) or "text"], i)
        ranks.setdefault(_page_name(relative), []).append(rank)
    out: dict[int, int] = {}
    for group in ranks.values():
        read: list[int] = []
        for _, i in sorted(group):
            (relative, entry) = wanted[i]
            paths = ((j, Path(wanted[j][1].path), wanted[j][0]) for j in read)
            page = next((j for j, p, r in paths if same_page(Path(entry.path), relative, p, r)), -1)
            if page < 0:
                read.append(i)
            else:
                out[i] = page
    return out


def _one_per_file(entries: list[os.DirEntry[str]]) -> list[bool]:
    """Per file met in one walk, whether it is read: of the entries naming the same file
    (a symlink to another file of the walk), the first that is not a link. Only a walk that
    meets a symlink asks for the files' stats (cached: an index's build takes them anyway)."""
    if not any(e.is_symlink() for e in entries):
        return [True] * len(entries)
    read = [False] * len(entries)
    seen: set[tuple[int, int]] = set()
    for i in sorted(range(len(entries)), key=lambda i: entries[i].is_symlink()):
        st = entries[i].stat()
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            read[i] = True
    return read


def _walk(
    given: Path,
    found: list[tuple[Path, str]],
    unknown: list[SkippedFile],
    others: Counter[str] | None,
    stats: list[os.stat_result] | None,
    copies: list[tuple[str, str]] | None = None,
) -> None:
    entries = tree(given)  # sorted, hidden entries left out
    built: set[str] = set()
    if any(SPHINX_SOURCES in parts for parts, _ in entries):
        built = {"/".join(parts) for parts, e in entries if e.name.lower().endswith(".html")}
    roots = _sphinx_roots(entries)
    wanted: list[tuple[str, os.DirEntry[str]]] = []
    for parts, entry in entries:
        relative = "/".join(parts)
        problem = _walk_problem(relative, Path(entry.path) if entry.is_symlink() else None)
        readable = format_of(entry.name) is not None
        if problem is not None and (readable or "folder" in problem):
            unknown.append(SkippedFile(printable_name(relative), problem))
        elif problem is None and entry.is_file():
            if readable and built and SPHINX_SOURCES in parts and _built_page(parts, built):
                if others is not None:
                    others[BUILT_SOURCES] += 1
            elif readable and roots and _in_static(parts, roots):
                if others is not None:
                    others[STATIC_FILES] += 1
            elif readable:
                wanted.append((relative, entry))
            elif others is not None:
                others[file_type(entry.name) or "(no suffix)"] += 1
    files = _one_per_file([e for _, e in wanted])
    if others is not None and not all(files):
        others[LINKS] += files.count(False)
    wanted = [w for w, read in zip(wanted, files, strict=True) if read]
    copy_of = _copies(wanted)
    for i, (relative, entry) in enumerate(wanted):
        if i not in copy_of:  # the same Path as given.joinpath(*parts), parsed once
            found.append((Path(entry.path), relative))
            if stats is not None:
                stats.append(entry.stat())  # as Path.stat: a symlink's target (cached)
        else:
            if others is not None:
                others[OTHER_FORMATS] += 1
            if copies is not None:
                copies.append((relative, wanted[copy_of[i]][0]))


def file_type(name: str) -> str:
    """A file's type as a reader of the list means it: its suffix, lower case, with the one
    before a ``.gz`` when that one names a type (``".yaml.gz"``, ``".1.gz"``; but
    ``changelog.Debian.gz`` is ``".gz"``); ``""`` for none."""
    path = PurePosixPath(name)
    suffix = path.suffix.lower()
    inner = PurePosixPath(path.stem).suffix[1:] if suffix == ".gz" else ""
    typed = inner.isalnum() and inner == inner.lower() and len(inner) <= 5
    return f".{inner}{suffix}" if typed else suffix


def find_files(
    paths: Iterable[str | Path],
    others: Counter[str] | None = None,
    stats: list[os.stat_result] | None = None,
    copies: list[tuple[str, str]] | None = None,
) -> tuple[list[tuple[Path, str]], list[SkippedFile]]:
    """Files to load as ``(path, source)``, and the files that cannot be (explicitly named
    files of unknown types; met in a folder: names that are not UTF-8, dangling symlinks,
    symlink loops and symlinked folders), each with its reason. ``others``, when given,
    counts by suffix the files met in folders that are of no type docqa reads (passed over
    without a word, as a folder of documentation holds images and the like), the copies
    of pages read (``COPIES``) and the files of a Sphinx build's ``_static`` folder
    (``STATIC_FILES``); ``copies``, when given, gets ``(copy, file read)`` for each
    page passed over as the same page in another format (paths relative to their folder). ``stats``,
    when given, gets each file's ``stat`` in the same order, taken as the walk meets it
    (the walk's entry has it at hand; a second pass over the paths cost ~1.5 of the scan's
    ~10 ms at 1,500 files)."""
    found: list[tuple[Path, str]] = []
    unknown: list[SkippedFile] = []
    for given in map(Path, paths):
        if given.is_dir():
            _walk(given, found, unknown, others, stats, copies)
        elif given.is_file():
            if printable_name(given.name) != given.name:
                reason = "the file name is not valid UTF-8; rename the file"
                unknown.append(SkippedFile(printable_name(given), reason))
            elif format_of(given.name) is not None:
                found.append((given, given.name))
                if stats is not None:
                    stats.append(given.stat())
            else:
                reason = f"unsupported file type {file_type(given.name) or '(none)'!r}; {READS}"
                unknown.append(SkippedFile(printable_name(given), reason))
        else:
            raise InputError(
                f"{printable_name(given)!r} does not exist; give a folder or files to load"
            )
    return found, unknown


def named_sources(paths: Iterable[str | Path], files: Iterable[tuple[Path, str]]) -> frozenset[str]:
    """The sources of ``files`` (``find_files``' or ``discover``'s) that were given by name in
    ``paths``, not met in a folder: read even when they ask not to be indexed."""
    given = {Path(p) for p in paths if Path(p).is_file()}
    return frozenset(source for path, source in files if path in given)


def check_unique(files: Iterable[tuple[Path, str]]) -> None:
    """Raise ``InputError`` when two files would get the same source (the same file or folder
    given twice). Files whose ids alone would be the same (``guide.md`` and ``guide.html``
    given by name) keep their suffixes in their ids (``docqa.text.ids.suffixed``)."""
    seen: dict[str, Path] = {}
    for path, source in files:
        if source in seen:
            raise InputError(
                f"{seen[source]} and {path} would both be {source!r}; load them separately"
            )
        seen[source] = path


def _skip(skipped: list[SkippedFile], path: str, reason: str) -> None:
    skipped.append(SkippedFile(path, reason))
    warnings.warn(f"skipped {path}: {reason}", SkippedFileWarning, stacklevel=3)


def load_paths(
    paths: Iterable[str | Path], others: Counter[str] | None = None
) -> tuple[list[Document], LoadReport]:
    """Load every folder (recursively) and file in ``paths``, in order (``others``, when given,
    counts the folders' files of other types, as ``find_files`` does).

    Returns the documents and a ``LoadReport``. Raises ``InputError`` when a path does not
    exist, when two files would get the same ``source``, or when nothing at all was loaded
    (an empty folder, or every file skipped).
    """
    paths = list(paths)
    found, unknown = find_files(paths, others)
    documents: list[Document] = []
    skipped: list[SkippedFile] = []
    for item in unknown:
        _skip(skipped, item.path, item.reason)
    check_unique(found)
    kept = suffixed(source for _, source in found)
    named = named_sources(paths, found)
    for path, source in found:
        document = load_file(path, source, named=source in named)
        if isinstance(document, SkippedFile):
            _skip(skipped, source, document.reason)
            continue
        documents.append(replace(document, ids=source) if source in kept else document)
    report = LoadReport(tuple(d.source for d in documents), tuple(skipped))
    if not documents:
        raise_nothing_loaded(paths, report)
    return documents, report


def raise_nothing_loaded(
    paths: list[str | Path], report: LoadReport, read: Sequence[str] = ()
) -> None:
    """Raise the ``InputError`` for a load that produced no document (or, with ``read``, the
    sources of the files read, no passage)."""
    where = ", ".join(repr(str(p)) for p in paths) or "(no paths given)"
    if read:
        named = ", ".join(read[:3]) + (f" and {len(read) - 3} more" if len(read) > 3 else "")
        skipped = "; ".join(f"{s.path}: {s.reason}" for s in report.skipped[:3])
        raise InputError(
            f"no text to index in {where}: {named} {'holds' if len(read) == 1 else 'hold'} "
            f"headings and no text under them{f'; skipped {skipped}' if skipped else ''}; "
            "add text under the headings"
        )
    if not report.skipped:
        raise InputError(
            "no .md, .rst, .adoc, .txt, .html, .htm or .pdf files or manual pages (also gzipped) "
            f"found in {where}; "
            "add some"
        )
    raise InputError(f"no documents loaded from {where}: {report.summary()}")


def load_path(path: str | Path) -> tuple[list[Document], LoadReport]:
    """``load_paths([path])``: one folder (recursively) or one file."""
    return load_paths([path])
