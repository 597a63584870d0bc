"""Readers of a workload phase's loop tables: the loop nest (``[phases.loop]``: extents,
offsets, sweeps), short inner loops (``inner_trips``, ``inner_loops``) and the instruction
table (``[phases.instructions]``).  Each takes the document's table and the Reader, checks it
and returns the workload's data object; errors name the key (exit 2 through the CLI)."""

from __future__ import annotations

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.document import Reader
from pinchpoint.inputs.workload_data import (DEPENDENCY_KINDS, INSTRUCTION_KEYS,
                                             INSTRUCTION_VALUES, RESTART_KEYS, WAIT_LEVELS,
                                             Dependencies, Instructions, LoopNest)


def read_count(ctx: Reader, value, key, *, integer=False) -> float:
    """A count (>= 0) such as 1000 or 1e6."""
    return ctx.number(value, key, minimum=0, integer=integer, hint="give a count such as 1000 or 1e6")


def read_at_least_one(ctx: Reader, d, key: str, name: str, what: str = "", *,
                      integer: bool = True) -> float | None:
    """``d[name]``, a count of at least 1 (``what`` says what it counts), or None where absent."""
    if name not in d:
        return None
    n = read_count(ctx, d[name], f"{key}.{name}", integer=integer)
    if n < 1:
        raise ctx.error(f"{key}.{name}", f"must be at least 1{what}")
    return n


MAX_LOOP_DIMS, MAX_OFFSETS = 8, 1000


def _offsets(ctx: Reader, d, key, dims: int, extents) -> tuple:
    table = ctx.table(d, key, tuple(d) if isinstance(d, dict) else ())
    arrays = []
    for name, offs in table.items():
        k = f"{key}.{name}"
        if not isinstance(offs, list) or not offs or len(offs) > MAX_OFFSETS:
            raise ctx.error(k, f"must be a list of 1 .. {MAX_OFFSETS} offsets, each a list of "
                             f"{dims} integers (e.g. [[0, -1], [0, 1]])")
        parsed = []
        for j, off in enumerate(offs):
            if not (isinstance(off, list) and len(off) == dims and
                    all(isinstance(o, int) and not isinstance(o, bool) for o in off)):
                raise ctx.error(f"{k}[{j}]", f"{off!r} is not a list of {dims} integers (one per "
                                           f"dimension of extents)")
            if any(abs(o) >= n for o, n in zip(off, extents)):
                raise ctx.error(f"{k}[{j}]", f"{off!r} reaches past the grid {list(extents)}")
            parsed.append(tuple(off))
        arrays.append((name, tuple(parsed)))
    return tuple(arrays)


def read_trips(ctx: Reader, d, key) -> tuple:
    """(inner_trips, inner_loops) of a phase or its loop table (None where not given)."""
    loops = None
    trips = read_at_least_one(ctx, d, key, "inner_trips", " (iterations of the inner loop)",
                              integer=False)
    if "inner_loops" in d:
        if trips is None:
            raise ctx.error(f"{key}.inner_loops", "needs inner_trips (the trip count of those loops)")
        loops = read_count(ctx, d["inner_loops"], f"{key}.inner_loops")
    return trips, loops


def read_loop(ctx: Reader, d, key) -> LoopNest:
    ctx.table(d, key, ("extents", "element", "sweeps", "loads", "stores", "inner_trips",
                       "inner_loops"), ("extents", "loads"))
    ext = d["extents"]
    if not (isinstance(ext, list) and 1 <= len(ext) <= MAX_LOOP_DIMS and
            all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 2 ** 40
                for n in ext)):
        raise ctx.error(f"{key}.extents", f"{ext!r} is not a list of 1 .. {MAX_LOOP_DIMS} "
                                        f"grid sizes (whole numbers >= 1), outermost first")
    element = ctx.quantity(d.get("element", "8 B"), "size", f"{key}.element", positive=True)
    sweeps = read_count(ctx, d.get("sweeps", 1), f"{key}.sweeps")
    loads = _offsets(ctx, d["loads"], f"{key}.loads", len(ext), ext)
    if not loads:
        raise ctx.error(f"{key}.loads", "is empty (name at least one array the loop loads)")
    stores = _offsets(ctx, d.get("stores", {}), f"{key}.stores", len(ext), ext)
    return LoopNest(tuple(ext), element, loads, stores, sweeps)


def read_instructions(ctx: Reader, d, key) -> Instructions:
    ctx.table(d, key, INSTRUCTION_KEYS + INSTRUCTION_VALUES
              + ("mispredicted_waits", "waits_working_set"), ("total",))
    counts = {k: read_count(ctx, d[k], f"{key}.{k}") for k in INSTRUCTION_KEYS if k in d}
    if "mispredicted_waits" in d:
        counts["mispredicted_waits"] = _read_waits(ctx, d["mispredicted_waits"],
                                                   f"{key}.mispredicted_waits")
    if "waits_working_set" in d:
        counts["waits_working_set"] = ctx.quantity(d["waits_working_set"], "size",
                                                   f"{key}.waits_working_set", positive=True)
    for name in ("branch_period", "taken_period"):
        if name in d:
            counts[name] = ctx.number(d[name], f"{key}.{name}", minimum=1,
                                      hint="give a number of branches such as 8192")
    if "quotient_bits" in d:
        q = counts["quotient_bits"] = ctx.number(d["quotient_bits"], f"{key}.quotient_bits",
                                                 minimum=1, hint="a quotient width in bits")
        if q > 64:
            raise ctx.error(f"{key}.quotient_bits", f"{q:g} is more than a 64-bit quotient holds")
    try:  # Instructions checks mispredicted, taken <= branches <= total where it is built
        return Instructions(**counts)
    except WorkloadError as exc:
        raise ctx.error(f"{key}.{exc.key.split('.', 1)[1]}", exc.message) from None


def _read_waits(ctx: Reader, waits, key) -> tuple:
    """``mispredicted_waits``: a table of counts by level, or a list of groups (level, count
    and optionally the working set their loads range over)."""
    if not isinstance(waits, list):
        ctx.table(waits, key, WAIT_LEVELS)
        return tuple((lv, read_count(ctx, waits[lv], f"{key}.{lv}"), None)
                     for lv in WAIT_LEVELS if lv in waits)
    groups = []
    for i, g in enumerate(waits):
        k = f"{key}[{i}]"
        ctx.table(g, k, ("level", "count", "working_set"), ("level", "count"))
        if g["level"] not in WAIT_LEVELS:
            raise ctx.error(f"{k}.level", f"{g['level']!r} is not a level below L1 (one of "
                                          f"{', '.join(WAIT_LEVELS)})")
        ws = (ctx.quantity(g["working_set"], "size", f"{k}.working_set", positive=True)
              if "working_set" in g else None)
        groups.append((g["level"], read_count(ctx, g["count"], f"{k}.count"), ws))
    return tuple(groups)


def read_dependencies(ctx: Reader, d, key) -> Dependencies:
    ctx.table(d, key, DEPENDENCY_KINDS + RESTART_KEYS, ())
    if "exits_mispredicted" in d and "exits" not in d:
        raise ctx.error(f"{key}.exits_mispredicted", "needs exits (the entries it is a part of)")
    counts = {k: read_count(ctx, d[k], f"{key}.{k}") for k in DEPENDENCY_KINDS + RESTART_KEYS if k in d}
    try:  # Dependencies checks exits_mispredicted <= exits where it is built
        return Dependencies(**counts)
    except WorkloadError as exc:
        raise ctx.error(f"{key}.{exc.key.split('.', 1)[1]}", exc.message) from None
