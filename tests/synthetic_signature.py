"""A synthetic signature with round numbers, so that predictions can be checked by hand.

Shared by tests/predict and the convolution properties (tests/ is on sys.path via its conftest)."""

from __future__ import annotations

from pinchpoint.inputs.signature import Signature

GB = 1e9
KiB, MiB = 1024, 1024 ** 2
#: MAPS load stride1: working set [B] -> bandwidth [B/s] (stores at half, copy/triad/update equal
#: to loads)
LOAD = {4 * KiB: 200 * GB, 32 * KiB: 100 * GB, 256 * KiB: 50 * GB, 4 * MiB: 20 * GB, 64 * MiB: 10 * GB}


def result(unit: str, value: float, spread: float = 1.0) -> dict:
    reps = [value / spread, value, value * spread]
    return {"unit": unit, "min": min(reps), "median": value, "max": max(reps), "repetitions": reps}


def synthetic_doc(speed: float = 1.0, spread: float = 1.0) -> dict:
    """Signature document; ``speed`` multiplies every rate and divides every time."""
    maps = []
    # update (8 B loaded + 8 B stored in place per element) at the load rate: its time per
    # element is the store's, the loads hide behind it fully (in-place overlap phi = 1)
    for op, factor in (("load", 1.0), ("store", 0.5), ("copy", 1.0), ("triad", 1.0),
                       ("update", 1.0)):
        for ws, bw in LOAD.items():
            maps.append({"op": op, "pattern": "stride1", "threads": 1, "working_set_bytes": ws,
                         "result": result("B/s", bw * factor * speed, spread)})
    for ws, bw in ((4 * KiB, 5 * GB), (64 * MiB, 2e7)):
        maps.append({"op": "load", "pattern": "random", "threads": 1, "working_set_bytes": ws,
                     "result": result("B/s", bw * speed, spread)})
    # independent random loads: many misses in flight, so far faster than the chase at DRAM
    for ws, bw in ((4 * KiB, 20 * GB), (64 * MiB, 1e9)):
        maps.append({"op": "load", "pattern": "gather", "threads": 1, "working_set_bytes": ws,
                     "result": result("B/s", bw * speed, spread)})
    # MAPS load on 2 and 4 threads (aggregate): 4 threads saturate memory at 25 GB/s
    for threads, bws in ((2, (400 * GB, 18 * GB)), (4, (800 * GB, 25 * GB))):
        for ws, bw in zip((4 * KiB, 64 * MiB), bws):
            maps.append({"op": "load", "pattern": "stride1", "threads": threads,
                         "working_set_bytes": ws, "result": result("B/s", bw * speed, spread)})
    peak = []
    for op, rates in (("division", (1e9, 0.5e9)), ("poly5", (1e10, 5e9)),
                      ("daxpy", (8e9, 1e9)), ("dot", (1e10, 2e9))):
        for ll, rate in zip((1024, 4194304), rates):
            peak.append({"op": op, "loop_length": ll, "result": result("flop/s", rate * speed, spread)})
    # one dependency chain: an add every 1 ns, an FMA (2 flop) every 2 ns
    for op, rate in (("add_chain", 1e9), ("fma_chain", 1e9)):
        peak.append({"op": op, "loop_length": 1024, "result": result("flop/s", rate * speed, spread)})
    # short chains back to back: 8 adds each overlap 4 deep, 1024 adds each hardly at all
    for length, rate in ((8, 4e9), (1024, 1e9)):
        peak.append({"op": "add_chains", "loop_length": length,
                     "result": result("flop/s", rate * speed, spread)})
    ping = []
    for size, lat in ((1, 1e-5), (1024, 1.2e-5), (1048576, 5e-4)):
        ping.append({"transport": "tcp", "metric": "latency", "message_bytes": size,
                     "result": result("s", lat / speed, spread)})
        ping.append({"transport": "tcp", "metric": "bandwidth", "message_bytes": size,
                     "result": result("B/s", size / lat * speed, spread)})
    effbw = [{"nodes": 1, "processes": 2, "metric": "latency", "mapping": "simple",
              "result": result("s", 3e-6 / speed, spread)},
             {"nodes": 1, "processes": 2, "metric": "bandwidth_per_process",
              "result": result("B/s", 4e8 * speed, spread)}]
    io = [{"test": "seq_read", "file_bytes": 16 * MiB, "buffer_bytes": 4096,
           "result": result("B/s", 1e8 * speed, spread)},
          {"test": "seq_read", "file_bytes": 16 * MiB, "buffer_bytes": 262144,
           "result": result("B/s", 1e9 * speed, spread)}]
    # OpenMP fork/join per team size (kernels/omp.c): 0.5, 1 and 2 us for 1, 2 and 4 threads
    omp = [{"op": "parallel", "threads": t, "result": result("s", v / speed, spread)}
           for t, v in ((1, 0.5e-6), (2, 1e-6), (4, 2e-6))]
    net = [{"message_bytes": 65536, "sockbuf_bytes": 0, "result": result("B/s", 2e9 * speed, spread)}]
    return {"schema": 1, "host": {"name": "synthetic", "cpu_model": "round numbers",
                                  "caches": [{"level": 1, "type": "Data", "size_bytes": 32 * KiB},
                                             {"level": 2, "type": "Unified", "size_bytes": 512 * KiB}]},
            "compiler": {"name": "none"}, "created": "2026-11-22T00:00:00+00:00",
            "kernels": {k: {"source_sha256": None, "points": v} for k, v in
                        (("maps", maps), ("peak", peak), ("ping", ping), ("effbw", effbw),
                         ("iobench", io), ("netstream", net), ("omp", omp))}}


def synthetic_signature(speed: float = 1.0, spread: float = 1.0) -> Signature:
    return Signature.from_dict(synthetic_doc(speed, spread))
