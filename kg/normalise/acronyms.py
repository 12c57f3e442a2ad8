"""Acronym definitions: "long form (SHORT)" pairs, after Schwartz and Hearst (2003).

Schwartz & Hearst, "A simple algorithm for identifying abbreviation definitions in
biomedical text", PSB 2003: the short form is a parenthesised token with a letter; the long
form is the shortest span of preceding words, at most ``min(|SF| + 5, 2 * |SF|)`` words,
that contains the short form's characters in order, the first one starting a word. Where the
initials of the words before the bracket spell the short form, those words are the long form
(the shortest span misses a word in "proximal policy optimization (PPO)": "policy optimization").

A long form is a name, not a clause: it never reaches back across a sentence, a colon or the
break between title and abstract ("Meta Learning\n\nWe present Knowledge Distillation with Meta
Learning (MetaDistil)"), holds no pronoun or auxiliary ("we", "is"), and has at most one word
that gives the short form none of its letters ("Residual Learning for Weakly-Supervised Relation
Extraction (ResNet)" is no definition). A plural acronym's s is no letter to find: "WPDAs" is
spelled by "Weighted pushdown automata".

A name the paper gives first and spells out after it is defined too, where the initials of every
word in the brackets spell it: "we propose RASD (Retrieval-Augmented Speculative Decoding)", and
a title that opens with the name, "GFPO: Group Filtered Policy Optimization". A list is no long
form there ("PICO (Population, Intervention, Comparison, Outcome)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from kg.normalise.keys import repeats_words

_PAREN = re.compile(r"\(\s*([^()\s][^()]{0,14}?)\s*\)")
#: "NAME (Long Form)": the bracket, then the name just before it; and "NAME: Long Form" opening a text
#: whose title ends at a line break.
_LONG_IN_BRACKETS = re.compile(r"\(\s*([^()\n]{4,150}?)\s*\)")
_NAME_BEFORE = re.compile(r"(?:^|(?<=[^\w-]))([^\W_][\w-]{1,9}) ?$")
_NAME_COLON = re.compile(r"([^\W_][\w-]{1,9}):[ \t]+([^\n]{4,150}?)[ \t]*(?=\n)")
_WORD = re.compile(r"\S+")
_WORD_PARTS = re.compile(r"[^\W_]+")
#: Words an acronym's letters skip: "reinforcement learning from human feedback (RLHF)".
_SKIPPED = frozenset({"a", "an", "the", "of", "for", "from", "and", "in", "on", "to", "with", "by", "via"})
#: Where a long form cannot start before: the end of a sentence or a title, a colon, a line break.
_BOUNDARY = re.compile(r"[.!?:;](?=\s)|\n")
#: Words of a clause, never of a name: "We present ...", "... is ...".
_CLAUSE = frozenset(
    {
        "we",
        "our",
        "us",
        "i",
        "you",
        "your",
        "they",
        "their",
        "them",
        "it",
        "its",
        "this",
        "these",
        "those",
        "that",
        "which",
        "who",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "can",
        "will",
        "while",
        "whereas",
        "where",
        "when",
    }
)


@dataclass(frozen=True, slots=True)
class Acronym:
    short: str
    long: str
    long_start: int
    long_end: int


def find_acronyms(text: str) -> list[Acronym]:
    """Find "long form (SHORT)" definitions in ``text``.

    >>> [(a.short, a.long) for a in find_acronyms("We use neural machine translation (NMT) here.")]
    [('NMT', 'neural machine translation')]
    >>> [(a.short, a.long) for a in find_acronyms("Bidirectional Encoder Representations from Transformers (BERT)")]
    [('BERT', 'Bidirectional Encoder Representations from Transformers')]
    >>> [(a.short, a.long) for a in find_acronyms("trained with proximal policy optimization (PPO)")]
    [('PPO', 'proximal policy optimization')]
    >>> [(a.short, a.long) for a in find_acronyms("explainable artificial intelligence (XAI) and Explainable AI (XAI)")]
    [('XAI', 'explainable artificial intelligence'), ('XAI', 'Explainable AI')]
    >>> find_acronyms("results (see Table 2) improve")
    []
    >>> find_acronyms("a corpus of conventionalized metaphors, "
    ...               "a table of conventionalized conceptual metaphors (CCM table)")
    []
    """
    found: list[Acronym] = []
    for m in _PAREN.finditer(text):
        short = m.group(1).strip()
        if not _is_short_form(short):
            continue
        after = max((b.end() for b in _BOUNDARY.finditer(text, max(0, m.start() - 400), m.start())), default=0)
        words = list(_WORD.finditer(text, after, m.start()))
        limit = min(len(short) + 5, len(short) * 2)
        window = words[-limit:]
        if not window:
            continue
        window_text = text[window[0].start() : window[-1].end()]
        long_form = spelled_by_initials(short, window_text) or _best_long_form(short, window_text)
        if long_form is None or _is_clause(long_form):
            continue
        if repeats_words(" ".join(_WORD_PARTS.findall(long_form.lower()))):
            # two phrases, not one name: "a corpus of conventionalized metaphors, a table of
            # conventionalized conceptual metaphors (CCM table)"
            continue
        start = window[0].start() + window_text.rfind(long_form)
        found.append(Acronym(short, long_form, start, start + len(long_form)))
    if ("(" in text or ":" in text) and (named := list(_named_first(text))):
        found = sorted(found + named, key=lambda a: a.long_start)
    return found


def _named_first(text: str) -> Iterator[Acronym]:
    """ "NAME (Long Form)" and a title's "NAME: Long Form": the name's letters, or its capitals,
    spelled by the initials of every word after it, and no list or clause among them.

    >>> [(a.short, a.long) for a in _named_first("We propose RASD (Retrieval-Augmented Speculative Decoding).")]
    [('RASD', 'Retrieval-Augmented Speculative Decoding')]
    >>> [(a.short, a.long) for a in _named_first("GFPO: Group Filtered Policy Optimization\\n\\nWe ...")]
    [('GFPO', 'Group Filtered Policy Optimization')]
    >>> list(_named_first("a PICO (Population, Intervention, Comparison, Outcome) frame; BERT (Devlin et al.)"))
    []
    """
    named = []  # (name, where its long form starts and ends)
    if (title := _NAME_COLON.match(text)) is not None:
        named.append((title.group(1), title.start(2), title.end(2)))
    for m in _LONG_IN_BRACKETS.finditer(text):
        if (name := _NAME_BEFORE.search(text[max(0, m.start() - 12) : m.start()])) is not None:
            named.append((name.group(1), m.start(1), m.end(1)))
    for short, start, end in named:
        long_form = text[start:end]
        if sum(c.isupper() for c in short) < 2 or any(c in long_form for c in ",;:"):
            continue
        want, capitals = letters(short), "".join(c for c in short if c.isupper()).lower()
        if len(want) < 2 or not want.isalpha() or not {want, capitals} & set(initials(long_form)):
            continue  # ("RaSD": its capitals spell "Randomized Synthesis and Disentanglement")
        if not _is_clause(long_form):
            yield Acronym(short, long_form, start, end)


def _is_clause(long_form: str) -> bool:
    """Whether ``long_form`` holds a word of a clause ("we", "is"): then it is no name."""
    return any(p in _CLAUSE for p in _WORD_PARTS.findall(long_form.lower()))


def singular(short: str) -> str:
    """ "LLMs" -> "LLM"; "RKHS", "DARTS" stay (a capital S is no plural)."""
    return short[:-1] if len(short) > 2 and short[-1] == "s" and short[:-1].isupper() else short


def letters(short: str) -> str:
    """The letters an acronym's long form spells: "LLMs" -> "llm", "Q-Former" -> "qformer", "RKHS" -> "rkhs"."""
    return "".join(c for c in singular(short).lower() if c.isalnum())


def initials(long: str) -> tuple[str, str]:
    """The initials of every word of ``long`` and of its words that acronyms do not skip."""
    parts = _WORD_PARTS.findall(long.lower())
    return "".join(p[0] for p in parts), "".join(p[0] for p in parts if p not in _SKIPPED)


def spelled_by_initials(short: str, window: str) -> str | None:
    """The fewest words ending ``window`` whose initials spell ``short``, if any. A 2 inside a short
    form says "to", a 4 "for": "text-to-image (T2I)", "end-to-end (E2E)".

    >>> spelled_by_initials("T2I", "diffusion-based text-to-image"), spelled_by_initials("I2V", "image-to-video")
    ('text-to-image', 'image-to-video')
    >>> spelled_by_initials("T2I", "text and image"), spelled_by_initials("GPT4", "general purpose transformer for")
    (None, None)
    """
    want = letters(short)
    spoken = _SPOKEN_DIGITS.sub(lambda d: _DIGIT_WORDS[d.group()], want)  # "t2i" -> "tti"
    if len(want) < 2 or not spoken.isalpha():
        return None
    if want[0] not in window.lower():
        return None
    every, kept = "", ""  # the initials of the words from ``start`` on, read backwards
    for m in reversed(list(_WORD.finditer(window))):
        parts = _WORD_PARTS.findall(m.group().lower())
        every = "".join(p[0] for p in parts) + every
        kept = "".join(p[0] for p in parts if p not in _SKIPPED) + kept
        if want in (every, kept) or (spoken != want and spoken == every):
            candidate = window[m.start() :].strip(" ,;:")
            return candidate if candidate.lower() != want else None
        if len(kept) > len(want) and len(every) > len(spoken):
            return None
    return None


#: Digits that stand for a word inside a short form, between two letters: "T2I", "E2E" (not "GPT4").
_DIGIT_WORDS = {"2": "t", "4": "f"}
_SPOKEN_DIGITS = re.compile(r"(?<=[a-z])[24](?=[a-z])")


def _is_short_form(s: str) -> bool:
    return 2 <= len(s) <= 10 and len(s.split()) <= 2 and s[0].isalnum() and any(c.isupper() for c in s)


def _opens_word(text: str, i: int) -> bool:
    """Whether the letter at ``i`` may give an acronym its first letter: a word's first, or the x of a
    word that opens with "ex" ("eXplainable AI (XAI)", "eXtreme Gradient Boosting (XGBoost)").

    >>> [_opens_word("an explainable AI", i) for i in (0, 3, 4, 7)]
    [True, True, True, False]
    """
    if i == 0 or not text[i - 1].isalnum():
        return True
    return text[i].lower() == "x" and text[i - 1].lower() == "e" and (i == 1 or not text[i - 2].isalnum())


def _best_long_form(short: str, long: str) -> str | None:
    chars = letters(short)
    s_index = len(chars) - 1
    l_index = len(long) - 1
    matched = []
    while s_index >= 0:
        c = chars[s_index]
        while l_index >= 0 and (long[l_index].lower() != c or (s_index == 0 and not _opens_word(long, l_index))):
            l_index -= 1
        if l_index < 0:
            return None
        matched.append(l_index)
        l_index -= 1
        s_index -= 1
    start = long.rfind(" ", 0, l_index + 1) + 1
    result = long[start:].strip(" ,;:")
    # A long form must be longer than its short form and not end in the short form itself.
    if len(result) <= len(short) or short in result.split() or "(" in result or ")" in result:
        return None
    # Every word but one gives the short form a letter, or is one an acronym skips.
    idle = sum(
        1
        for w in _WORD.finditer(long, start)
        if w.group().lower().strip(" ,;:") not in _SKIPPED and not any(w.start() <= i < w.end() for i in matched)
    )
    return result if idle <= 1 else None
