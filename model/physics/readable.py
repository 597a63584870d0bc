"""Short texts with units for the ``repr`` of result objects, so that a notebook cell that
ends in a Ceiling, a Verdict or a Prediction shows "8.512 Gbit/s", not a dict of SI floats.

A rate is shown both ways (memory figures are read in B/s, network figures in bit/s) so that
the object need not know which it is, unless the reader chose one unit for every rate
(:func:`pinchpoint.physics.units.rate_units`).  The formatting itself is
:mod:`pinchpoint.physics.units`'s: :func:`size`, :func:`flop_rate` and :func:`quantity` are the
policy's names for callers that format for people (tables, plots, the report).
"""

from __future__ import annotations

from pinchpoint.physics.units import (chosen_rate_units, format_flop_rate, format_quantity, format_rate,
                                      format_size)


def rate(bytes_per_s: float | None, convention: str | None = None) -> str:
    """``"1.064 GB/s = 8.512 Gbit/s"`` (decimal prefixes); with a ``convention`` ("network" or
    "memory") or a chosen rate unit, that one only; ``"-"`` for None."""
    if bytes_per_s is None:
        return "-"
    if convention is not None or chosen_rate_units() is not None:
        return format_rate(bytes_per_s, convention or "network")
    return f"{format_rate(bytes_per_s, 'memory')} = {format_rate(bytes_per_s, 'network')}"


def size(size_bytes: float) -> str:
    """A cache, working set, window or buffer size with a binary prefix: ``"32 KiB"``."""
    return format_size(size_bytes)


def flop_rate(flop_per_s: float) -> str:
    """``"19.51 Gflop/s"`` or ``"1.2 Tflop/s"``."""
    return format_flop_rate(flop_per_s)


def quantity(value: float, dimension: str) -> str:
    """Any SI float of a known dimension by the unit policy (see :mod:`pinchpoint.physics.units`)."""
    return format_quantity(value, dimension)


def seconds(s: float) -> str:
    return format_quantity(s, "time")


def names(items, limit: int = 6) -> str:
    items = list(items)
    more = f", ... ({len(items)} in all)" if len(items) > limit else ""
    return ", ".join(str(i) for i in items[:limit]) + more
