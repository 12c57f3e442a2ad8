"""Concept keys: case, hyphenation, plural and spelling variants fold into one key."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from kg.config import config_path
from kg.errors import ConfigError

_DASHES = re.compile(r"[\u2010-\u2015\u2212_\-]+")
_NON_WORD = re.compile(r"[^\w\s+#./&']")
_SPACES = re.compile(r"\s+")
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z0-9])s\b")
_EDGE_PUNCT = " .,;:'\"/&"


@dataclass(frozen=True, slots=True)
class Aliases:
    """User decisions from ``config/aliases.tsv``: forced merges and forbidden ones."""

    force: dict[str, str] = field(default_factory=dict)
    forbid: frozenset[tuple[str, str]] = frozenset()


def load_aliases(path: str | Path | None = None) -> Aliases:
    """Read an alias file (``variant<TAB>concept`` or ``!variant<TAB>concept`` per line)."""
    path = Path(path) if path else config_path("aliases.tsv")
    force: dict[str, str] = {}
    forbid: set[tuple[str, str]] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ConfigError(f"{path}:{lineno}: expected 'variant<TAB>concept', got {line!r}")
        variant, concept = parts[0].strip(), parts[1].strip()
        if variant.startswith("!"):
            forbid.add((variant[1:].strip(), concept))
        else:
            force[variant] = concept
    return Aliases(force, frozenset(forbid))


class Normaliser:
    """Turns mention text into concept keys.

    >>> n = Normaliser()
    >>> n.key("Neural Machine Translation")
    'neural machine translation'
    >>> n.key("the pre-trained language models")
    'pretrained language model'
    >>> n.key("Tokenisation strategies")
    'tokenization strategy'
    >>> n.key("NMT")  # forced by config/aliases.tsv
    'neural machine translation'
    """

    def __init__(
        self,
        *,
        settings: str | Path | None = None,
        aliases: str | Path | Aliases | None = None,
        stoplist: str | Path | None = None,
    ) -> None:
        path = Path(settings) if settings else config_path("normalise.toml")
        try:
            conf = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
        self.leading = frozenset(conf.get("leading_words", []))
        self.invariant = frozenset(conf.get("invariant", []))
        self.spelling: dict[str, str] = dict(conf.get("spelling", {}))
        self.aliases = aliases if isinstance(aliases, Aliases) else load_aliases(aliases)
        stop_path = Path(stoplist) if stoplist else config_path("stoplist.txt")
        self.stop = frozenset(
            ln.strip()
            for ln in stop_path.read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")
        )

    def surface(self, text: str) -> str:
        """The key of ``text`` before aliases: folded case, dashes, plurals and spelling."""
        text = unicodedata.normalize("NFKC", text)
        # "LLMs", "GPUs": the plural of an acronym, which the lower-case rules would miss.
        text = _ACRONYM_PLURAL.sub(r"\1", text).lower()
        text = text.replace("pre-train", "pretrain").replace("pre train", "pretrain")
        text = _DASHES.sub(" ", text)
        text = _NON_WORD.sub(" ", text)
        words = _SPACES.sub(" ", text).strip(_EDGE_PUNCT).split()
        while len(words) > 1 and words[0] in self.leading:
            words = words[1:]
        words = [self._spell(w) for w in words]
        if words:
            words[-1] = self._singular(words[-1])
        return " ".join(words).strip(_EDGE_PUNCT)

    def key(self, text: str) -> str:
        """The concept key of ``text``: :meth:`surface`, then any forced alias."""
        surface = self.surface(text)
        return self.aliases.force.get(surface, surface)

    def resolve(self, short: str, long_key: str) -> str:
        """Key of an acronym defined in the text as ``long_key``, unless an alias forbids it."""
        short_key = self.surface(short)
        if (short_key, long_key) in self.aliases.forbid:
            return self.key(short)
        return self.aliases.force.get(long_key, long_key)

    def is_generic(self, key: str) -> bool:
        """True for keys that are not concepts: empty, stop-listed or only stop words."""
        words = key.split()
        return not words or key in self.stop or all(w in self.stop for w in words) or not any(c.isalpha() for c in key)

    def _spell(self, word: str) -> str:
        if word in self.spelling:
            return self.spelling[word]
        for british, american in (
            ("isation", "ization"),
            ("isations", "izations"),
            ("ising", "izing"),
            ("iser", "izer"),
        ):
            if word.endswith(british) and len(word) > len(british) + 2:
                return word[: -len(british)] + american
        return word

    def _singular(self, word: str) -> str:
        if len(word) <= 3 or word in self.invariant or not word.endswith("s") or not word.isalpha():
            return word
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word.endswith(("sses", "ches", "shes", "xes", "zes")):
            return word[:-2]
        if word.endswith(("ss", "us", "is")):
            return word
        return word[:-1]
