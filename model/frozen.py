"""A read-only, hashable mapping for the fields of frozen data objects.

``dataclass(frozen=True)`` stops reassigning a field but not changing a dict held in one:
``profile.links["pcix"].params["clock"] = ...`` used to succeed, and a dict field made the
object unhashable.  :class:`FrozenMap` closes both holes.  ``types.MappingProxyType`` would
make the dict read-only but is not hashable, so this small class is used instead (the shape of
the ``frozendict`` package, without the dependency).  Layer 2: no I/O.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping


class FrozenMap(Mapping):
    """An immutable mapping that hashes by its contents (computed once, then cached).

    Compares equal to a ``dict`` with the same items (``Mapping.__eq__``), so code and tests
    that compare a field with a dict literal keep working.
    """

    __slots__ = ("_items", "_hash")

    def __init__(self, items: Mapping | Any = ()):
        self._items = dict(items)
        self._hash = None

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self) -> Iterator:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items

    def get(self, key, default=None):
        return self._items.get(key, default)

    # the dict's own views are read-only and much faster than Mapping's generic ones
    def keys(self):
        return self._items.keys()

    def values(self):
        return self._items.values()

    def items(self):
        return self._items.items()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    def __eq__(self, other) -> bool:
        if isinstance(other, FrozenMap):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __reduce__(self):  # pickling (multiprocessing, copy) rebuilds from the items
        return (FrozenMap, (self._items,))

    def __or__(self, other: Mapping) -> "FrozenMap":
        merged = FrozenMap.__new__(FrozenMap)  # one copy, not two: what-ifs on 100,000 links
        merged._items, merged._hash = {**self._items, **other}, None
        return merged


EMPTY = FrozenMap()


def freeze_map(value: Mapping | None) -> FrozenMap:
    """``value`` as a FrozenMap (itself when it already is one: no copy)."""
    if isinstance(value, FrozenMap):
        return value
    return EMPTY if not value else FrozenMap(value)


def thaw(value):
    """A plain copy of what :func:`deep_freeze` made (dicts and lists, for JSON and TOML writers)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def deep_freeze(value):
    """A read-only copy of a parsed document: tables become FrozenMaps, arrays tuples (a
    FrozenMap is taken as already frozen all the way down: what this function returns)."""
    if isinstance(value, FrozenMap):
        return value
    if isinstance(value, Mapping):
        return FrozenMap({k: deep_freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(deep_freeze(v) for v in value)
    return value
