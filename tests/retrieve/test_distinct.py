"""Each passage once: a hit whose text a better hit holds word for word is left out and the
next passage comes up (a manual's all-in-one page beside its chapters)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from docqa.build import IndexSettings, build_index
from docqa.collection import Collection
from docqa.errors import InputError
from docqa.retrieve.distinct import FETCH, distinct, distinct_batch, distinct_search
from docqa.shards.build import build_sharded
from docqa.types import Chunk, Hit

CHAPTERS = {
    "filters.md": (
        "# Filters\n\n## transpose\n\nTranspose rows with columns to rotate a video by 90 degrees"
        " clockwise or counterclockwise.\n\n## hflip\n\nFlip the input video horizontally.\n"
    ),
    "formats.md": (
        "# Formats\n\n## webm\n\nThe WebM muxer writes VP8 or VP9 video with Vorbis or Opus audio."
        "\n\n## image2\n\nThe image2 muxer writes video frames to numbered image files.\n"
    ),
}
# the all-in-one page: every chapter again, word for word, and a passage of its own
ALL = "# All\n\n" + "\n".join(
    text.replace("# ", "## ", 1).replace("\n## ", "\n### ") for text in CHAPTERS.values()
)
ALL += "\n## rotate\n\nRotate a video by an arbitrary angle expressed in radians.\n"
QUESTIONS = [
    "How do I rotate a video by 90 degrees?",
    "Which muxer writes a video to numbered image files?",
    "flip a video horizontally",
    "What audio does the WebM muxer write?",
]


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("manual")
    for name, text in {**CHAPTERS, "all.md": ALL}.items():
        (root / name).write_text(text)
    return root


@pytest.fixture(scope="module")
def index(docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("index") / "idx"
    build_index([docs], out, IndexSettings(embedder="hashing"))
    return out


def texts(hits: list[Hit]) -> list[str]:
    return [h.chunk.text for h in hits if h.chunk is not None]


@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword"])
def test_a_passage_written_twice_is_one_hit(index: Path, mode: str) -> None:
    collection = Collection.open(index)
    for question in QUESTIONS:
        hits = collection.retriever(mode, guard=False).search(question, 4)
        assert len(set(texts(hits))) == len(hits)
        # what was left out is exactly the copies: the bare ranking, copies skipped, in order
        raw = collection.retriever(mode, guard=False).inner.search(question, 40)  # type: ignore[attr-defined]
        assert [h.id for h in hits] == [h.id for h in distinct(raw)][:4]
    # the copies really are there: the bare ranking holds one passage twice
    raw = collection.retriever("keyword", guard=False).inner.search(QUESTIONS[0], 4)  # type: ignore[attr-defined]
    assert len(set(texts(raw))) < len(raw)


def test_the_better_ranked_copy_is_kept_and_the_next_passage_comes_up(index: Path) -> None:
    collection = Collection.open(index)
    hits = collection.retriever("keyword", guard=False).search(QUESTIONS[0], 3)
    assert len(hits) == 3
    transpose = [h for h in hits if "Transpose rows" in h.chunk.text]  # type: ignore[union-attr]
    assert len(transpose) == 1
    assert any("arbitrary angle" in t for t in texts(hits))  # the all-in-one page's own


@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword"])
def test_a_batch_equals_its_questions_one_by_one(index: Path, mode: str) -> None:
    collection = Collection.open(index)
    questions = QUESTIONS * 5  # 20: the batch kernels' path
    for k in (0, 1, 3, 6):
        want = [collection.retriever(mode, guard=False).search(q, k) for q in questions]
        assert collection.search_batch(questions, k, mode=mode) == want


def test_a_sharded_index_gives_the_same_distinct_hits(
    docs: Path, index: Path, tmp_path: Path
) -> None:
    build_sharded([docs], tmp_path / "sharded", shard_rows=3)
    one, many = Collection.open(index), Collection.open(tmp_path / "sharded")
    for question in QUESTIONS:
        for mode in ("hybrid", "keyword"):
            want = [h.id for h in one.retriever(mode, guard=False).search(question, 4)]
            assert [h.id for h in many.retriever(mode, guard=False).search(question, 4)] == want
    assert many.search_batch(QUESTIONS, 4) == [
        many.retriever("hybrid", guard=False).search(q, 4) for q in QUESTIONS
    ]


def chunk(text: str, row: int, fmt: str | None = None) -> Chunk:
    digest = hashlib.sha256(text.encode()).hexdigest()
    meta = {} if fmt is None else {"format": fmt}
    return Chunk(f"d#{row}", f"d#{row}", ("d",), "d.md", row, 1, 1, text, digest, meta)


STYLES = (
    "For example, to try normal completion without a match specification, then normal "
    "completion with case-insensitive matching, then correction, and finally partial-word "
    "completion: zstyle ':completion:*' completer _complete _correct _complete:foo"
)


def test_a_passage_another_format_repeats_is_one_hit() -> None:
    # zsh ships zsh.pdf beside its HTML pages: the PDF's window starts a few words later, and
    # its quotes are typeset; the HTML page came first
    page = chunk("Standard Styles. " + STYLES + " zstyle matcher-list", 0, "html")
    pdf = chunk(STYLES.replace("'", "\u2019").split(" ", 4)[4] + " and so on", 1, "pdf")
    other = chunk("An alias is defined using the alias builtin; global with -g.", 2, "pdf")
    hits = [Hit(c.position, c.id, c.section, 1.0, {}, chunk=c) for c in (page, pdf, other)]
    assert [h.id for h in distinct(hits)] == ["d#0", "d#2"]
    assert [h.id for h in distinct(hits[1:] + hits[:1])] == ["d#1", "d#2"]  # better kept


def test_a_manual_in_two_formats_answers_each_passage_once(tmp_path: Path) -> None:
    # the FAQ as a text file and as HTML pages, under other names (zsh's FAQ.gz, FAQ03.html)
    faq = (
        "$HISTSIZE tells the shell how many lines to keep internally, $HISTFILE tells it "
        "where to write the history, and $SAVEHIST, the easiest one to forget, tells it how "
        "many to write out. The simplest possibility is to set it to the same as $HISTSIZE."
    )
    (tmp_path / "docs" / "html").mkdir(parents=True)
    (tmp_path / "docs" / "FAQ.txt").write_text(f"3.21: Why is my history not saved?\n\n{faq}\n")
    (tmp_path / "docs" / "html" / "FAQ03.html").write_text(
        f"<h2>3.21: Why is my history not being saved?</h2><p>History: {faq}</p>"
        "<h2>3.22: Why does my prompt change?</h2><p>The prompt shows the history number.</p>"
    )
    build_index([tmp_path / "docs"], tmp_path / "ix", IndexSettings(embedder="hashing"))
    collection = Collection.open(tmp_path / "ix")
    for mode in ("hybrid", "keyword"):
        hits = collection.retriever(mode, guard=False).search("how many history lines are saved", 3)
        assert sum("SAVEHIST" in t for t in texts(hits)) == 1, mode
        assert any("prompt shows" in t for t in texts(hits))  # the next passage came up
        raw = collection.retriever(mode, guard=False).inner.search("history saved", 3)  # type: ignore[attr-defined]
        assert sum("SAVEHIST" in t for t in texts(raw)) == 2  # both copies are in the index


def test_passages_of_one_format_that_share_most_words_are_different_answers() -> None:
    # CMake documents add_library's ALIAS and add_executable's in the same sentences
    said = "Creates an Alias Target, such that <name> can be used to refer to <target> in "
    said += "subsequent commands. The <name> does not appear in the generated buildsystem."
    lib = chunk(f"add_library(<name> ALIAS <target>) {said}", 0, "rst")
    exe = chunk(f"add_executable(<name> ALIAS <target>) {said}", 1, "rst")
    bare = chunk(f"add_executable(<name> ALIAS <target>) {said} ", 2)  # no format recorded
    hits = [Hit(c.position, c.id, c.section, 1.0, {}, chunk=c) for c in (lib, exe, bare)]
    assert [h.id for h in distinct(hits)] == ["d#0", "d#1", "d#2"]


class Ranking:
    """A search over passages ranked in the order given, counting what it is asked for."""

    def __init__(self, passages: list[str]) -> None:
        self.hits = [
            Hit(i, f"d#{i}", f"d#{i}", 1.0 - i / 100, {}, chunk=chunk(t, i))
            for i, t in enumerate(passages)
        ]
        self.asked: list[int] = []

    def __call__(self, m: int) -> list[Hit]:
        self.asked.append(m)
        return self.hits[:m]


# a passage written 13 times, then the others: more copies than FETCH rows a hit allow for
MANY = ["a"] * 13 + ["b", "a", "c", "d"] + [f"x{i}" for i in range(20)]


def test_more_rows_are_asked_for_only_while_copies_leave_too_few() -> None:
    plain = Ranking(["a", "b", "c", "d", "e", "f"])
    assert distinct_search(plain, 3) == plain.hits[:3]
    assert plain.asked == [3 * FETCH]  # one search, a few rows more than k
    copies = Ranking(["a", "a", "a", "b", "a", "c", "d"])
    assert [h.row for h in distinct_search(copies, 3)] == [0, 3, 5]
    assert copies.asked == [3 * FETCH]  # four copies: still one search
    many = Ranking(MANY)
    assert [h.row for h in distinct_search(many, 3)] == [0, 13, 15]
    assert many.asked == [3 * FETCH, 6 * FETCH]  # doubled until three distinct passages are in
    # fewer distinct passages than k: all of them, once the search has run dry
    few = Ranking(["a", "a", "b"] * 10)
    assert [h.row for h in distinct_search(few, 3)] == [0, 2]
    assert few.asked[-1] > len(few.hits)
    assert distinct_search(few, 0) == []


def test_a_batch_asks_again_only_for_the_questions_copies_left_short() -> None:
    rankings = {
        "plain": Ranking(["a", "b", "c", "d"]),
        "many": Ranking(MANY),
        "few": Ranking(["a", "a"]),
    }
    rounds: list[tuple[list[str], int]] = []

    def search(questions: list[str], m: int) -> list[list[Hit]]:
        rounds.append((questions, m))
        return [rankings[q](m) for q in questions]

    found = distinct_batch(search, ["plain", "many", "few", "plain"], 3)
    assert [[h.row for h in hits] for hits in found] == [[0, 1, 2], [0, 13, 15], [0], [0, 1, 2]]
    assert rounds == [(["plain", "many", "few", "plain"], 3 * FETCH), (["many"], 6 * FETCH)]
    # the same hits as each question alone
    for name, ranking in rankings.items():
        assert distinct_search(ranking, 3) == distinct_batch(search, [name], 3)[0]
    assert distinct_batch(search, [], 3) == []


def test_a_hit_without_its_chunk_is_never_left_out() -> None:
    bare = [Hit(i, "x#1", "x#1", 1.0, {}) for i in range(3)]
    assert distinct(bare) == bare


def test_a_bad_k_is_refused_before_any_search() -> None:
    def search(m: int) -> list[Hit]:
        raise AssertionError("searched")

    for k in (-1, 1.5, True):
        with pytest.raises(InputError):
            distinct_search(search, k)  # type: ignore[arg-type]
