"""Communication pricing: messages (MAPS-PING, EFF-BW), file I/O (IO-BENCH), network flows.

- Messages: count x (latency + size / bandwidth), the ping-pong model of MAPS-PING and Intel MPI
  Benchmarks PingPong; where several message sizes were measured the one-way time is
  interpolated piecewise linearly in the size.  "exchange" uses EFF-BW (Rabenseifner and
  Koniges, "Effective Communication and File-I/O Bandwidth Benchmarks", 2001).
- I/O: bytes / the IO-BENCH rate of the test at the nearest buffer size.
- Network: bytes / the flow's ceiling in the machine profile (after protocol overhead where the
  link kinds define one), or the signature's loopback TCP netstream figure.
"""

from __future__ import annotations

import math

import numpy as np

from pinchpoint.errors import ProfileError, WorkloadError
from pinchpoint.inputs.workload_data import IOOps, Messages, NetworkTraffic
from pinchpoint.prediction.formulas import message_time
from pinchpoint.prediction.rates_base import REL_TOL, RatesBase, fmt_size


class CommRates(RatesBase):
    """Message, I/O and network rates of a signature (mixed into SignatureRates)."""

    # -- messages
    # long: one branch per message pattern and kernel fallback (ping, effbw, their MPI builds), each naming what is missing
    def one_way_time(self, msg: Messages, key: str) -> float:
        """Time [s] of one message of ``msg.size_bytes``."""
        kernel = "ping" if msg.pattern == "ping-pong" else "effbw"
        # the MPI builds (ping_mpi, effbw_mpi) measure the same thing through MPI: their
        # points (transport "mpi") join the plain kernel's
        variants = [k for k in (kernel, f"{kernel}_mpi") if k in self.signature.kernels]
        if not variants:
            self._need(kernel, f"{msg.pattern} messages", key)
        fixed = dict(msg.match)
        if msg.processes is not None:
            fixed["processes"] = msg.processes
        pts = [p for k in variants for p in self.signature.points(k, **fixed)]
        if not pts:
            raise WorkloadError(f"no {kernel} points match {fixed!r} in signature "
                                f"{self.signature.name!r}", key=f"{key}.match")
        if kernel == "effbw" and "processes" not in fixed:
            procs = sorted({p["processes"] for p in pts if "processes" in p.params})
            if procs:
                pts = [p for p in pts if p.params.get("processes") == procs[0]]
        pts = self._narrow(pts, fixed)
        size = msg.size_bytes
        sized = [p for p in pts if "message_bytes" in p.params]
        if sized:
            times: dict[float, float] = {}
            for p in sized:
                s = float(p["message_bytes"])
                metric = p.params.get("metric")
                if kernel == "ping":
                    if metric == "latency":
                        times[s] = self._value(p.result, "time")
                else:  # effbw: aggregate B/s of P processes each sending s bytes per round
                    if metric in (None, "bandwidth"):
                        procs = float(p.params.get("processes", 2))
                        times[s] = s * procs / max(self._value(p.result, "rate"), 1e-300)
            if not times:
                raise WorkloadError(f"no {kernel} latency or bandwidth points in signature "
                                    f"{self.signature.name!r}", key=key)
            xs = sorted(times)
            ys = [times[x] for x in xs]
            self._note(f"{msg.pattern}: one-way time interpolated over {kernel}'s measured "
                       f"message sizes {fmt_size(xs[0])} .. {fmt_size(xs[-1])}")
            if size <= xs[0]:
                return ys[0]  # the latency floor
            if size > xs[-1] * (1 + REL_TOL):
                self._range(size, xs[0], xs[-1], "message size", key)  # refuses or records
                slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2]) if len(xs) > 1 else ys[-1] / xs[-1]
                return ys[-1] + max(slope, 0.0) * (size - xs[-1])
            return float(np.interp(size, xs, ys))
        lat = [p for p in pts if p.params.get("metric") == "latency"]
        bw = [p for p in pts if p.params.get("metric") in
              (("bandwidth",) if kernel == "ping" else ("bandwidth_per_process",))]
        if not lat or not bw:
            raise WorkloadError(f"signature {self.signature.name!r} has no {kernel} latency and "
                                f"bandwidth pair for {fixed or 'these messages'}", key=key)
        latency = min(self._value(p.result, "time") for p in lat) if self.stat == "best" \
            else sorted(self._value(p.result, "time") for p in lat)[(len(lat) - 1) // 2]
        bandwidth = max(self._value(p.result, "rate") for p in bw)
        self._note(f"{msg.pattern}: {kernel} latency {latency * 1e6:.3g} us, bandwidth "
                   f"{bandwidth / 1e6:.4g} MB/s")
        return float(message_time(1.0, size, latency, bandwidth))

    # -- I/O
    def io_rate(self, io: IOOps, key: str) -> float:
        self._need("iobench", f"{io.test} I/O", key)
        pts = self.signature.points("iobench", test=io.test)
        if not pts:
            raise WorkloadError(f"signature {self.signature.name!r} has no IO-BENCH {io.test} "
                                f"figure", key=key)
        bufs = sorted({float(p["buffer_bytes"]) for p in pts if "buffer_bytes" in p.params})
        if bufs:
            want = io.buffer_bytes or bufs[0]
            best = min(bufs, key=lambda b: abs(math.log(b / want)))
            pts = [p for p in pts if float(p.params.get("buffer_bytes", -1)) == best]
        return max(self._value(p.result, "rate") for p in pts)

    # -- network
    def network_rate(self, net: NetworkTraffic, key: str) -> tuple[float, str]:
        if net.flow is not None:
            if self.profile is None:
                raise WorkloadError(f"network traffic over flow {net.flow!r} needs a machine "
                                    f"profile (--profile)", key=f"{key}.flow")
            # lazy: solve.ceilings costs 45 ms at import (python -X importtime) and only
            # traffic over a profile's flow needs it
            from pinchpoint.solve.ceilings import flow_ceiling  # noqa: PLC0415
            if net.flow not in self.profile.flows:
                raise WorkloadError(f"profile {self.profile.name!r} has no flow {net.flow!r} "
                                    f"(flows: {', '.join(self.profile.flows) or 'none'})",
                                    key=f"{key}.flow")
            try:
                c = flow_ceiling(self.profile, net.flow)
            except ProfileError as exc:  # pragma: no cover - profile validated on load
                raise WorkloadError(str(exc), key=f"{key}.flow") from None
            rate = c.effective_ceiling_bytes_per_s or c.ceiling_bytes_per_s
            return rate, f"flow {net.flow} of {self.profile.name} [{','.join(c.binding)}]"
        self._need("netstream", "network traffic without a flow (loopback TCP)", key)
        pts = self.signature.points("netstream")
        rate = max(self._value(p.result, "rate") for p in pts)
        return rate, "loopback TCP (netstream)"

