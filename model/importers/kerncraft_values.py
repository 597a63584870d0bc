"""Reading the values of a kerncraft machine file: quantities with units, whole numbers, the
per-core-count lists of the benchmark section (shared by :mod:`pinchpoint.importers.kerncraft`
and :mod:`pinchpoint.importers.kerncraft_memory`).

Sizes and rates are decimal as kerncraft writes them ("21.12 kB" = 21 120 B; kerncraft's
``PrefixedUnit.PREFIXES`` has k = 1e3, M = 1e6, G = 1e9); values with a T, P or E prefix are
refused (kerncraft's table reads T as 1e13 and P as 1e16).  ``INFORMATION_REQUIRED`` (what
kerncraft's templates leave where a value is not known) reads as unknown.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from pinchpoint.errors import InputError, UnitError, shown
from pinchpoint.inputs.document import Reader
from pinchpoint.physics import units


def machine_reader(file) -> Reader:
    """The reader of a machine file: its refusals are InputErrors naming the file and the key."""
    return Reader(file, InputError, yaml=True)



@lru_cache(maxsize=4096)
def _parse_cached(text: str, dimension: str) -> float:
    return units.parse(text, dimension)


def quantity(value, dimension: str, file, key) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if dimension == "dimensionless":
            return float(value)
        raise machine_reader(file).error(key, f"{value!r} has no unit: expected a {dimension} such as '2.3 GHz' "
                                    "or '32.00 kB'")
    if not isinstance(value, str):
        raise machine_reader(file).error(key, f"expected a {dimension}, found {value!r}")
    if re.match(r"^\s*[-+0-9.eE]+\s*[TPEZY](?:B|B/s|Hz|FLOP|flop)", value):
        raise machine_reader(file).error(key, f"{value!r} is ambiguous: kerncraft's prefix table reads T as 1e13 and "
                                    "P as 1e16 (not 1e12 and 1e15); write the value with a G prefix")
    text = re.sub(r"\bcy\b", "cycle", value)
    try:
        si = _parse_cached(text, dimension)
    except UnitError as exc:
        raise exc.located(file=file, key_prefix=key, kind=InputError) from None
    if not math.isfinite(si):
        raise machine_reader(file).error(key, f"{value!r} is not finite")
    if si < 0:
        raise machine_reader(file).error(key, f"{value!r} must not be negative")
    return si


UNKNOWN = "INFORMATION_REQUIRED"


def is_unknown(value) -> bool:
    return isinstance(value, str) and value.strip().startswith(UNKNOWN)


#: Largest counts we believe (the biggest shared-memory machines have a few hundred sockets and
#: cores per socket); a larger one is a typo or an attack: 10,000,000 sockets took 3.9 GB.
MAX_COUNT = {"sockets": 1024, "cores per socket": 4096, "threads per core": 64}


def whole(data, key, file, *, where=None, default=None) -> int | None:
    value = data.get(key, default)
    path = f"{where}.{key}" if where else key
    if value is None:
        if key in data:  # "sockets: null" is not "no sockets given"
            raise machine_reader(file).error(path, "expected a whole number >= 1, found null")
        return None
    if is_unknown(value):
        return None
    if isinstance(value, float) and value.is_integer():  # "cores per group: 1.0"
        value = int(value)
    if isinstance(value, str) and re.match(r"^\s*[0-9]+\s*B\s*$", value):  # "cl_size: 64 B"
        value = int(value.strip()[:-1])
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise machine_reader(file).error(path, f"expected a whole number >= 1, found {shown(value)}")
    limit = MAX_COUNT.get(key)
    if limit is not None and value > limit:
        raise machine_reader(file).error(path, f"{value} is beyond any real machine (at most {limit})")
    return value



def measurement_blocks(machine: dict, file):
    """(level name, threads per core, block, key) for every measurement block."""
    bench = machine.get("benchmarks")
    if bench is None:
        return
    machine_reader(file).table(bench, "benchmarks")
    meas = bench.get("measurements") or {}
    if not isinstance(meas, dict):
        raise machine_reader(file).error("benchmarks.measurements", "expected a mapping of levels")
    for level, per_tpc in meas.items():
        key = f"benchmarks.measurements.{level}"
        if not isinstance(per_tpc, dict):
            raise machine_reader(file).error(key, "expected a mapping of threads per core")
        for tpc, block in per_tpc.items():
            bkey = f"{key}.{tpc}"
            machine_reader(file).table(block, bkey)
            yield str(level), tpc, block, bkey


def entries(block, name, file, key, n=None, *, counts=False) -> list:
    value = block.get(name)
    if not isinstance(value, list):
        raise machine_reader(file).error(f"{key}.{name}", "expected a list (one entry per core count)")
    if n is not None and len(value) != n:
        raise machine_reader(file).error(f"{key}.{name}",
                               f"expected {n} entries (one per core count), found {len(value)}")
    if counts:
        for i, v in enumerate(value):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise machine_reader(file).error(f"{key}.{name}[{i}]", f"expected a whole number >= 1, found {v!r}")
    return value




def chip_cores(machine: dict, file) -> int:
    return whole(machine, "cores per socket", file) or 1
