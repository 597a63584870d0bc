"""One reader for validated documents: profiles, workloads, signatures, tool reports, diagnose inputs.

A :class:`Reader` knows the file it reads and the error type of its format
(:class:`~pinchpoint.errors.ProfileError`, :class:`~pinchpoint.errors.WorkloadError` ...).  Its
typed getters take a value and the dotted key path it sits at (``links.pci.width``,
``phases[0].memory[1]``) and either return the value, checked and in SI units, or raise that
error type naming the file, the key and what was expected.  Every format words the same
mistake the same way ("unknown key 'x' (allowed: ...)", "missing", "'y' is not one of a, b").

The shape follows pyhf's schema validation (a path to the offending value in every error) and
pint's definitions (an object is checked where it is built, never later).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pinchpoint.errors import LocatedError, UnitError, shown


def key_path(key: str | None, name: str | int) -> str:
    """The key path of ``name`` inside ``key``: ``a.b`` for a name, ``a[3]`` for an index."""
    if isinstance(name, int):
        return f"{key or ''}[{name}]"
    return f"{key}.{name}" if key else str(name)


#: Largest amount of work (bytes, operations, messages) a document may describe.  About 1e18
#: B/s (an exascale machine's memory traffic) over 4e17 s (the age of the universe) is 4e35;
#: 1e40 leaves room and keeps every time derived from it, summed over phases, finite.
MAX_WORK = 1e40

#: Smallest and largest size (in SI units: s, B, B/s, Hz ...) of a quantity in any document:
#: 1e-30 s is far below any clock, 1e30 B/s far above all the world's links together; inside
#: this range every ratio and product of two figures is finite.
PHYSICAL_RANGE = (1e-30, 1e30)

#: Integers at or beyond this are past the largest float (1.8e308): not finite as figures.
_BIG = 2 ** 1024


def _spelled(link) -> str | None:
    """The key path of a ``(parent_link, name)`` chain, root first."""
    names = []
    while link is not None:
        link, name = link
        names.append(name)
    path = None
    for name in reversed(names):
        path = key_path(path, name)
    return path


def _is_real(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        return False


class Reader:
    """Typed, located reading of one document (or one set of inputs) of one format.

    Parameters
    ----------
    file : str or None
        The file the document came from (None: inputs given in code, or on a command line).
    error : type of LocatedError
        What a refusal raises: the format's own error type.
    json, yaml : bool
        A JSON or YAML document: messages say "object" or "mapping" where TOML ones say "table".
    """

    __slots__ = ("file", "error_type", "table_word")

    def __init__(self, file: str | None = None, error: type[LocatedError] = LocatedError, *,
                 json: bool = False, yaml: bool = False):
        self.file = None if file is None else str(file)
        self.error_type = error
        #: what a mapping is called in this format's messages
        self.table_word = "an object" if json else "a mapping" if yaml else "a table"

    # --- errors -----------------------------------------------------------------------------

    def error(self, key: str | None, message: str) -> LocatedError:
        """The format's error for ``key`` in this file (raise it)."""
        return self.error_type(message, file=self.file, key=key or None)

    def adopt(self, exc: LocatedError, key: str | None = None) -> LocatedError:
        """``exc`` (raised by a helper, e.g. a :class:`UnitError` from ``units.parse``) as this
        format's error, located in this file at ``exc``'s key or else ``key``."""
        return exc.located(file=self.file, key_prefix=None if exc.key else key, kind=self.error_type)

    # --- whole documents --------------------------------------------------------------------

    def check_tree(self, doc, *, max_depth: int) -> None:
        """Refuse a document nested deeper than ``max_depth`` or holding a number that is not
        finite (TOML's ``inf`` and ``nan``, JSON's ``Infinity``, ``1e400``, an integer beyond
        any float), naming the key.  One rule for every format, checked where it is parsed:
        an infinite scenario weight or loop count is nonsense in every figure derived from it.

        Iterative (the parsers and our walkers recurse; a 100,000-link profile: 0.1 s); a key
        path is spelled out only for the value refused.
        """
        stack = [(None, doc, 0)] if isinstance(doc, (dict, list)) else []
        while stack:
            link, node, depth = stack.pop()
            if depth > max_depth:
                raise self.error(_spelled(link), f"nested deeper than {max_depth} levels")
            for name, value in (node.items() if isinstance(node, dict) else enumerate(node)):
                kind = type(value)
                if kind is dict or kind is list:
                    stack.append(((link, name), value, depth + 1))
                elif (kind is float and not math.isfinite(value)) or (kind is int and not -_BIG < value < _BIG):
                    raise self.error(_spelled((link, name)),
                                     f"{shown(value)} is not a finite number (a value this large or undefined "
                                     "makes every figure derived from it meaningless)")

    def finite(self, value: float, key: str | None, what: str) -> float:
        """``value``, a figure derived from checked inputs (a product of counts, a sum of
        times), if it is finite; else this format's error naming ``key`` and ``what`` it is."""
        if not _finite(value):
            raise self.error(key, f"gives {what} of {value!r}: the inputs are too large (or too small) "
                                  "for a finite figure")
        return value

    def work(self, value: float, key: str | None, what: str) -> float:
        """``value``, an amount of work derived from a document (bytes moved, operations, a count
        times ``repeat``), if it is at most :data:`MAX_WORK`; else this format's error naming
        ``key``.  Checked at load so that every time derived from it stays finite."""
        if not _finite(value) or value > MAX_WORK:
            raise self.error(key, f"gives {what} of {value:.3g}, beyond {MAX_WORK:.0e} (more than every computer "
                                  "could do in the age of the universe): check the counts and 'repeat'")
        return value

    def physical(self, si: float, key: str | None, raw) -> float:
        """``si``, a quantity in SI units read from ``raw``, if it is zero or within
        :data:`PHYSICAL_RANGE` in size; else this format's error naming ``key``.  "1e-300 B/s"
        parses, but its ratio to any real rate overflows (a ceiling's growth to move the
        bottleneck came out as inf)."""
        lo, hi = PHYSICAL_RANGE
        if si and not lo <= abs(si) <= hi:
            raise self.error(key, f"{shown(raw)} is {abs(si):.3g} in SI units, outside any real machine or workload "
                                  f"({lo:g} .. {hi:g}, or 0)")
        return si

    # --- tables and lists -------------------------------------------------------------------

    def check_keys(self, table: Mapping, allowed: Iterable[str], key: str | None) -> None:
        """Refuse a key of ``table`` that is not in ``allowed``, naming it and the allowed ones."""
        allowed = tuple(allowed)
        for name in table:
            if name not in allowed:
                raise self.error(key_path(key, name),
                                 f"unknown key {shown(name)} (allowed: {', '.join(sorted(allowed))})")

    def table(self, value, key: str | None, allowed: Iterable[str] | None = None,
              required: Iterable[str] = ()) -> Mapping:
        """``value`` as a table (a JSON object), its keys among ``allowed``, ``required`` present."""
        if not isinstance(value, Mapping):
            raise self.error(key, f"expected {self.table_word}, got {shown(value)}")
        if allowed is not None:
            self.check_keys(value, allowed, key)
        for name in required:
            if name not in value:
                raise self.error(key_path(key, name), "missing")
        return value

    def list(self, value, key: str | None, *, non_empty: bool = False) -> list:
        """``value`` as a list (a TOML array, a JSON array)."""
        if not isinstance(value, list) or (non_empty and not value):
            raise self.error(key, f"must be a {'non-empty ' if non_empty else ''}list, got {shown(value)}")
        return value

    # --- scalars ----------------------------------------------------------------------------

    def text(self, value, key: str | None, *, non_empty: bool = False) -> str:
        """``value`` as a string."""
        if not isinstance(value, str):
            raise self.error(key, f"{shown(value)} is not a string")
        if non_empty and not value.strip():
            raise self.error(key, "must be a non-empty string")
        return value

    def text_field(self, table: Mapping, name: str, key: str | None, required: bool = False) -> str | None:
        """``table[name]`` as a string, None where absent (an error where ``required``)."""
        if name not in table:
            self.field(table, name, key, required=required, expected="a string")
            return None
        return self.text(table[name], key_path(key, name))

    def field(self, table: Mapping, name: str, key: str | None, *, required: bool = False,
              default: Any = None, expected: str = "") -> Any:
        """``table[name]``, or ``default`` where it is absent (an error where ``required``)."""
        if name in table:
            return table[name]
        if required:
            raise self.error(key_path(key, name), f"missing{f' (expected {expected})' if expected else ''}")
        return default

    def number(self, value, key: str | None, *, what: str | None = None, minimum: float | None = None,
               positive: bool = False, integer: bool = False, hint: str | None = None) -> float:
        """``value`` as a finite float, at least ``minimum``, above zero where ``positive``, whole
        where ``integer``.  ``what`` names the quantity in messages ("round-trip time")."""
        about = f" ({what})" if what else (f" ({hint})" if hint else "")
        if not _is_real(value):
            raise self.error(key, f"{shown(value)} is not a number{about}")
        if not _finite(value):
            raise self.error(key, f"{shown(value)} is not a finite number{about}")
        if positive and value <= 0:
            raise self.error(key, f"{what} must be greater than zero, got {value!r}" if what
                             else f"{value!r} must be greater than zero")
        if minimum is not None and value < minimum:
            raise self.error(key, f"{value!r} is negative (must be >= 0)" if minimum == 0
                             else f"must be at least {minimum:g}, got {value!r}")
        if integer and value != int(value):
            raise self.error(key, f"{value!r} is not a whole number")
        return float(value)

    def whole(self, value, key: str | None, *, minimum: int = 0, what: str = "a whole number") -> int:
        """``value`` as an int (a bool is not one) of at least ``minimum``."""
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise self.error(key, f"expected {what} >= {minimum}, got {shown(value)}")
        return value

    def quantity(self, value, dimension: str, key: str | None, *, positive: bool = False,
                 minimum: float | None = 0.0) -> float:
        """A string with a unit ("4 KiB", "1 ms") as a ``dimension`` of :func:`pinchpoint.physics.units.parse`,
        in SI units; negative values refused unless ``minimum`` is None."""
        if not isinstance(value, str):
            example = '"4 KiB"' if dimension == "size" else '"1 ms"'
            raise self.error(key, f"{shown(value)} must be a string with a unit, e.g. {example}")
        from pinchpoint.physics import units

        try:
            si = units.parse(value, dimension, file=self.file, key=key)
        except UnitError as exc:
            raise self.adopt(exc, key) from None
        if minimum is not None and (not math.isfinite(si) or si < minimum):
            raise self.error(key, f"{value!r} is negative (must be >= 0)")
        if positive and si <= 0:
            raise self.error(key, f"{value!r} must be greater than zero")
        return si

    def choice(self, value, choices: Iterable, key: str | None) -> Any:
        """``value`` if it is one of ``choices``."""
        choices = tuple(choices)
        if isinstance(value, bool) or value not in choices:
            raise self.error(key, f"{shown(value)} is not one of {', '.join(map(str, choices))}")
        return value
