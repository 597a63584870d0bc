"""Compute pricing: flop rates, dependency chains and short loops, read off PEAK and MAPS.

- Flops at PEAK's rates (Chen and Ebbers, "PMaC Benchmarking on Three POWER4 Platforms", IBM
  Redpaper, Table 5): division -> PEAK division, add/multiply and FMA -> PEAK poly5 (Horner
  steps are multiply-add pairs), at the workload's loop length (log interpolation) or the best.
- Reductions: flops accumulating into ``chains`` partial sums wait for each other; one chain's
  rate is 1 / latency (PEAK add_chain, fma_chain); short chains back to back overlap out of
  order (PEAK add_chains at the chain length).
- Dependency depth: elements whose multiply-adds form a chain of N dependent steps (Horner's
  rule of degree N) run at PEAK horner's rate at depth N, measured at depths 1 .. 32; fused
  multiply-adds (FMAs: one instruction per step, a shorter latency than a multiply then an
  add) at PEAK horner_fma's, where measured.
- A chain fed by a stream: a loop whose one chain of adds is fed by streamed loads fills the
  out-of-order window with adds that wait, so few of the loads ahead of it are in flight;
  beyond the caches such a loop adds a share phi of the shorter of its chain's and its
  stream's time to the longer.  phi = (t_sum - max(t_chain, t_load)) / min(t_chain, t_load)
  per element, in [0, 1], from PEAK sum_chain (one add per 8 B) and sum_chain2 (one per
  16 B) at each loop length, against the same loop over its shortest length (L1 hits: the
  chain alone) and PEAK sum_lanes (16 partial sums: the stream alone) at the same length,
  measured just before.  On the Intel Xeon VM phi was 0 up to 16 MiB and 0.1-1 from 64 MiB
  on (a sum over 960 MiB: 0.86 ns per element, the chain alone 0.49, the stream alone 0.59).
- Short inner loops: work inside loops of T trips runs s(T) = t(T) / t_long - 1 slower than in
  long loops, from MAPS's trips sweep (one inner loop per row of T elements; t the time per
  element at T trips, t_long the fastest over the measured counts): the loop's control,
  vector prologue and scalar remainder grow with the body, so the slowdown is a fraction of
  the in-core time, not a constant per loop.
"""

from __future__ import annotations

import math

import numpy as np

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.prediction.formulas import log_interp
from pinchpoint.prediction.rates_base import RatesBase

#: PEAK loop that prices each flop kind.
PEAK_FOR_FLOP = {"division": "division", "add_multiply": "poly5", "fma": "poly5"}
#: PEAK loop that measures the latency of each kind of chained flop (one dependency chain).
PEAK_FOR_CHAIN = {"chained_adds": "add_chain", "chained_fma": "fma_chain"}
#: Instructions per add of a chain in a loop of one add per iteration, as written before a
#: compiler unrolls or vectorises it: the add, the element's load, the index step and the
#: compare-and-branch.  Short chains of a phase that states no instructions are read at it.
ROLLED_INSTRUCTIONS_PER_ADD = 4.0


class ComputeRates(RatesBase):
    """Flop rates, chain latencies and loop overheads of a signature (mixed into SignatureRates)."""

    # -- floating point
    def flop_rate(self, kind: str, loop_length: float | None, key: str) -> float:
        loop = PEAK_FOR_FLOP[kind]
        self._need("peak", f"{kind} flops", key)
        pts = [p for p in self.signature.points("peak", op=loop) if "loop_length" in p.params]
        if not pts:
            raise WorkloadError(f"needs PEAK {loop} points for {kind} flops; signature "
                                f"{self.signature.name!r} has none", key=key)
        by_len = {float(p["loop_length"]): self._value(p.result, "rate") for p in pts}
        xs = sorted(by_len)
        ys = [by_len[x] for x in xs]
        if loop_length is None:
            return max(ys)
        ll = self._range(loop_length, xs[0], xs[-1], "loop length", key)
        return float(log_interp(ll, xs, ys))

    def chain_rate(self, chained: str, key: str) -> float | None:
        """Flop rate [flop/s] of one dependency chain of ``chained`` flops: 1 / latency (PEAK
        add_chain or fma_chain, the best over its loop lengths, which do not matter to it).
        None, with a note, when the signature lacks the loop (the published PEAK tables do):
        the latency bound is then left out rather than the prediction refused."""
        loop = PEAK_FOR_CHAIN[chained]
        pts = self.signature.points("peak", op=loop) if "peak" in self.signature.kernels else []
        if not pts:
            self._note(f"{key}: signature {self.signature.name!r} has no PEAK {loop} (the latency "
                       f"of one dependency chain), so the latency bound of {chained} is left out "
                       f"(pinchpoint measure --only peak measures it)")
            return None
        rate = max(self._value(p.result, "rate") for p in pts)
        if rate <= 0:
            raise SignatureError(f"PEAK {loop}: the rate is zero", key="kernels.peak")
        return rate

    def short_chain_rate(self, length: float, key: str, per_add: float | None = None,
                         what: str = "add") -> float | None:
        """Add rate [flop/s] of short chains of ``length`` dependent adds run back to back,
        consecutive chains overlapping out of order: PEAK add_chains interpolated in log
        length (beyond its longest chain: the one-chain rate).  How many chains a core
        overlaps is how many its reorder window holds, so where the points state the
        instructions one of their chains takes (x86-64 builds) the curve is read at as many
        instructions per chain, length x the phase's instructions per add ``per_add`` (a
        matrix product's chain of 160 adds amid 5 instructions per add fills the window as
        add_chains' chain of about 530 adds at 1.5); a phase that states no instructions is
        taken as a loop of one add per iteration (:data:`ROLLED_INSTRUCTIONS_PER_ADD`).
        Points without the count are read by length.  ``what`` names a chain's operations in
        the notes (other chains than adds, restarted on short loops' entries, are read the
        same way).  None, with a note, without add_chains points: the chains are then priced
        as one long chain."""
        pts = [p for p in (self.signature.points("peak", op="add_chains")
                           if "peak" in self.signature.kernels else []) if "loop_length" in p.params]
        if not pts:
            self._note(f"{key}: signature {self.signature.name!r} has no PEAK add_chains (short "
                       f"chains overlapping out of order), so the chains are priced as one long "
                       f"chain (pinchpoint measure measures add_chains)")
            return None
        axis = "loop_length"
        if _states_instructions(pts):
            axis = "instructions_per_chain"
            why = "" if per_add else f", the phase states none: a loop of one {what} per iteration"
            per_add = per_add or ROLLED_INSTRUCTIONS_PER_ADD
            length *= per_add
            self._note(f"{key}: chains of {length:.4g} instructions ({per_add:.3g} per {what}{why}) "
                       f"read off add_chains' instructions per chain (as many in the reorder "
                       f"window)")
        elif per_add:
            self._note(f"{key}: signature {self.signature.name!r}'s add_chains points state no "
                       f"instructions per chain, so the chains are read at their length")
        by_x = {float(p[axis]): self._value(p.result, "rate") for p in pts}
        xs = sorted(by_x)
        if length > xs[-1]:
            return None  # longer than measured: as one long chain (add_chain)
        return float(log_interp(max(length, xs[0]), xs, [by_x[x] for x in xs]))

    def depth_rate(self, depth: float, key: str, fused: bool = False) -> tuple[float, str] | None:
        """(flop rate [flop/s], PEAK op) of multiply-adds in per-element chains of ``depth``
        dependent steps: PEAK horner interpolated in log depth, or for ``fused`` steps (FMAs)
        PEAK horner_fma where the signature has it (else horner: a multiply and an add per
        step, a longer chain; the op returned says which).  Without horner points: refused, or
        with ``extrapolate`` None (priced at PEAK poly5, listed)."""
        op = "horner_fma" if fused and self._horner_points("horner_fma") else "horner"
        pts = self._horner_points(op)
        if not pts:
            self._extrapolated(key, f"dependency depth {depth:g} needs PEAK horner (per-element "
                                    f"chains of multiply-adds), which signature "
                                    f"{self.signature.name!r} did not measure",
                               "PEAK poly5's rate")
            return None
        by_depth: dict[float, list[float]] = {}
        for p in pts:
            by_depth.setdefault(float(p["depth"]), []).append(self._value(p.result, "rate"))
        xs = sorted(by_depth)
        ys = [max(by_depth[x]) for x in xs]
        d = self._range(depth, xs[0], xs[-1], "dependency depth", key)
        return float(log_interp(d, xs, ys)), op

    def _horner_points(self, op: str) -> list:
        if "peak" not in self.signature.kernels:
            return []
        return [p for p in self.signature.points("peak", op=op) if "depth" in p.params]

    def chain_stream_share(self, working_set: float | None, ratio: float,
                           key: str) -> float | None:
        """phi (module docstring) of a chain fed by a unit-stride stream over ``working_set``
        [B] (None: the largest measured), ``ratio`` = chain time / stream time: interpolated in
        log working set, then between sum_chain and sum_chain2 in log ratio; beyond the longer
        chain's ratio as at it, below the shorter's linearly toward 0 at ratio 0 (a chain too
        short to fill the window delays no load).  None without sum_chain points (nothing
        added)."""
        tables = self._chain_stream_tables()
        if isinstance(tables, str):
            self._note(f"{key}: signature {self.signature.name!r} has PEAK {tables} and sum_lanes "
                       f"at fewer than two common loop lengths, so a chain fed by its loads is "
                       f"priced as overlapping them (pinchpoint measure --only peak measures them)")
            return None
        if tables is None:
            return None
        at = tables[0][0][-1] if working_set is None else np.log(working_set)
        per_op = [(float(np.interp(at, lx, ratios)), float(np.interp(at, lx, phi)))
                  for lx, ratios, phi in tables]
        (r1, p1), (r2, p2) = sorted(per_op)
        if ratio <= r1:  # toward 0 with the chain: loads alone fill the window, none waits
            return p1 * max(ratio, 0.0) / r1
        if r2 <= r1:
            return p1
        if ratio >= r2:
            return p2
        return float(p1 + (p2 - p1) * np.log(ratio / r1) / np.log(r2 / r1))

    def _chain_stream_tables(self):
        """Per chain loop (sum_chain, sum_chain2): (log working sets [B], ratios chain / stream,
        phi) at its loop lengths, computed once per signature; None without sum_chain points,
        or the name of a loop measured at fewer than two of sum_lanes' lengths."""
        if "chain_stream" in self._cache:
            return self._cache["chain_stream"]
        sig = self.signature
        if "peak" not in sig.kernels or not sig.points("peak", op="sum_chain"):
            return None
        stream = {float(p["loop_length"]): self._element_time(p, "sum_lanes")
                  for p in sig.points("peak", op="sum_lanes")}
        tables: list | str = []
        for op in ("sum_chain", "sum_chain2"):
            pts = sorted((p for p in sig.points("peak", op=op)
                          if float(p["loop_length"]) in stream),
                         key=lambda p: float(p["loop_length"]))
            if len(pts) < 2:
                tables = op
                break
            # the chain alone: the same loop over its shortest length, its loads L1 hits
            t_chain = self._element_time(pts[0], op)
            ws, phi, ratios = [], [], []
            for p in pts:
                ws.append(8.0 * float(p["loop_length"]))
                t_sum = self._element_time(p, op)
                t_load = stream[float(p["loop_length"])]
                shorter = min(t_chain, t_load)
                phi.append(min(1.0, max(0.0, t_sum - max(t_chain, t_load)) / shorter))
                ratios.append(t_chain / t_load)
            tables.append((np.log(ws), ratios, phi))
        self._cache["chain_stream"] = tables
        return tables

    def _element_time(self, point, op: str) -> float:
        """Seconds per element of a PEAK sum loop's point (one flop per element)."""
        rate = self._value(point.result, "rate")
        if not rate > 0:
            raise SignatureError(f"PEAK {op} at loop length {point['loop_length']}: the rate is "
                                 f"{rate:g}, not positive", key="kernels.peak")
        return 1.0 / rate

    def loop_slowdown(self, trips: float, key: str) -> float:
        """How much slower [fraction] in-core work runs in inner loops of ``trips`` iterations
        than in long loops: s(T) = t(T) / t_long - 1 from MAPS's trips sweep (module
        docstring).  0 at or beyond the longest measured trip count; below the shortest
        refused, or with ``extrapolate`` read there.  Without the sweep: refused, or with
        ``extrapolate`` 0 (listed)."""
        pts = [p for p in (self.signature.points("maps", op="load", pattern="stride1", threads=1)
                           if "maps" in self.signature.kernels else []) if "trips" in p.params]
        if not pts:
            self._extrapolated(key, f"inner loops of {trips:g} trips need MAPS's trips sweep "
                                    f"(short loops), which signature {self.signature.name!r} did "
                                    f"not measure", "no loop overhead")
            return 0.0
        smallest = min(float(p["working_set_bytes"]) for p in pts)
        per: dict[float, float] = {}
        for p in pts:
            if float(p["working_set_bytes"]) == smallest:
                per[float(p["trips"])] = 8.0 / self._value(p.result, "rate")  # s per element
        if len(per) < 2:
            raise SignatureError("MAPS trips sweep: needs two trip counts or more",
                                 key="kernels.maps")
        # a loop's overhead per element only shrinks as its trips grow: the sweep is read up
        # to its fastest count, the long-loop speed; a longer count that ran slower (rows of
        # 8 KiB in a 16 KiB working set) measured something else than loop overhead
        fastest = min(per, key=per.get)
        if trips >= fastest:
            return 0.0
        xs = sorted(x for x in per if x <= fastest)
        t = self._range(trips, xs[0], xs[-1], "inner trip count", key)
        slow = [per[x] / per[fastest] - 1.0 for x in xs]
        return float(np.interp(np.log(t), np.log(xs), slow))


def _states_instructions(pts) -> bool:
    """Whether every add_chains point states its instructions per chain; a stated value that
    is not a positive finite number is refused, naming the key."""
    vals = [p.params.get("instructions_per_chain") for p in pts]
    for v in vals:
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                              or not 0 < v < math.inf):
            raise SignatureError(f"PEAK add_chains: instructions_per_chain is {v!r}, not a "
                                 f"positive number", key="kernels.peak")
    return all(v is not None for v in vals)
