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
    if mem:
        ph["memory"] = mem
    if fl:
        ph["flops"] = fl
    return ph
