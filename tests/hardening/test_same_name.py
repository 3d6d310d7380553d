"""Class 1, files of one name: ``good.md``, ``good.txt`` and ``good.html`` holding different
texts are three documents whose ids keep their suffixes; a page beside its copy in another
format (Node.js's ``vm.md`` and ``vm.html``) is read once and the summary names the pair; an
update that adds or removes such a file gives the ids a fresh build gives."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from docqa.build import IndexSettings, build_index
from docqa.cli.summary import build_summary
from docqa.collection import Collection
from docqa.index import open_index
from docqa.index.shards import open_any
from docqa.text.ids import suffixed

SETTINGS = IndexSettings(dim=32)
TEXTS = {
    "good.md": "# Good\n\nApples grow on trees in the orchard.\n",
    "good.txt": "Rockets need fuel to reach orbit around the planet.\n",
    "good.html": "<h1>Other</h1><p>Whales sing under the cold sea.</p>",
}


def ids(index_dir: Path) -> list[str]:
    ix = open_any(index_dir)
    return [ix.chunk(i).id for i in range(len(ix))]


def write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def found(index_dir: Path, question: str) -> list[str]:
    hits = Collection.open(index_dir).retriever("keyword", guard=False).search(question, 3)
    return [h.chunk.id for h in hits]


def test_three_texts_of_one_name_are_three_documents(tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {**TEXTS, "other.md": "# Other\n\nPears.\n"})
    report = build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    assert report.documents == 4 and report.skipped == () and report.copies == ()
    assert ids(tmp_path / "ix") == ["good.html#other", "good.md#good", "good.txt#intro",
                                    "other#other"]  # fmt: skip
    assert found(tmp_path / "ix", "whales sing")[0] == "good.html#other"


def test_a_page_and_its_copy_are_one_document_and_the_summary_names_them(tmp_path) -> None:
    docs = write(tmp_path / "docs", {
        "vm.md": "# vm\n\nContexts run scripts apart from the main one.\n",
        "vm.html": "<h1>vm</h1><p>Contexts run scripts apart from the main one.</p>",
        "good.md": TEXTS["good.md"],
    })  # fmt: skip
    report = build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    assert report.documents == 2 and report.copies == (("vm.html", "vm.md"),)
    assert ids(tmp_path / "ix") == ["good#good", "vm#vm"]
    line = build_summary(report)
    assert "passed over 1 copy of pages read (the same page in another format 1: vm.md read " \
           "for vm.html); " in line, line  # fmt: skip


def test_the_summary_names_a_few_copies_and_counts_the_rest(tmp_path: Path) -> None:
    pages = {}
    for stem in ("a", "b", "c", "d", "e"):
        pages[f"{stem}.md"] = f"# {stem}\n\nThe page {stem} says {stem} words.\n"
        pages[f"{stem}.html"] = f"<h1>{stem}</h1><p>The page {stem} says {stem} words.</p>"
    report = build_index([write(tmp_path / "docs", pages)], tmp_path / "ix", SETTINGS, workers=1)
    assert "(the same page in another format 5: a.md read for a.html, b.md read for b.html, " \
           "c.md read for c.html and 2 more); " in build_summary(report)  # fmt: skip


@pytest.mark.parametrize("rewrite", [False, True])
def test_an_update_adding_or_removing_a_text_of_one_name_re_ids_both(tmp_path, rewrite) -> None:
    docs = write(tmp_path / "docs", {"good.md": TEXTS["good.md"]})
    for i in range(20):  # enough other bytes that the change is written as a delta
        (docs / f"p{i:02d}.md").write_text(f"# Page {i}\n\n" + " ".join(["filler"] * 40) + "\n")
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1)
    assert "good#good" in ids(tmp_path / "ix")
    (docs / "good.txt").write_text(TEXTS["good.txt"])
    report = build_index([docs], tmp_path / "ix", SETTINGS, workers=1, rewrite=rewrite)
    assert (report.delta is None) == rewrite
    assert report.embedded == 2  # good.md's rows are built again with their new ids
    assert [i for i in ids(tmp_path / "ix") if i.startswith("good")] == [
        "good.md#good",
        "good.txt#intro",
    ]
    assert found(tmp_path / "ix", "apples orchard")[0] == "good.md#good"
    assert found(tmp_path / "ix", "rockets orbit")[0] == "good.txt#intro"
    fresh = build_index([docs], tmp_path / "fresh", SETTINGS, workers=1)
    assert ids(tmp_path / "ix") == ids(tmp_path / "fresh") and fresh.documents == 22
    (docs / "good.txt").unlink()  # alone again: its ids lose the suffix
    build_index([docs], tmp_path / "ix", SETTINGS, workers=1, rewrite=rewrite)
    assert "good#good" in ids(tmp_path / "ix") and "good.md#good" not in ids(tmp_path / "ix")
    assert found(tmp_path / "ix", "apples orchard")[0] == "good#good"


def test_the_ids_and_the_index_are_the_same_whatever_order_the_files_are_made(
    tmp_path: Path,
) -> None:
    names = list(TEXTS)
    for run, order in enumerate((names, names[::-1], names[1:] + names[:1])):
        docs = tmp_path / f"docs{run}"
        docs.mkdir()
        for name in order:  # made in another order: the folder lists them in another order
            (docs / name).write_text(TEXTS[name])
        build_index([docs], tmp_path / f"ix{run}", SETTINGS, workers=1)
    assert ids(tmp_path / "ix0") == ids(tmp_path / "ix1") == ids(tmp_path / "ix2") == [
        "good.html#other", "good.md#good", "good.txt#intro",
    ]  # fmt: skip
    for name in ("vectors.npy", "chunks.blob", "chunks.offsets.npy"):
        assert filecmp.cmp(tmp_path / "ix0" / name, tmp_path / "ix1" / name, shallow=False)
    assert suffixed(names) == suffixed(names[::-1]) == frozenset(names)


def test_the_rule_keeps_every_files_ids_apart() -> None:
    # good.md.txt's ids would be good.md#..., those of good.md once it keeps its suffix
    assert suffixed(["good.md", "good.txt", "good.md.txt", "solo.md", "r.pdf", "r.md"]) == {
        "good.md", "good.txt", "good.md.txt",
    }  # fmt: skip
    assert suffixed(["g/a.md", "h/a.md"]) == frozenset()  # other folders: other ids


def test_files_of_one_name_given_by_name_are_both_indexed(tmp_path: Path) -> None:
    docs = write(tmp_path / "docs", {"good.md": TEXTS["good.md"], "good.txt": TEXTS["good.txt"]})
    build_index([docs / "good.md", docs / "good.txt"], tmp_path / "ix", SETTINGS, workers=1)
    assert ids(tmp_path / "ix") == ["good.md#good", "good.txt#intro"]
    assert open_index(tmp_path / "ix").manifest.meta["files"]["good.md"]["ids"] == "good.md"
