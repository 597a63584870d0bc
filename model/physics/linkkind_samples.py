"""Random valid parameter tables of a link kind, for property tests (``LinkKind.sample``).

Hypothesis passes a ``random.Random`` it controls (``st.randoms``), so these need no hypothesis
import and each kind's registry entry can carry its own sample.
"""

from __future__ import annotations

import random


def sample_table(kind, rng: random.Random) -> dict:
    """A random table near a kind's ``example``: each number scaled by 0.1 .. 10 (within its
    parameter's range), each parameter with ``choices`` drawn from them, whole numbers between
    their bounds.  Text keys and strings with units are kept as the example gives them, scaled."""
    table = dict(kind.example)
    for p in kind.params:
        if p.name in table or p.choices or p.integer:
            table[p.name] = _drawn(p, table.get(p.name), rng)
    return table


def _drawn(p, raw, rng: random.Random):
    """One parameter's value: from its choices, a whole number in its bounds, or ``raw`` scaled."""
    from pinchpoint.physics import units  # only tests draw samples: keep the registry's import light

    if p.choices:
        choice = rng.choice(p.choices)
        if p.dimension != "dimensionless":
            return units.format_quantity(choice, p.dimension, digits=12)
        return int(choice) if p.integer else choice
    if p.integer:
        lo = int(p.minimum if p.minimum is not None else 1)
        hi = int(p.maximum if p.maximum is not None else max(lo, int(p.default or lo)) * 4)
        return rng.randint(lo, hi)
    si = units.parse(raw, p.dimension) if isinstance(raw, str) else float(raw)
    si *= 10 ** rng.uniform(-1, 1)
    if p.maximum is not None:
        si = min(si, p.maximum * (1 if p.maximum_included else 0.999))
    return units.format_quantity(si, p.dimension) if isinstance(raw, str) else si


class BusSample:
    """Property tests' tables for a clocked bus: width in bits, clock in MHz as a profile writes
    them (a test rewrites them in other units and expects the same ceilings).  The registry entry
    holds it and passes itself in (``draw(kind, rng)``), so this module needs no registry."""

    def __init__(self, name: str, widths: tuple[int, ...] = (8, 16, 32, 64, 128),
                 mhz: tuple[float, float] = (10, 2000)):
        self.name, self.widths, self.mhz = name, widths, mhz

    def draw(self, kind, rng: random.Random) -> dict:
        table = sample_table(kind, rng)
        table["width"] = f"{rng.choice(self.widths)} bit"
        table["clock"] = f"{rng.uniform(*self.mhz)!r} MHz"
        return table


def bus_sample(name: str, widths: tuple[int, ...] = (8, 16, 32, 64, 128), mhz: tuple[float, float] = (10, 2000)):
    """The same as a :class:`BusSample` (the name this had before)."""
    return BusSample(name, widths, mhz)


#: Units a property test writes a rate in, and bytes per second in one of each.
RATE_UNITS = {"Gbit/s": 1e9 / 8, "Mbit/s": 1e6 / 8, "GB/s": 1e9, "MB/s": 1e6, "kB/s": 1e3, "GiB/s": 2**30}


def link_sample(rng: random.Random) -> dict:
    unit = rng.choice(list(RATE_UNITS))
    return {"rate": f"{rng.uniform(1e6, 1e11) / RATE_UNITS[unit]!r} {unit}", "shared": rng.choice([0, 1])}
