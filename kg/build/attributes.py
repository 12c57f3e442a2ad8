"""Attribute dicts for the millions of nodes and edges of a corpus's graph.

A networkx graph keeps one ``dict`` of attributes per node and per edge; in a corpus's graph
these dicts, not what they hold, are most of its memory (61,839 ACL papers: 913,331 ``MENTIONS``
edges and 902,731 paper links). :class:`SharedKeys` makes dicts of one kind that keep their keys
once for all of them, and :func:`add_edge_dict` puts such a dict into a graph as an edge's own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import networkx as nx

#: How many keys the dicts of one :class:`SharedKeys` can share (CPython's ``SHARED_KEYS_MAX_SIZE``).
MAX_KEYS = 30


class SharedKeys:
    """Makes the attribute dicts of one kind of node or edge, which share one table of keys.

    CPython keeps the keys of a class's instance dicts once for the class, and each dict only its
    values (PEP 412, key-sharing dictionaries). The dicts made here are the ``__dict__`` of
    instances of a class of their own, with ``keys`` reserved in their order: plain ``dict``
    objects in every other way. A ``MENTIONS`` edge's 9 attributes take 168 bytes so, 280 in a dict
    of its own; a concept's 16 (with its analytics) 264 bytes, 480 on their own.

    A dict that is given a key it was not made with becomes a dict of its own again (as does a
    copy, a pickle's load or ``dict(d)``): still right, only larger.

    >>> link = SharedKeys("weight", "shared", "rel")
    >>> d = link({"weight": 1.5, "shared": ["bert"]})
    >>> d["rel"] = "SHARES_CONCEPTS"
    >>> d, type(d)
    ({'weight': 1.5, 'shared': ['bert'], 'rel': 'SHARES_CONCEPTS'}, <class 'dict'>)
    """

    __slots__ = ("_instance", "keys")

    def __init__(self, *keys: str) -> None:
        if len(keys) > MAX_KEYS:
            raise ValueError(f"at most {MAX_KEYS} shared keys, not {len(keys)}")
        self.keys = keys
        self._instance = type("Attributes", (), {})
        # The class's table of keys takes them in this order from its first instance.
        first = self._instance()
        for key in keys:
            setattr(first, key, None)

    def __call__(self, attrs: Mapping[str, Any]) -> dict[str, Any]:
        """A dict of ``attrs`` that shares its keys with the others made here."""
        d: dict[str, Any] = self._instance().__dict__
        # one by one: dict.update into an empty dict takes a copy of the other dict's own table
        for key, value in attrs.items():
            d[key] = value
        return d


def add_edge_dict(G: nx.Graph, u: Any, v: Any, attrs: dict[str, Any]) -> None:
    """Add the edge ``u``-``v`` to ``G`` (adding its nodes as needed) with ``attrs`` as its attribute dict.

    Unlike ``G.add_edge(u, v, **attrs)``, the graph keeps ``attrs`` itself, not a copy: a dict
    made by :class:`SharedKeys`, or the dict of the same edge in another graph (``G`` then shares
    it, and what one graph changes in it the other sees). An edge already there loses its old
    attributes.

    >>> G = nx.DiGraph()
    >>> attrs = {"weight": 2.0}
    >>> add_edge_dict(G, "a", "b", attrs)
    >>> G.edges["a", "b"] is attrs, G.pred["b"]["a"] is attrs
    (True, True)
    """
    G.add_edge(u, v)
    # networkx keeps an edge's dict in both ends' adjacency: _succ and _pred of a DiGraph (whose
    # _adj is its _succ), _adj both ways for a Graph
    if G.is_directed():
        G._succ[u][v] = G._pred[v][u] = attrs
    else:
        G._adj[u][v] = G._adj[v][u] = attrs


def set_node_dict(G: nx.Graph, n: Any, attrs: dict[str, Any]) -> None:
    """Add node ``n`` to ``G`` with ``attrs`` as its attribute dict (what it had before is added to it).

    >>> G = nx.Graph()
    >>> G.add_node("x", kind="Concept")
    >>> set_node_dict(G, "x", {"name": "X"})
    >>> G.nodes["x"]
    {'name': 'X', 'kind': 'Concept'}
    """
    G.add_node(n)
    for key, value in G._node[n].items():
        attrs.setdefault(key, value)
    G._node[n] = attrs


class OneEach(dict[Any, Any]):
    """One object for each distinct value it is called with: the first one, returned again for
    every equal one after it (a corpus's edges repeat offsets, spellings and scores by the million,
    each an object of its own as decoded). Floats ``0.0`` and ``-0.0`` are kept apart.

    >>> one = OneEach()
    >>> a, b = one(float("1.5")), one(float("1.5"))
    >>> a is b, one(-0.0), len(one)
    (True, -0.0, 2)
    """

    def __call__(self, value: Any) -> Any:
        if value == 0 and isinstance(value, float):  # (0.0 == -0.0: a key that tells them apart)
            return self.setdefault((value, math.copysign(1.0, value) > 0), value)
        return self.setdefault(value, value)
