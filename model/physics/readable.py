"""Short texts with units for the ``repr`` of result objects, so that a notebook cell that
ends in a Ceiling, a Verdict or a Prediction shows "8.512 Gbit/s", not a dict of SI floats.

A rate is shown both ways (memory figures are read in B/s, network figures in bit/s) so that
the object need not know which it is.  :mod:`pinchpoint.physics.units` is imported only when a repr is
asked for.
"""

from __future__ import annotations


def rate(bytes_per_s: float | None) -> str:
    """``"1.064 GB/s = 8.512 Gbit/s"`` (decimal prefixes); ``"-"`` for None."""
    if bytes_per_s is None:
        return "-"
    from pinchpoint.physics.units import format_rate

    return f"{format_rate(bytes_per_s, 'memory')} = {format_rate(bytes_per_s, 'network')}"


def seconds(s: float) -> str:
    from pinchpoint.physics.units import format_quantity

    return format_quantity(s, "time")


def names(items, limit: int = 6) -> str:
    items = list(items)
    more = f", ... ({len(items)} in all)" if len(items) > limit else ""
    return ", ".join(str(i) for i in items[:limit]) + more
