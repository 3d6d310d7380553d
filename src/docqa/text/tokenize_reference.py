"""The tokenizer written out plainly: the executable spec the native module is tested against.

1. Lower-case the whole text with ``str.lower``.
2. Tokens are the maximal runs of characters ``c`` with ``c.isalnum()``; nothing non-ASCII is
   dropped (``müller``, ``naïve``, ``東京`` are tokens).
3. Optionally drop stop words (compared on the lower-cased token).
4. Optionally fold plurals with Harman's S-stemmer (see ``fold_plural``).
"""

from __future__ import annotations

from collections.abc import Iterable

from docqa.text.stopwords import ENGLISH_STOP_WORDS


def fold_plural(word: str) -> str:
    """Harman's S-stemmer, on words of 4 or more characters; only the first matching rule:

    - ``-ies`` becomes ``-y`` unless preceded by ``e`` or ``a`` (``policies`` -> ``policy``,
      ``movies`` -> ``movy``; ``-aies`` / ``-eies`` fall through to the next rule);
    - ``-es`` becomes ``-e`` unless preceded by ``a``, ``e`` or ``o`` (``fines`` -> ``fine``;
      ``does`` -> ``doe`` by the last rule, since its ``s`` follows ``e``);
    - ``-s`` is removed unless preceded by ``u`` or ``s`` (``books`` -> ``book``,
      ``status`` and ``class`` are kept).
    """
    if len(word) < 4:
        return word
    if word.endswith("ies") and word[-4] not in "ea":
        return word[:-3] + "y"
    if word.endswith("es") and word[-3] not in "aeo":
        return word[:-1]
    if word.endswith("s") and word[-2] not in "us":
        return word[:-1]
    return word


def tokenize(
    text: str,
    *,
    stop_words: bool = False,
    fold_plurals: bool = False,
    stop_list: Iterable[str] = ENGLISH_STOP_WORDS,
) -> list[str]:
    """Tokens of ``text`` by the rules in this module's docstring."""
    stops = frozenset(stop_list) if stop_words else frozenset()
    tokens: list[str] = []
    current: list[str] = []
    for ch in text.lower() + " ":
        if ch.isalnum():
            current.append(ch)
            continue
        if current:
            tokens.append("".join(current))
            current = []
    if stop_words:
        tokens = [t for t in tokens if t not in stops]
    if fold_plurals:
        tokens = [fold_plural(t) for t in tokens]
    return tokens


def hash64(token: str) -> int:
    """The 64-bit token id: FNV-1a over the UTF-8 bytes, then murmur3's fmix64."""
    mask = (1 << 64) - 1
    h = 0xCBF29CE484222325
    for byte in token.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & mask
    for mult in (0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53):
        h ^= h >> 33
        h = (h * mult) & mask
    return h ^ (h >> 33)
