"""English stop words: plain data, kept out of the native tokenizer (as spaCy does).

Lower-case function words that carry no topic. Tokens are compared after lower-casing and
before plural folding.
"""

from __future__ import annotations

ENGLISH_STOP_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves
    """.split()  # noqa: SIM905 (a block of words reads better than 127 quoted strings)
)
