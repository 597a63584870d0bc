"""How diagnose writes numbers in prose: rates in bit/s, sizes in the prefix they were likely
written in, times with their unit."""

from __future__ import annotations

import math

from pinchpoint.physics.units import format_quantity, format_rate, format_size


def net(x: float) -> str:
    """A rate [B/s] as network people write it (bit/s)."""
    return format_rate(x, "network")


def size(x: float) -> str:
    """A size in the prefix it was most likely written in: '4 MiB', '64 KiB', '100 MB', '87380 B'."""
    options = []
    for factor, unit in ((2 ** 30, "GiB"), (2 ** 20, "MiB"), (2 ** 10, "KiB"),
                         (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        # a whole (or one-decimal) count under 1024 of its unit: "23373 KiB" reads better as 22.83 MiB
        if factor <= x < 1024 * factor and abs(x / factor - round(x / factor, 1)) < 1e-9:
            options.append(f"{x / factor:g} {unit}")
    if options:
        return min(options, key=len)
    return f"{x:.0f} B" if x < 1e6 else format_quantity(x, "size", 3)


def at_least(x: float, digits: int = 2) -> str:
    """A buffer size rounded up to ``digits`` significant figures of its binary prefix (the unit
    policy: buffers in KiB, MiB): 55.6e6 B = 53.0 MiB -> '54 MiB'."""
    if x <= 0:
        return "0 B"
    factor = next((f for f in (2.0 ** 40, 2.0 ** 30, 2.0 ** 20, 2.0 ** 10) if x >= f), 1.0)
    v = x / factor
    step = 10.0 ** (math.floor(math.log10(v)) - digits + 1)
    return format_size(math.ceil(v / step - 1e-9) * step * factor, digits + 1)


def time(x: float) -> str:
    """A duration [s] with its unit."""
    return format_quantity(x, "time")


def round_sig(x: float, digits: int = 2) -> float:
    """Round half up to ``digits`` significant figures, in decimal (0.0445 -> 0.045, not 0.044)."""
    from decimal import ROUND_HALF_UP, Decimal

    if x == 0:
        return 0.0
    exp = math.floor(math.log10(abs(x))) - digits + 1
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP))

