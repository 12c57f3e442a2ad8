"""Link stage: papers linked through the concepts they share; concepts through co-occurrence."""

from kg.link.concepts import cooccurrence
from kg.link.papers import link_papers

__all__ = ["cooccurrence", "link_papers"]
