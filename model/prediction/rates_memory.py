"""Memory pricing: the bandwidth a memory entry moves at, read off a signature's MAPS curves.

- Stride-1 traffic: bytes / BW(op, pattern, working set), BW read off the MAPS curve (Snavely et
  al., "A Framework for Performance Modeling and Prediction", SC2002), interpolated linearly in
  log(working set) and log(bandwidth) between measured points; aggregate bandwidth on several
  threads from the MAPS points at that thread count (linear between measured counts).
- Hit rates: each level's share at half that level's cache size (capped by the entry's
  footprint); memory at the largest measured working set.
- Stores beside loads: the fraction hidden behind the loads is measured, not assumed: MAPS
  ``update`` (in place) and ``copy`` (to another array) against load and store at the same
  working set give phi = (t_l + t_s - t_pair) / min(t_l, t_s) (:func:`in_place_overlap`).
- Gathers are read against the size of the array they range over: MAPS gather's working set
  holds its index array and its target in equal parts (:data:`GATHER_TARGET_SHARE`); a random
  read-modify-write (``op = "update"``) reads MAPS gather update the same way.  A gather whose
  values are stored (``op = "copy"``, y[i] = x[idx[i]], 8 B gathered + 8 B stored per
  element) reads MAPS gather copy, whose working set holds idx, x and y in equal parts: a
  store waiting for a missing load's value keeps fewer misses in flight than a gather whose
  values are summed, so the pair is not a gather load plus a store stream
  (:meth:`MemoryRates.gather_copy_bandwidth`).  A scatter into buckets (``pattern =
  "scatter"``) reads MAPS scatter the same way, per byte (per line its stores fill).
- Access shapes (:meth:`MemoryRates.entry_bandwidth`): several concurrent streams and strided
  walks are read off MAPS's stream and stride sweeps at the entry's stream count or stride
  (interpolated in log count / log stride between measured ones, the plain curve standing for
  one stream and for the contiguous stride); a stride or count outside what was measured is
  refused, or with ``extrapolate`` read at the nearest measured one and listed.
"""

from __future__ import annotations

import math

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.workload_data import LoopNest, MemoryOps
from pinchpoint.prediction.formulas import (PEAK_BYTES_PER_FLOP, bandwidth_from_peak,
                                            in_place_overlap, log_interp)
from pinchpoint.prediction.layer_conditions import loop_traffic
from pinchpoint.prediction.rates_base import REL_TOL, RatesBase, curve_kernel, fmt_size

#: Share of a MAPS gather point's working set that its random accesses range over: the
#: target array x, beside an index array of the same length (kernels/maps.c); gather copy
#: (y[i] = x[idx[i]]) holds a third array, the streamed y.
GATHER_TARGET_SHARE = 0.5
GATHER_TARGET_SHARES = {"copy": 1.0 / 3.0}
#: PEAK loop that prices each memory op when the signature has no MAPS.
PEAK_FOR_OP = {"load": "dot", "store": "daxpy", "copy": "daxpy", "triad": "daxpy"}
#: Bytes MAPS counts per access of its stride and stream sweeps (one 8-byte element).
MAPS_ACCESS_BYTES = 8.0


class MemoryRates(RatesBase):
    """Memory bandwidths of a signature (mixed into SignatureRates)."""

    # -- memory
    def maps_thread_counts(self, op: str, pattern: str) -> list[int]:
        """Thread counts at which the signature measured the memory curve of ``op``/``pattern``."""
        kernel = curve_kernel(self.signature, op, pattern)
        if kernel is None:
            return []
        return sorted({int(p.params.get("threads", 1))
                       for p in self.signature.points(kernel, op=op, pattern=pattern)})

    # long: one branch per fallback from the measured curve (thread count, pattern, op), each saying which was used
    def memory_curve(self, op: str, pattern: str, key: str,
                     threads: int = 1) -> tuple[list[float], list[float], str]:
        """(working sets [B], bandwidths [B/s], description) of the curve pricing ``op`` on
        ``threads`` threads (MAPS points measured at exactly that thread count)."""
        ck = ("mem", op, pattern, threads)
        if ck in self._cache:
            return self._cache[ck]
        sig = self.signature
        by_ws: dict[float, float]
        # likwid-bench points (``import likwid``, ``import kerncraft --signature``) have MAPS's
        # shape: op, pattern, threads, working_set_bytes -> counted B/s.
        source = curve_kernel(self.signature, op, pattern)
        if source:
            pts = [p for p in sig.points(source, op=op, pattern=pattern)
                   if "working_set_bytes" in p.params and not p.shaped
                   and int(p.params.get("threads", 1)) == threads]
            pts = self._narrow(pts, {"threads": threads})
            if not pts:
                at = f" on {threads} threads" if threads != 1 else ""
                raise WorkloadError(f"needs MAPS {op} {pattern} points{at}, but signature "
                                    f"{sig.name!r} measured none (run maps with that op and "
                                    f"pattern)", key=key)
            # MAPS gather's working set holds its index array and its target x in equal parts
            # (scatter's its bucket sequence and x); the random accesses range over x alone,
            # and a workload's entry states the footprint its accesses range over (its x):
            # the curve is read against x's size.
            share = (GATHER_TARGET_SHARES.get(op, GATHER_TARGET_SHARE)
                     if pattern in ("gather", "scatter") and source == "maps" else 1.0)
            by_ws: dict[float, float] = {}
            for p in pts:
                by_ws[share * float(p["working_set_bytes"])] = self._value(p.result, "rate")
            desc = (f"MAPS {op} {pattern}" if source == "maps"
                    else f"likwid-bench {op} {pattern}")
            desc += f" x{threads} threads" if threads != 1 else ""
            if source != "maps":
                self._note(f"memory {op}: no MAPS in signature {sig.name!r}; priced with its "
                           f"{desc} points")
        elif pattern == "stride1" and threads == 1 and "peak" in sig.kernels and \
                sig.points("peak", op=PEAK_FOR_OP[op]):
            loop = PEAK_FOR_OP[op]
            by_ws = {}
            for p in sig.points("peak", op=loop):
                by_ws[16.0 * float(p["loop_length"])] = bandwidth_from_peak(
                    self._value(p.result, "rate"), loop)
            desc = (f"PEAK {loop} x {PEAK_BYTES_PER_FLOP[loop]:g} B/flop "
                    f"({int(PEAK_BYTES_PER_FLOP[loop] * 2)} B per 2 flop)")
            self._note(f"memory {op}: no MAPS in signature {sig.name!r}; bandwidth derived from "
                       f"{desc}")
        else:
            self._need("maps", f"{pattern} memory {op}s" +
                       (f" on {threads} threads" if threads != 1 else "") +
                       f" (or likwid-bench {op} {pattern} points)", key)
            raise WorkloadError(f"needs MAPS {op} {pattern} points; signature {sig.name!r} has "
                                f"none", key=key)  # pragma: no cover
        xs = sorted(by_ws)
        ys = [by_ws[x] for x in xs]
        if any(y <= 0 for y in ys):
            raise SignatureError(f"{desc}: a bandwidth is zero", key="kernels.maps")
        self._cache[ck] = (xs, ys, desc)
        return self._cache[ck]

    def _curve_bandwidth(self, op, pattern, working_set, key, threads) -> float:
        xs, ys, _ = self.memory_curve(op, pattern, key, threads)
        if working_set is None:
            return ys[-1]
        ws = self._range(working_set, xs[0], xs[-1], "working set", key)
        return float(log_interp(ws, xs, ys))

    def memory_bandwidth(self, op: str, pattern: str, working_set: float | None, key: str,
                         threads: int = 1) -> float:
        """Aggregate bandwidth [B/s] for ``op``/``pattern`` at ``working_set`` [B] (None: the
        largest measured working set, the DRAM plateau) on ``threads`` threads.

        A thread count the signature did not measure is interpolated linearly between the
        nearest measured counts below and above (aggregate bandwidth grows with threads until
        memory saturates, then stays flat); beyond the measured counts it is refused, or with
        ``extrapolate`` read at the nearest measured count and recorded."""
        counts = self.maps_thread_counts(op, pattern)
        if threads > 1 and len(counts) > 1:
            self._note_saturation(op, pattern, counts, key)
        if threads == 1 or threads in counts or not counts:
            return self._curve_bandwidth(op, pattern, working_set, key, threads)
        t = self._range(float(threads), counts[0], counts[-1], "thread count", key)
        if t in counts:
            return self._curve_bandwidth(op, pattern, working_set, key, int(t))
        lo = max(c for c in counts if c < t)
        hi = min(c for c in counts if c > t)
        b_lo = self._curve_bandwidth(op, pattern, working_set, key, lo)
        b_hi = self._curve_bandwidth(op, pattern, working_set, key, hi)
        self._note(f"{key}: {threads} threads interpolated between MAPS at {lo} and {hi} threads")
        return b_lo + (b_hi - b_lo) * (t - lo) / (hi - lo)

    def _note_saturation(self, op: str, pattern: str, counts: list[int], key: str) -> None:
        """Say where memory saturates: the fewest measured threads that reach 90 % of the
        best aggregate DRAM-plateau bandwidth (a server core alone cannot saturate memory)."""
        plateau = {c: self._curve_bandwidth(op, pattern, None, key, c) for c in counts}
        best = max(plateau.values())
        at = min(c for c, bw in plateau.items() if bw >= 0.9 * best)
        self._note(f"MAPS {op} {pattern} at the largest working set: {plateau[counts[0]] / 1e9:.3g}"
                   f" GB/s on {counts[0]} thread(s), {best / 1e9:.3g} GB/s at best; memory "
                   f"saturates (90 %) at {at} threads")

    def in_place_overlap(self, working_set: float | None, key: str, threads: int = 1) -> float:
        """Fraction [0, 1] of the shorter of (loads, in-place stores) that hides behind the
        other at ``working_set`` [B]: phi = (t_l + t_s - t_u) / min(t_l, t_s) from MAPS update,
        load and store (module docstring).  1 (with a note) without MAPS update points."""
        if not [p for p in self.signature.points("maps", op="update")]:
            self._note(f"in-place stores: signature {self.signature.name!r} has no MAPS update "
                       f"sweep; assumed to overlap the loads fully (measure it with pinchpoint "
                       f"measure)")
            return 1.0
        return self._paired_overlap("update", working_set, key, threads, cheaper_stores=True)

    def store_overlap(self, working_set: float | None, key: str, threads: int = 1) -> float:
        """Fraction [0, 1] of the shorter of (loads, stride-1 stores to other lines) that hides
        behind the other at ``working_set`` [B]: phi = (t_l + t_s - t_c) / min(t_l, t_s) from
        MAPS copy (8 B loaded and 8 B stored per element, to another array), load and store.
        0 (serial, plain PMaC; with a note) where the signature has no MAPS copy at
        ``threads`` threads (quick mode sweeps only load and store on several threads)."""
        if not self.signature.points("maps", op="copy", pattern="stride1", threads=threads):
            self._note(f"stores: signature {self.signature.name!r} has no MAPS copy sweep on "
                       f"{threads} thread(s); stores are priced after the loads (plain PMaC)")
            return 0.0
        return self._paired_overlap("copy", working_set, key, threads)

    def _paired_overlap(self, pair: str, working_set: float | None, key: str, threads: int, *,
                        cheaper_stores: bool = False) -> float:
        """:func:`in_place_overlap` of MAPS ``pair`` (8 B loaded and 8 B stored per element)
        against MAPS load and store at ``working_set`` [B]."""
        t_pair = 16.0 / self.memory_bandwidth(pair, "stride1", working_set, key, threads)
        t_l = 8.0 / self.memory_bandwidth("load", "stride1", working_set, key, threads)
        t_s = 8.0 / self.memory_bandwidth("store", "stride1", working_set, key, threads)
        return in_place_overlap(t_pair, t_l, t_s, cheaper_stores=cheaper_stores)

    def dram_copy_bandwidth(self, key: str) -> float:
        """Copy bandwidth [B/s, read + written bytes] at the DRAM plateau, for payload passes
        through memory: MAPS copy at its largest working set, else STREAM copy, else PEAK."""
        sig = self.signature
        if "maps" not in sig.kernels and "stream" in sig.kernels and sig.points("stream", op="copy"):
            self._note(f"memory passes: STREAM copy of signature {sig.name!r}")
            return max(self._value(p.result, "rate") for p in sig.points("stream", op="copy"))
        return self.memory_bandwidth("copy", "stride1", None, key)

    def level_working_set(self, level: str, key: str) -> float | None:
        """Working set [B] that represents a cache level: half its size (None for memory)."""
        if level == "memory":
            return None
        n = int(level[1:])
        for c in self.signature.host.get("caches") or []:
            if c.get("level") == n and str(c.get("type", "")).lower() in ("data", "unified"):
                return float(c["size_bytes"]) / 2
        raise WorkloadError(f"hit rate for {level}, but signature {self.signature.name!r} does not "
                            f"list an {level} data cache in host.caches", key=key)

    def hit_working_set(self, level: str, m: MemoryOps, key: str) -> float | None:
        """Working set [B] at which the MAPS curve prices the bytes ``level`` serves for ``m``:
        half the level's size, capped by ``m``'s footprint when it has one (a loop nest's
        arrays).  A footprint that fits a level is swept at the footprint's speed, not at the
        level's: a 24 MiB grid on a Xeon whose nominal L3 is 260 MiB streams at 26 GB/s,
        while the curve at 130 MiB reads 10 GB/s (beyond the near L3 slice)."""
        ws = self.level_working_set(level, key)
        if ws is not None and m.working_set_bytes:
            ws = min(ws, m.working_set_bytes)
        return ws

    def chase_latency(self, level: str, key: str, footprint: float | None = None,
                      within: bool = False) -> tuple[float, str] | None:
        """(latency [s], what) of one dependent load ``level`` serves, beyond one L1 serves:
        MAPS random (a chase, each load's address the one before's value) at a working set
        inside the level, the geometric middle of it and the level above (the middle of the
        level's range on the log-size curve), or the loads' ``footprint`` [B] where that is
        smaller (but not below the level above: a binary search over 4 MiB waits as long as
        a chase over 4 MiB, page walks included, not over the middle of a nominal 480 MiB
        L3), memory at the largest measured one (or at the footprint, if that is past the
        last cache and inside the sweep), less the figure at half L1.  ``within``: the
        footprint is read wherever it lies inside the level (a group of waits a trace placed
        in the near or far half of a large last level).  None, listed,
        where the signature has no MAPS random loads and ``extrapolate`` allows it (refused
        otherwise)."""
        if 1 not in self.maps_thread_counts("load", "random"):
            self._extrapolated(key, f"mispredicted branches waiting for loads need MAPS random "
                                    f"load points, which signature {self.signature.name!r} did "
                                    f"not measure", "no wait for those loads")
            return None
        sizes = dict(self.data_caches())
        if level != "memory" and int(level[1:]) not in sizes or 1 not in sizes:
            raise WorkloadError(f"{level} named, but signature {self.signature.name!r} does not "
                                f"list it (and an L1) as a data cache in host.caches", key=key)
        ws = None
        if level != "memory":
            n = int(level[1:])
            above = sizes.get(n - 1, sizes[n] / 8)
            ws = math.sqrt(above * sizes[n])
            if footprint is not None:
                ws = min(sizes[n] if within else ws, max(footprint, above))
        elif footprint is not None:  # past the last cache, up to the largest measured
            xs = self.memory_curve("load", "random", key, 1)[0]
            ws = min(max(footprint, max(sizes.values())), xs[-1])
        per_load = MAPS_ACCESS_BYTES / self.memory_bandwidth("load", "random", ws, key)
        in_l1 = MAPS_ACCESS_BYTES / self.memory_bandwidth("load", "random", sizes[1] / 2, key)
        where = "its largest working set" if ws is None else fmt_size(ws)
        return (max(0.0, per_load - in_l1),
                f"{level}: MAPS random at {where}, {per_load * 1e9:.3g} ns less "
                f"{in_l1 * 1e9:.3g} ns in L1")

    def data_caches(self) -> list[tuple[int, float]]:
        """(level, size [B]) of the signature host's data and unified caches."""
        out = {}
        for c in self.signature.host.get("caches") or []:
            if str(c.get("type", "")).lower() in ("data", "unified") and c.get("size_bytes"):
                out.setdefault(int(c["level"]), float(c["size_bytes"]))
        return sorted(out.items())

    def loop_memory(self, loop: LoopNest, key: str) -> list[MemoryOps]:
        """The memory entries of a loop nest: per array, its bytes and the cache level
        serving each fraction, derived for this signature's caches (layer conditions)."""
        caches = self.data_caches()
        if not caches:
            raise WorkloadError(f"a loop nest needs the cache sizes of the machine, but "
                                f"signature {self.signature.name!r} lists no data caches in "
                                f"host.caches (state the traffic with hit_rates instead)",
                                key=key)
        out = []
        # every array spans the grid: the loop's footprint, what MAPS calls the working set
        footprint = len({name for name, _ in loop.loads + loop.stores}) * loop.points * loop.element_bytes
        for a in loop_traffic(dict(loop.loads), dict(loop.stores), loop.extents,
                              loop.element_bytes, caches):
            out.append(MemoryOps(a.bytes_per_point * loop.points * loop.sweeps, "stride1", a.op,
                                 footprint, a.hit_rates, a.in_place))
            self._note(f"{key}: {a.op} {a.array}: " + ", ".join(
                f"{lvl} {f:.0%}" for lvl, f in a.hit_rates) + " (layer conditions)")
        return out

    def gather_copy_bandwidth(self, working_set, key: str, threads: int = 1) -> float:
        """Bandwidth [B/s, 8 B gathered + 8 B stored per element] of y[i] = x[idx[i]] with x
        of ``working_set`` [B]: MAPS gather copy.  A signature without it (measured before
        the sweep had the op) refuses, or extrapolating prices the pair as what it measured,
        a gather load of x plus a store stream of y, one after the other:
        16 / (8 / BW_gather_load + 8 / BW_store)."""
        if "maps" not in self.signature.kernels or \
                self.signature.points("maps", op="copy", pattern="gather", threads=threads):
            return self.memory_bandwidth("copy", "gather", working_set, key, threads)
        self._extrapolated(key, f"a gather whose values are stored needs MAPS gather copy, "
                                f"which signature {self.signature.name!r} did not measure "
                                f"(pinchpoint measure runs it)",
                           "MAPS gather load plus a stride-1 store stream")
        t_load = 8.0 / self.memory_bandwidth("load", "gather", working_set, key, threads)
        t_store = 8.0 / self.memory_bandwidth("store", "stride1", working_set, key, threads)
        return 16.0 / (t_load + t_store)

    # -- access shapes: streams and strides ---------------------------------------------------

    def _shape_curves(self, op: str, param: str) -> dict[float, tuple[list, list]]:
        """{shape value: (working sets, bandwidths)} of MAPS's ``param`` sweep of ``op``
        (one thread)."""
        ck = ("shape", op, param)
        if ck in self._cache:
            return self._cache[ck]
        out: dict[float, dict[float, float]] = {}
        if "maps" in self.signature.kernels:
            for p in self.signature.points("maps", op=op, pattern="stride1", threads=1):
                if param in p.params and "working_set_bytes" in p.params:
                    out.setdefault(float(p[param]), {})[float(p["working_set_bytes"])] = \
                        self._value(p.result, "rate")
        curves = {v: (sorted(c), [c[x] for x in sorted(c)]) for v, c in out.items()}
        self._cache[ck] = curves
        return curves

    def _read_shape(self, op: str, param: str, value: float, working_set, key: str,
                    what: str, within: float | None = None) -> float:
        """MAPS bandwidth [B/s, 8 B per access] of ``op`` at shape ``param`` = ``value``,
        interpolated in log(value) between the measured values; the plain curve stands for
        value 1 (streams) or 8 B (stride).  ``within`` [B]: each curve read at most at its
        largest working set inside that cache size (a share a level serves is read where that
        level served the sweep, not interpolated towards a point beyond it).
        A shape sweep samples fewer working sets than the plain curve (quick mode: every
        fourth octave), so it is read as its ratio to the plain curve at its own working sets,
        times the plain curve at the entry's: a cliff between two of its points that the plain
        curve resolves is not interpolated across (on the Intel Xeon VM of benchmarks/results
        two streams read at 8 MiB between the sweep's 1 MiB in L2 and 16 MiB in L3 came out at
        42 GB/s, where one stream and the sweep at 16 MiB move 28)."""
        curves = dict(self._shape_curves(op, param))
        if not curves:
            self._extrapolated(key, f"{what} needs MAPS's {param} sweep of {op}, which signature "
                                    f"{self.signature.name!r} did not measure (pinchpoint "
                                    f"measure runs it)", "the plain stride-1 curve")
            return self._curve_bandwidth(op, "stride1", working_set, key, 1)
        base = 1.0 if param == "streams" else MAPS_ACCESS_BYTES
        plain = self.memory_curve(op, "stride1", key, 1)
        curves.setdefault(base, (plain[0], plain[1]))
        vs = sorted(curves)
        v = self._range(value, vs[0], vs[-1], what.split(" ")[0], key)

        def at(val):
            xs, ys = curves[val]
            ws = xs[-1] if working_set is None else self._range(working_set, xs[0], xs[-1],
                                                                 "working set", key)
            if within is not None:
                ws = min(ws, max((x for x in xs if x <= within * (1 + REL_TOL)), default=xs[0]))
            if val == base:
                return float(log_interp(ws, xs, ys))
            ratio = [y / float(log_interp(x, plain[0], plain[1])) for x, y in zip(xs, ys)]
            return float(log_interp(ws, xs, ratio) * log_interp(ws, plain[0], plain[1]))

        lo = max(x for x in vs if x <= v * (1 + REL_TOL))
        hi = min(x for x in vs if x >= v * (1 - REL_TOL))
        if lo == hi:
            return at(lo)
        w = math.log(v / lo) / math.log(hi / lo)
        return math.exp((1 - w) * math.log(at(lo)) + w * math.log(at(hi)))

    def l1_line(self) -> float | None:
        """Line size [B] of the signature host's L1 data cache (None: not listed)."""
        for c in self.signature.host.get("caches") or []:
            if c.get("level") == 1 and str(c.get("type", "")).lower() in ("data", "unified"):
                return float(c["line_bytes"]) if c.get("line_bytes") else None
        return None

    def _strided_l1(self, m: MemoryOps, key: str) -> float:
        """MAPS stride-sweep bandwidth [B/s, 8 B per access] of the accesses of strided entry
        ``m`` that hit L1.  A hit takes one of the L1's access slots whatever distance separates
        the lines it touches (the cache is read a line at a time, so an access within one line
        costs the same wherever that line lies: Hennessy and Patterson, "Computer
        Architecture: A Quantitative Approach", 6th ed., 2017, section 2.3); the stride sets
        which level serves an access, and the hit rates say that.  So the sweep is read at the
        stride of one line (every access a new line) or the entry's own if shorter, and at its
        largest working set inside L1: its points beyond L1 hold misses that the hit rates
        count apart, and at a longer stride a point of L1 size walks a few elements per pass,
        timing its loop control rather than its accesses."""
        line = self.l1_line()
        caches = self.data_caches()
        stride = min(m.stride_bytes, line) if line else m.stride_bytes
        l1 = caches[0][1] if caches and caches[0][0] == 1 else None
        bw = self._read_shape(m.op, "stride_bytes", stride, l1 / 2 if l1 else None, key,
                              f"stride {fmt_size(stride)}", within=l1)
        self._note(f"{key}: L1 hits of {m.op}s at a {fmt_size(m.stride_bytes)} stride: "
                   f"{bw / 1e9:.3g} GB/s in 8-byte accesses (MAPS stride sweep at "
                   f"{fmt_size(stride)} inside L1)")
        return bw

    def entry_bandwidth(self, m: MemoryOps, working_set, key: str, threads: int = 1,
                        level: str | None = None) -> float:
        """Bandwidth [B/s of the entry's own bytes] of memory entry ``m`` at ``working_set``:
        the plain curve, or for several streams or a stride the MAPS stream or stride sweep
        (the share of a strided entry that ``level`` L1 serves: :meth:`_strided_l1`).
        The sweeps count 8 B per access; an access of another size takes the same time (one
        line touched either way), so the entry's bytes move at BW x bytes_per_op / 8.  The
        sweeps run on one thread: on more, they scale with the plain curve's thread gain."""
        if m.pattern == "gather" and m.op == "copy":
            return self.gather_copy_bandwidth(working_set, key, threads)
        if m.pattern != "stride1" or (m.streams <= 1 and not m.strided):
            return self.memory_bandwidth(m.op, m.pattern, working_set, key, threads)
        if m.op not in ("load", "store"):
            what = "streams" if m.streams > 1 else "a stride"
            self._extrapolated(key, f"MAPS measures {what} for loads and stores, not {m.op}s",
                               "the plain stride-1 curve")
            return self.memory_bandwidth(m.op, m.pattern, working_set, key, threads)
        if m.strided and level == "L1" and self._shape_curves(m.op, "stride_bytes"):
            bw = self._strided_l1(m, key) * m.bytes_per_op / MAPS_ACCESS_BYTES
        elif m.strided:
            bw = self._read_shape(m.op, "stride_bytes", m.stride_bytes, working_set, key,
                                  f"stride {fmt_size(m.stride_bytes)}")
            bw *= m.bytes_per_op / MAPS_ACCESS_BYTES
            self._note(f"{key}: {m.op} at a {fmt_size(m.stride_bytes)} stride: "
                       f"{bw / 1e9:.3g} GB/s (MAPS stride sweep)")
        else:
            bw = self._read_shape(m.op, "streams", float(m.streams), working_set, key,
                                  f"streams {m.streams}")
            self._note(f"{key}: {m.op} from {m.streams} streams: {bw / 1e9:.3g} GB/s "
                       f"(MAPS stream sweep)")
        if threads > 1:
            gain = (self.memory_bandwidth(m.op, "stride1", working_set, key, threads)
                    / self.memory_bandwidth(m.op, "stride1", working_set, key, 1))
            self._note(f"{key}: the one-thread shape sweep scaled by the plain curve's "
                       f"{threads}-thread gain {gain:.2f}")
            bw *= gain
        return bw
