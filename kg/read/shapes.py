"""Typed access to the fields of a JSON record: a field of the wrong type is a :class:`RecordError`."""

from __future__ import annotations

from typing import Any

from kg.read.raw import RecordError


def text(obj: dict[str, Any] | None, key: str, *, kind: str) -> str | None:
    """``obj[key]`` if it is text, ``None`` if it is absent or null.

    >>> text({"title": "T"}, "title", kind="malformed work"), text(None, "title", kind="malformed work")
    ('T', None)
    >>> text({"title": 3}, "title", kind="malformed work")
    Traceback (most recent call last):
    ...
    kg.read.raw.RecordError: title is not text
    """
    value = None if obj is None else obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise RecordError(kind, f"{key} is not text")


def mapping(obj: dict[str, Any] | None, key: str, *, kind: str) -> dict[str, Any] | None:
    """``obj[key]`` if it is a JSON object, ``None`` if it is absent or null.

    >>> mapping({"source": {"display_name": "ACL"}}, "source", kind="malformed work")
    {'display_name': 'ACL'}
    """
    value = None if obj is None else obj.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise RecordError(kind, f"{key} is not an object")


def items(obj: dict[str, Any] | None, key: str, *, kind: str, what: str = "a list") -> list[Any]:
    """``obj[key]`` if it is a list, ``[]`` if it is absent or null; ``what`` names the expected shape.

    >>> items({"authors": ["A B"]}, "authors", kind="malformed work"), items({}, "authors", kind="malformed work")
    (['A B'], [])
    """
    value = None if obj is None else obj.get(key)
    if value is None:
        return []
    if isinstance(value, list):
        return value
    raise RecordError(kind, f"{key} is not {what}")
