"""The native tokenizer against its pure-Python spec (``docqa.text.tokenize_reference``).

Property tests feed arbitrary Unicode (every code point, surrogates included) glued with
fragments chosen to break the rules: characters whose ``lower()`` changes length, titlecase
digraphs, final sigma, digits of other scripts, combining marks, emoji, NUL, very long words,
plural endings and stop words in every case.
"""

from __future__ import annotations

import itertools
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docqa import _tokenize
from docqa.text import TermCounter, hash_tokens, tokenize, tokenize_batch
from docqa.text import tokenize_reference as ref
from docqa.text.stopwords import ENGLISH_STOP_WORDS

# fmt: off
SPECIAL = [
    "İ",  # lower() is 2 characters: 'i' + COMBINING DOT ABOVE (not alnum)
    "ǅ", "ǈ", "ǋ",  # titlecase digraphs
    "Σ", "ΟΔΟΣ", "ΟΔΟΣ ", "σς",  # final sigma depends on context
    "ß", "ẞ", "ﬁ", "ŉ",  # lower() keeps or changes them
    "K", "Å", "Ω",  # Kelvin, Angstrom, Ohm signs: lower() is ASCII or Latin-1
    "²", "³", "¹", "₂", "①", "½", "٣", "५", "๓", "Ⅻ", "ⅻ",  # other digits and numerals
    "\u0301", "\u0307", "\u20dd",  # combining marks: not alnum, so they split words
    "\x00", "\u00a0", "\u2028", "\u3000", "\t", "\n", "_", "'", "-", ".", "\u2019",
    "🎉", "👍🏽", "👨\u200d👩\u200d👧",  # emoji, skin-tone modifier, ZWJ sequence
    "Müller", "naïve", "東京", "café", "Привет", "مرحبا", "שלום", "한국어", "ΜΑΪΟΣ",
    "\ud800",  # a lone surrogate (never alnum)
]
PLURALS = [
    "policies", "movies", "aies", "eies", "ies", "ties", "fines", "does", "goes", "es",
    "status", "class", "books", "bus", "s", "ss", "us", "ares", "POLICIES", "Ies", "ßes",
    "cafés", "ées", "cées", "東京s", "ǅies", "İes",
]
# fmt: on
STOPS = [*sorted(ENGLISH_STOP_WORDS)[:40], "The", "AND", "iS"]

any_char = st.characters(exclude_categories=())  # every code point, surrogates included
fragment = st.one_of(
    st.text(any_char, max_size=8),
    st.sampled_from(SPECIAL),
    st.sampled_from(PLURALS),
    st.sampled_from(STOPS),
    st.sampled_from([" ", "  ", ", ", "\n\n"]),
)
long_word = st.builds(
    lambda c, n: c * n, st.sampled_from(["a", "é", "東", "🎉", "ab1"]), st.integers(300, 3000)
)
texts = st.one_of(
    st.lists(fragment, max_size=12).map("".join),
    st.text(any_char),
    st.text(st.characters(max_codepoint=127)),  # the ASCII fast path
    st.lists(st.one_of(fragment, long_word), max_size=4).map("".join),
)
OPTIONS = [(s, f) for s in (False, True) for f in (False, True)]


# --- the native path equals the reference ------------------------------------------------


@given(texts)
def test_tokenize_equals_reference_for_every_option(text: str) -> None:
    for stop_words, fold in OPTIONS:
        expected = ref.tokenize(text, stop_words=stop_words, fold_plurals=fold)
        assert tokenize(text, stop_words=stop_words, fold_plurals=fold) == expected


@given(st.lists(texts, max_size=6), st.sampled_from(OPTIONS))
def test_batch_equals_mapping_tokenize(batch: list[str], option: tuple[bool, bool]) -> None:
    stop_words, fold = option
    expected = [ref.tokenize(t, stop_words=stop_words, fold_plurals=fold) for t in batch]
    assert tokenize_batch(batch, stop_words=stop_words, fold_plurals=fold) == expected
    assert [tokenize(t, stop_words=stop_words, fold_plurals=fold) for t in batch] == expected


@given(st.text(st.characters(max_codepoint=127)))
def test_ascii_and_wide_paths_agree(text: str) -> None:
    # A trailing ideographic space forces the non-ASCII scanner over the same ASCII content.
    for stop_words, fold in OPTIONS:
        narrow = tokenize(text + " ", stop_words=stop_words, fold_plurals=fold)
        assert tokenize(text + "\u3000", stop_words=stop_words, fold_plurals=fold) == narrow


@settings(max_examples=100)
@given(texts, st.sets(st.one_of(st.sampled_from(PLURALS + STOPS), st.text(min_size=1))))
def test_custom_stop_words_equal_reference(text: str, words: set[str]) -> None:
    for fold in (False, True):
        expected = ref.tokenize(text, stop_words=True, fold_plurals=fold, stop_list=words)
        assert tokenize(text, stop_words=words, fold_plurals=fold) == expected
        assert tokenize(text, stop_words=iter(sorted(words)), fold_plurals=fold) == expected


def test_stop_words_sharing_first_8_bytes_and_length_are_told_apart() -> None:
    """Stop words are looked up by (length, first 8 bytes), then compared byte by byte past
    the 8th: tokens equal to a long stop word up to its last byte, or to its head only, or
    of another length, must be kept, in every mode."""
    stops = ["abcdefghij", "abcdefgh", "abcdefghijklmnopq", "kurz", "ab"]
    text = (
        "abcdefghij abcdefghik abcdefgh abcdefgi abcdefghi abcdefghijklmnopq "
        "abcdefghijklmnopr abcdefghijklmnop kurz kurs ab abc a ABCDEFGHIJ"
    )
    for fold in (False, True):
        want = ref.tokenize(text, stop_words=True, fold_plurals=fold, stop_list=set(stops))
        assert "abcdefghik" in want and "abcdefghijklmnopr" in want and "abcdefghij" not in want
        assert tokenize(text, stop_words=stops, fold_plurals=fold) == want
        got = hash_tokens([text], stop_words=stops, fold_plurals=fold).hashes.tolist()
        assert got == [ref.hash64(t) for t in want]


# --- the object-free path: hashes and offsets ----------------------------------------------


@given(st.lists(texts, max_size=6), st.sampled_from(OPTIONS))
def test_hash_tokens_equal_reference_hashes(batch: list[str], option: tuple[bool, bool]) -> None:
    stop_words, fold = option
    got = hash_tokens(batch, stop_words=stop_words, fold_plurals=fold)
    assert got.hashes.dtype == np.uint64 and got.offsets.dtype == np.int64
    assert got.offsets.shape == (len(batch) + 1,) and got.offsets[0] == 0
    assert got.offsets[-1] == len(got.hashes)
    for i, text in enumerate(batch):
        tokens = ref.tokenize(text, stop_words=stop_words, fold_plurals=fold)
        assert got.of(i).tolist() == [ref.hash64(t) for t in tokens]


@given(st.lists(st.lists(texts, max_size=5), max_size=4), st.sampled_from(OPTIONS))
def test_term_counter_equals_reference_vocabulary(
    batches: list[list[str]], option: tuple[bool, bool]
) -> None:
    # Several add() calls: ids keep counting up in first-seen order across calls, each text is
    # one document for df, and every term's word and hash are the reference tokenizer's.
    stop_words, fold = option
    counter = TermCounter(stop_words=stop_words, fold_plurals=fold)
    seen: dict[str, int] = {}
    df: dict[str, int] = {}
    for batch in batches:
        got = counter.add(batch)
        assert got.ids.dtype == np.int64 and got.offsets.shape == (len(batch) + 1,)
        for i, text in enumerate(batch):
            tokens = ref.tokenize(text, stop_words=stop_words, fold_plurals=fold)
            for token in tokens:
                seen.setdefault(token, len(seen))
            for token in set(tokens):
                df[token] = df.get(token, 0) + 1
            assert got.ids[got.offsets[i] : got.offsets[i + 1]].tolist() == [
                seen[t] for t in tokens
            ]
    assert counter.words() == list(seen)
    assert counter.df().tolist() == [df[w] for w in seen]
    assert counter.keys().tolist() == [ref.hash64(w) for w in seen]
    assert counter.n_docs == sum(map(len, batches)) and counter.n_terms == len(seen)


def test_term_counter_grows_past_its_first_table() -> None:
    words = [f"w{i}" for i in range(5000)]
    counter = TermCounter()
    first = counter.add([" ".join(words), " ".join(reversed(words))])
    assert first.ids.tolist() == list(range(5000)) + list(reversed(range(5000)))
    assert counter.words() == words and counter.df().tolist() == [2] * 5000


@given(st.text(max_size=40))  # tokens never hold surrogates: they are not alnum
def test_native_hash64_equals_reference(token: str) -> None:
    assert _tokenize.hash64(token.encode("utf-8")) == ref.hash64(token)


@given(st.binary(max_size=200))
def test_native_crc32_equals_zlib(data: bytes) -> None:
    assert _tokenize.crc32(data) == zlib.crc32(data)


def test_hash64_known_values() -> None:
    # Pinned so a change of the hash (which would silently invalidate stored indexes) is seen.
    # Literal values: the spec and the native code are compared elsewhere, so both could drift
    # together; these numbers cannot. Changing them means every stored index must be rebuilt.
    known = {
        "": 17280346270528514342,
        "policy": 11970637557752520831,
        "東京": 13186756767547999522,
        "renewal": 7349721559132996821,
    }
    for token, value in known.items():
        assert ref.hash64(token) == value
        assert _tokenize.hash64(token.encode()) == value
    assert ref.hash64("a") != ref.hash64("b") and ref.hash64("ab") != ref.hash64("ba")


# --- pinned rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "folded"),
    [
        ("policies", "policy"),  # -ies -> -y
        ("cities", "city"),
        ("ties", "ty"),  # 4 characters is enough
        ("movies", "movy"),  # -ies -> -y: 'v' is neither e nor a
        ("aies", "aie"),  # -ies after a: not rule 1; rule 2 drops the s
        ("eies", "eie"),
        ("fines", "fine"),  # -es -> -e
        ("horses", "horse"),
        ("boxes", "boxe"),
        ("does", "doe"),  # -es after o: not rule 2; rule 3 drops the s
        ("goes", "goe"),
        ("toes", "toe"),
        ("ideas", "idea"),  # -s -> ''
        ("books", "book"),
        ("status", "status"),  # -s after u: kept
        ("class", "class"),  # -s after s: kept
        ("bus", "bus"),  # under 4 characters: kept
        ("ies", "ies"),
        ("yes", "yes"),
        ("book", "book"),  # no s: kept
        ("cafés", "café"),  # non-ASCII before the s
        ("ßes", "ßes"),  # 3 characters (4 UTF-8 bytes): kept
        ("cées", "cée"),
        ("éies", "éy"),
        ("POLICIES", "policy"),  # lower-cased first
        ("seriesies", "seriesy"),  # only the first matching rule, once
    ],
)
def test_plural_rule(word: str, folded: str) -> None:
    assert ref.fold_plural(word.lower()) == folded
    assert tokenize(word, fold_plurals=True) == [folded]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The cat AND the hat", ["cat", "hat"]),
        ("it is what it is", []),
        ("ours yours hers", []),  # stop words that end in s are dropped, not folded
        ("ares", ["are"]),  # stop words are removed before folding: 'are' survives
        ("Thee thy", ["thee", "thy"]),
    ],
)
def test_english_stop_words(text: str, expected: list[str]) -> None:
    assert tokenize(text, stop_words=True, fold_plurals=True) == expected


def test_custom_stop_words_are_compared_lower_cased_and_before_folding() -> None:
    text = "Books and BOOK of Müller"
    assert tokenize(text, stop_words={"book", "müller"}) == ["books", "and", "of"]
    assert tokenize(text, stop_words={"book"}, fold_plurals=True) == ["book", "and", "of", "müller"]
    assert tokenize(text, stop_words={"Book"}) == ["books", "and", "book", "of", "müller"]
    assert tokenize(text, stop_words=[]) == ["books", "and", "book", "of", "müller"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Müller's naïve 東京 ǅemal", ["müller", "s", "naïve", "東京", "ǆemal"]),
        ("İstanbul", ["i", "stanbul"]),  # 'i' + U+0307 (a mark, not alnum) + 'stanbul'
        ("ΟΔΟΣ ΟΔΟΣ.", ["οδος", "οδος"]),  # final sigma
        ("x² ٣٤ ५ Ⅻ ½", ["x²", "٣٤", "५", "ⅻ", "½"]),  # all numerics are alnum
        ("e\u0301t\u00e9", ["e", "té"]),
        ("snake_case a-b a\x00b 🎉x", ["snake", "case", "a", "b", "a", "b", "x"]),
        ("\u212aelvin", ["kelvin"]),  # KELVIN SIGN lowers to ASCII k
    ],
)
def test_unicode_examples(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected == ref.tokenize(text)


# --- edges and errors -----------------------------------------------------------------------


def test_empty_inputs() -> None:
    assert tokenize("") == [] and tokenize(" \n\x00 ") == []
    assert tokenize_batch([]) == []
    assert tokenize_batch(["", "Hi", ""]) == [[], ["hi"], []]
    empty = hash_tokens([])
    assert empty.hashes.shape == (0,) and empty.offsets.tolist() == [0]
    some = hash_tokens(["", "a b", ""])
    assert some.offsets.tolist() == [0, 0, 2, 2] and some.of(0).size == 0


def test_batch_accepts_any_sequence_of_str() -> None:
    assert tokenize_batch(("a", "B c")) == [["a"], ["b", "c"]]
    assert hash_tokens(("a", "B c")).offsets.tolist() == [0, 1, 3]


@pytest.mark.parametrize("func", [tokenize_batch, hash_tokens, lambda t: TermCounter().add(t)])
def test_batch_functions_refuse_a_single_str(func: object) -> None:
    with pytest.raises(TypeError, match="single str"):
        func("abc")  # type: ignore[operator]


@pytest.mark.parametrize("bad", [b"abc", None, 3, ["a"]])
def test_tokenize_refuses_non_str(bad: object) -> None:
    with pytest.raises(TypeError, match=type(bad).__name__):
        tokenize(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("func", [tokenize_batch, hash_tokens, lambda t: TermCounter().add(t)])
@pytest.mark.parametrize("bad", [b"abc", None, 3.5])
def test_batch_error_names_the_index_and_the_type(func: object, bad: object) -> None:
    pattern = rf"texts\[2\] is {type(bad).__name__}, expected str"
    with pytest.raises(TypeError, match=pattern):
        func(["ok", "fine", bad])  # type: ignore[operator]


@pytest.mark.parametrize("words", [["ok", 3], ["ok", ""], [None]])
def test_bad_stop_words_are_refused(words: list[object]) -> None:
    with pytest.raises(TypeError):
        tokenize("ok", stop_words=words)  # type: ignore[arg-type]


def test_bad_stop_word_error_names_the_word() -> None:
    with pytest.raises(TypeError, match=r"stop word.*3"):
        tokenize("ok", stop_words=["ok", 3])  # type: ignore[list-item]


def test_str_subclass_is_tokenized_like_its_value() -> None:
    class Tagged(str):
        pass

    assert tokenize(Tagged("Hello Wörld")) == ["hello", "wörld"]
    assert tokenize_batch([Tagged("Hello World")]) == [["hello", "world"]]


def test_str_subclass_with_custom_str_is_tokenized_by_value() -> None:
    class Masked(str):
        def __str__(self) -> str:
            return "masked"

    assert tokenize(Masked("hello world")) == ["hello", "world"]


@pytest.mark.parametrize(
    "unit", ["Policies of the Library, 2024: loans. ", "Müller's 東京 naïve cafés "]
)
def test_ten_megabyte_text(unit: str) -> None:
    repeats = 10_000_000 // len(unit.encode("utf-8")) + 1
    text = unit * repeats
    expected = ref.tokenize(unit, stop_words=True, fold_plurals=True)
    tokens = tokenize(text, stop_words=True, fold_plurals=True)
    assert len(tokens) == len(expected) * repeats
    assert tokens[: len(expected)] == expected and tokens[-len(expected) :] == expected
    hashes = hash_tokens([text], stop_words=True, fold_plurals=True).hashes
    unit_hashes = np.array([ref.hash64(t) for t in expected], dtype=np.uint64)
    assert np.array_equal(hashes, np.tile(unit_hashes, repeats))


def test_threads_get_the_same_results_as_one_thread() -> None:
    chunks = [f"Policies {i} of the Müller libraries, naïve books " * 50 for i in range(64)]
    serial = [hash_tokens([c], stop_words=True, fold_plurals=True).hashes for c in chunks]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(
            pool.map(lambda c: hash_tokens([c], stop_words=True, fold_plurals=True).hashes, chunks)
        )
    assert all(np.array_equal(a, b) for a, b in zip(serial, threaded, strict=True))


def test_every_code_point_alone_and_in_a_word_matches_the_reference() -> None:
    """Exhaustive over Unicode: each character alone, after an ASCII letter and before 's'
    (so per-character lowering, alnum tests and folding all meet every code point)."""
    texts = [f"{chr(c)} x{chr(c)}es" for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    native = tokenize_batch(texts, stop_words=True, fold_plurals=True)
    expected = [ref.tokenize(t, stop_words=True, fold_plurals=True) for t in texts]
    assert native == expected


def test_every_ascii_byte_in_every_position_of_an_8_byte_step_hashes_like_the_reference() -> None:
    """The ASCII hashing scanner classifies and lowers 8 bytes at a time: each of the 128
    ASCII characters, at each offset of a step, inside, before and after tokens (hash_tokens
    is the scanner's FNV mode; the hashing embedder's CRC mode has the same test)."""
    texts = [
        f"{'q' * lead}{chr(c)}Ab{chr(c)}{chr(c)}s Zz09{chr(c)}"
        for c in range(128)
        for lead in range(9)
    ]
    for stop_words, fold in OPTIONS:
        got = hash_tokens(texts, stop_words=stop_words, fold_plurals=fold)
        want = [
            ref.hash64(w)
            for t in texts
            for w in ref.tokenize(t, stop_words=stop_words, fold_plurals=fold)
        ]
        assert got.hashes.tolist() == want


@pytest.mark.parametrize("wide", ["é", "Ä", "\u00a0", "\u2019", "東", "Ω", "🎉", "\u0301"])
def test_non_ascii_characters_among_ascii_words_hash_like_the_reference(wide: str) -> None:
    """Non-ASCII characters at a string's start and end, inside, before and after words,
    alone and in runs, in 1-, 2- and 4-byte strings (a text holding any takes the general
    scanner, whose hashing modes this checks)."""
    w = wide
    texts = [
        f"{w}",
        f"{w}Cafes and books",
        f"Policies of the{w}",
        f"The caf{w}s sat, {w}{w} near{w}by x{w} {w}y; classes.{w}",
        f"Ab{w}Cd ef  {w}  GH-ij{w}{w}kl the mno{w}",
        f"{w}q{w} {'wordy ' * 30}{w}tail",
    ]
    for stop_words, fold in OPTIONS:
        got = hash_tokens(texts, stop_words=stop_words, fold_plurals=fold)
        want = [
            [ref.hash64(t) for t in ref.tokenize(text, stop_words=stop_words, fold_plurals=fold)]
            for text in texts
        ]
        assert [got.hashes[a:b].tolist() for a, b in itertools.pairwise(got.offsets)] == want


def test_a_single_str_as_stop_words_is_refused() -> None:
    with pytest.raises(TypeError, match=r"wrap it in a list: \['the'\]"):
        tokenize("the t h e", stop_words="the")


@given(
    st.lists(
        st.sampled_from(
            [
                "\u0130",
                "\u03a3",
                "\u03c3",
                "a",
                "A",
                "\u0301",
                " ",
                "\n",
                "\u00a0",
                "\u2003",
                "'",
                ".",
                "\u00ad",
                "x\u03a3y",
                "1",
            ]
        ),
        max_size=40,
    )
)
def test_final_sigma_and_dotted_capital_i_words_match_the_reference(parts: list[str]) -> None:
    """Only the words holding U+0130 or U+03A3 are lowered whole: the final-sigma context and
    case-ignorable characters (accents, apostrophes, soft hyphens) never cross whitespace."""
    text = "".join(parts) + " \u00e9"  # one non-ASCII character so the wide path is taken
    assert tokenize(text) == ref.tokenize(text)
