"""How long `pinchpoint plan` takes for 1,000 generated candidates of a bundled server, 10 needs.

    python3 benchmarks/plan_speed.py [--profile server-2024-epyc|hgx-h100-8gpu] [--repeat 3]

The candidates are the product of three option sets (memory clock x memory channels x NIC line
rate, 10 values each); the needs are the server's own flows, alone and at once, and a scenario.  Prints the time
of the whole evaluation (best and median of the repeats) and how many ceilings were solved
for how many asked (each answer is kept under the capacities of the links it depends on).
"""

from __future__ import annotations

import argparse
import statistics
import time

from pinchpoint.inputs.requirements import plan_from_document
from pinchpoint.planner.plan import plan


def hgx_document(profile: str) -> dict:
    """The 8-GPU server: memory clock x channels x NIC line rate; GPU, NVLink, NIC needs."""
    needs = [{"name": "gpu0-feed", "flows": "h2d-gpu0", "rate": "40 GB/s"},
             {"name": "gpu-peer", "flows": "gpu0-gpu1", "rate": "300 GB/s"},
             {"name": "all-nics", "scenario": "all-nics-to-mem0", "rate": "20 GB/s"}]
    needs += [{"name": f"nic{i}", "flows": f"rx-nic{i}", "rate": "100 Gbit/s"} for i in range(7)]
    clocks = {f"ddr5-{2 * c}": {"set": {"ddr[01].clock": f"{c} MHz"}, "price": c} for c in range(1600, 3600, 200)}
    channels = {f"{n}ch": {"set": {"ddr[01].channels": n}, "price": 500 * n} for n in range(4, 14)}
    nics = {f"{g}G": {"set": {"nic[0-7].line_rate": f"{g} Gbit/s"}, "price": 20 * g} for g in range(100, 600, 50)}
    return {"name": "speed", "needs": needs, "base": {"profile": profile, "price": 200000},
            "options": {"clock": clocks, "channels": channels, "nic": nics}}


def epyc_document(profile: str) -> dict:
    """The 2-socket EPYC server: memory clock x channels x NIC line rate; every flow and the scenario."""
    flows = ["nic-rx", "nic-tx", "nic-rx-remote", "tcp-rx-copy", "mem-copy", "remote-copy"]
    needs = [{"name": f, "flows": f, "rate": "80 Gbit/s" if "nic" in f or "tcp" in f else "150 GB/s"}
             for f in flows]
    needs += [{"name": "nic-rx-raw", "flows": "nic-rx", "rate": "90 Gbit/s", "basis": "raw"},
              {"name": "both-ways", "scenario": "bidirectional", "rate": "50 Gbit/s"},
              {"name": "rx+copy", "flows": ["nic-rx", "mem-copy"], "total": "20 GB/s"},
              {"name": "copies", "flows": ["mem-copy", "remote-copy"], "rate": "60 GB/s", "at_once": True}]
    clocks = {f"ddr5-{2 * c}": {"set": {"mem[01].clock": f"{c} MHz"}, "price": c} for c in range(1600, 3600, 200)}
    channels = {f"{n}ch": {"set": {"mem[01].channels": n}, "price": 500 * n} for n in range(4, 14)}
    nics = {f"{g}G": {"set": {"nic.line_rate": f"{g} Gbit/s"}, "price": 20 * g} for g in range(100, 600, 50)}
    return {"name": "speed", "needs": needs, "base": {"profile": profile, "price": 20000},
            "options": {"clock": clocks, "channels": channels, "nic": nics}}


DOCUMENTS = {"server-2024-epyc": epyc_document, "hgx-h100-8gpu": hgx_document}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="server-2024-epyc", choices=sorted(DOCUMENTS))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    spec = plan_from_document(DOCUMENTS[args.profile](args.profile))
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        result = plan(spec, fixes=False)
        times.append(time.perf_counter() - t0)
    print(f"{len(result.rows)} candidates x {len(result.needs)} needs of {args.profile}: "
          f"best {min(times):.2f} s, median {statistics.median(times):.2f} s over {args.repeat} runs "
          f"(goal < 10 s); {result.solved} ceilings solved for {result.asked} asked")
    t0 = time.perf_counter()
    with_fixes = plan(spec)
    print(f"with the smallest-change search on the {min(len(with_fixes.rows), 24)} cheapest: "
          f"{time.perf_counter() - t0:.2f} s; cheapest meeting all: {with_fixes.cheapest}")


if __name__ == "__main__":
    main()
