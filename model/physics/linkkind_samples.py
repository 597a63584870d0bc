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
    from pinchpoint.physics import units  # only tests draw samples: keep the registry's import light

    table = dict(kind.example)
    for p in kind.params:
        if p.name not in table and not (p.choices or p.integer):
            continue
        if p.choices:
            choice = rng.choice(p.choices)
            table[p.name] = (int(choice) if p.dimension == "dimensionless" and p.integer
                             else choice if p.dimension == "dimensionless"
                             else units.format_quantity(choice, p.dimension, digits=12))
        elif p.integer:
            lo = int(p.minimum if p.minimum is not None else 1)
            hi = int(p.maximum if p.maximum is not None else max(lo, int(p.default or lo)) * 4)
            table[p.name] = rng.randint(lo, hi)
        else:
            raw = table[p.name]
            si = units.parse(raw, p.dimension) if isinstance(raw, str) else float(raw)
            si *= 10 ** rng.uniform(-1, 1)
            if p.maximum is not None:
                si = min(si, p.maximum * (1 if p.maximum_included else 0.999))
            table[p.name] = units.format_quantity(si, p.dimension) if isinstance(raw, str) else si
    return table


def bus_sample(name: str, widths: tuple[int, ...] = (8, 16, 32, 64, 128), mhz: tuple[float, float] = (10, 2000)):
    """Property tests' tables for a clocked bus: width in bits, clock in MHz as a profile writes
    them (a test rewrites them in other units and expects the same ceilings)."""
    def sample(rng: random.Random) -> dict:
        from pinchpoint.physics.linkkinds import KINDS

        table = sample_table(KINDS[name], rng)
        table["width"] = f"{rng.choice(widths)} bit"
        table["clock"] = f"{rng.uniform(*mhz)!r} MHz"
        return table
    return sample


#: Units a property test writes a rate in, and bytes per second in one of each.
RATE_UNITS = {"Gbit/s": 1e9 / 8, "Mbit/s": 1e6 / 8, "GB/s": 1e9, "MB/s": 1e6, "kB/s": 1e3, "GiB/s": 2**30}


def link_sample(rng: random.Random) -> dict:
    unit = rng.choice(list(RATE_UNITS))
    return {"rate": f"{rng.uniform(1e6, 1e11) / RATE_UNITS[unit]!r} {unit}", "shared": rng.choice([0, 1])}
