"""The kernels of benchmarks/trace_examples as ``trace_validation.py --part kernels`` runs them:
the footprint of one call for N, and each kernel's phase counted by hand from its C loop (the
workload a user would write, in the workload vocabulary), to set beside the traced one."""

from __future__ import annotations

# kernels: footprint [B] of one call for N (and the matrix side for the 2-D ones), extra
# arguments; built -O3 -march=x86-64-v3 (Valgrind decodes no AVX-512), OpenMP where marked.
KERNELS = {
    "triad": (lambda n: 24 * n, ()), "copy": (lambda n: 16 * n, ()),
    "dot": (lambda n: 16 * n, ()), "sum": (lambda n: 8 * n, ()),
    "horner": (lambda n: 16 * n, ()), "gather": (lambda n: 16 * n, ()),
    "chase": (lambda n: 8 * n, ()), "hist": (lambda n: 4 * n, (4096,)),
    "spmv": (lambda n: 12 * 8 * n + 16 * n, (8,)), "ompsum": (lambda n: 8 * n, ()),
    "matvec": (lambda m: 8 * m * m, ()), "transpose": (lambda m: 16 * m * m, ()),
    "stencil": (lambda m: 16 * m * m, ()),
    # keys (4 B each) and the 4093 bins of 4 B; x and the half of y a call writes; x and y
    "modhash": (lambda n: 4 * n + 4 * 4093, (4093,)), "filter": (lambda n: 12 * n, ()),
    "prefix": (lambda n: 16 * n, ()),
}
SQUARE = {"matvec", "transpose", "stencil"}
OPENMP = {"ompsum"}
#: Elements (or grid points) visited per case, all calls: long enough to time natively,
#: short enough to trace in seconds.
VISITS = 16e6


def _size_for(name: str, footprint: float) -> int:
    f = KERNELS[name][0]
    lo, hi = 8, 1 << 34
    while hi - lo > 1:  # the largest N whose footprint fits
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if f(mid) <= footprint else (lo, mid)
    return lo


def _mem(nbytes, ws, pattern="stride1", op="load", **kw):
    return {"bytes": f"{nbytes:.0f} B", "working_set": f"{ws:.0f} B", "pattern": pattern,
            "op": op, **kw}


def _modhash(n, extra, ph):
    """h[(key[i] * c) % m] += 1, m known at run time: the key stream, a read-modify-write of a
    4 B bin at a hashed place; per key a load, a multiply, the division, the bin's update, the
    index's add, compare and loop branch (8 instructions, one a divide)."""
    ph["instructions"] = {"total": 8 * n, "branches": n, "divisions": n}
    return [_mem(4 * n, 4 * extra[0], "gather", "update")], {}


def _filter(n, extra, ph):
    """if (x[i] > t) y[k++] = x[i] over uniform x, t = 0.5: every x loaded, half stored; two
    branches per element (the test and the loop), the test mispredicted half the time (its
    outcome is random); per element a load, compare, branch, the loop's add, compare and
    branch, and for half a store and k's add (7 instructions on average).  Every call filters
    the same x, so the outcomes repeat every call's 2 n branches."""
    ph["instructions"] = {"total": 7 * n, "branches": 2 * n, "mispredicted": n / 2,
                          "branch_period": 2 * n}
    return [_mem(8 * n, 12 * n), _mem(4 * n, 12 * n, op="store")], {}


def _prefix(n, extra, ph):
    """s += x[i]; y[i] = s: one chain of n dependent adds through the whole array."""
    return ([_mem(8 * n, 16 * n), _mem(8 * n, 16 * n, op="store")],
            {"add_multiply": n, "chained_adds": n, "chains": 1})


#: The kernels whose hand count is a function of its own: (N, extra args, phase) ->
#: (memory entries, flops), the phase's other keys set in place.
COUNTED = {"modhash": _modhash, "filter": _filter, "prefix": _prefix}


def hand_phase(name: str, n: int, reps: int, extra=()) -> dict:  # one branch per kernel: a table
    """The kernel's phase counted from its C loop by hand, as a user would write it."""
    mem, fl, ph = [], {}, {"name": f"{name}-hand", "repeat": reps}
    if name in ("triad", "copy", "horner"):
        loads = {"triad": 16, "copy": 8, "horner": 8}[name] * n
        ws = {"triad": 24, "copy": 16, "horner": 16}[name] * n
        mem = [_mem(loads, ws, streams=2) if name == "triad" else _mem(loads, ws),
               _mem(8 * n, ws, op="store")]
        fl = {"triad": {"add_multiply": 2 * n}, "copy": {},
              "horner": {"fma": 16 * n, "dependency_depth": 8}}[name]
    elif name in ("sum", "ompsum", "dot"):
        k = 2 if name == "dot" else 1
        mem = [_mem(8 * k * n, 8 * k * n, **({"streams": 2} if k == 2 else {}))]
        fl = {"add_multiply": k * n, "chained_adds": n, "chains": 4 if name == "dot" else 1}
        if name == "ompsum":  # one parallel region per call: a fork and a join of 2 threads
            ph.update(threads=2, parallel_regions=1)
    elif name == "gather":  # idx is inside MAPS gather's figure
        mem = [_mem(8 * n, 8 * n, "gather")]
        fl = {"add_multiply": n, "chained_adds": n, "chains": 1}
    elif name == "chase":
        mem = [_mem(8 * n, 8 * n, "random")]
    elif name == "hist":
        mem = [_mem(8 * n, 8 * extra[0], "gather", "update")]
    elif name == "spmv":
        k = extra[0]
        mem = [_mem(8 * n * k, 8 * n, "gather"), _mem(8 * n * k + 4 * n, 12 * n * k),
               _mem(8 * n, 8 * n, op="store")]
        fl = {"add_multiply": 2 * n * k, "chained_adds": n * k, "chains": 1, "chain_length": k,
              "chain_overlap": False}
        ph["inner_trips"] = k
    elif name == "matvec":
        mem = [_mem(8 * n * n, 8 * n * n), _mem(8 * n * n, 8 * n), _mem(8 * n, 8 * n, op="store")]
        fl = {"add_multiply": 2 * n * n, "chained_adds": n * n, "chains": 1, "chain_length": n}
    elif name == "transpose":
        mem = [_mem(8 * n * n, 16 * n * n),
               {"ops": n * n, "bytes_per_op": "8 B", "stride": f"{8 * n} B",
                "working_set": f"{8 * n * n} B", "op": "store"}]
    elif name == "stencil":
        pts = (n - 2) ** 2
        ph["loop"] = {"extents": [n, n], "sweeps": pts / (n * n),
                      "loads": {"a": [[0, -1], [0, 1], [-1, 0], [1, 0], [0, 0]]},
                      "stores": {"b": [[0, 0]]}}
        fl = {"add_multiply": 5 * pts}
    elif name in COUNTED:
        mem, fl = COUNTED[name](n, extra, ph)
    if mem:
        ph["memory"] = mem
    if fl:
        ph["flops"] = fl
    return ph
