"""Normalise stage: mention text -> stable concept key.

Keys depend only on the text and the files in ``config/``, never on the order of the input
or the machine, so the same concept gets the same key in every run.
"""

from kg.normalise.acronyms import find_acronyms
from kg.normalise.keys import Normaliser, load_aliases

__all__ = ["Normaliser", "find_acronyms", "load_aliases"]
