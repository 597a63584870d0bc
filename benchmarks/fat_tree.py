"""Ceilings of a generated k-ary fat-tree fabric: how the core scales to a data-centre network.

A k-ary fat tree (Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity Data Center Network
Architecture", SIGCOMM 2008) has k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core
switches and k^3/4 hosts; every switch has k ports.  ``--oversubscription R`` gives each edge
switch R times as many hosts as uplinks (R = 1 is the full-bisection tree), the usual way
operators trade bisection bandwidth for ports.

Flows: host i sends to host (i + H/2) mod H (a shift permutation that sends every host's
traffic across the core); the scenario ``shift`` runs a sample of them at once, the all-to-all
load a planner asks about ("what does each host get when every one of them talks?").  For a
full-bisection tree every flow should get the line rate, for R = 4 a quarter of it.

Run: python3 benchmarks/fat_tree.py [--k 8] [--oversubscription 1] [--line "100 Gbit/s"]
                                    [--flows 64] [--write PROFILE.toml]
Prints the profile's size, the time to build and validate it, the time of all flow ceilings,
the time of the scenario, its per-flow rate against the expected share, and peak memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time


def fat_tree(k: int, oversubscription: int = 1, line: str = "100 Gbit/s",
             flows: int = 64) -> dict:
    """A profile document of a k-ary fat tree (k even) with ``flows`` shift-permutation flows
    and a scenario running them all at once."""
    if k < 2 or k % 2:
        raise SystemExit("fat_tree: k must be an even number >= 2")
    half = k // 2
    comps: dict[str, dict] = {}
    links: dict[str, dict] = {}

    def link(a: str, b: str) -> None:
        links[f"{a}-{b}"] = {"kind": "ethernet", "between": [a, b], "rate": line}

    for c in range(half * half):
        comps[f"core{c}"] = {"kind": "switch"}
    hosts = []
    for p in range(k):
        for a in range(half):
            agg = f"p{p}a{a}"
            comps[agg] = {"kind": "switch"}
            for c in range(half):  # aggregation switch a of every pod reaches core group a
                link(agg, f"core{a * half + c}")
        for e in range(half):
            edge = f"p{p}e{e}"
            comps[edge] = {"kind": "switch"}
            for a in range(half):
                link(edge, f"p{p}a{a}")
            for h in range(half * oversubscription):
                host = f"p{p}e{e}h{h}"
                comps[host] = {"kind": "nic", "line_rate": line}
                hosts.append(host)
                link(host, edge)
    n = len(hosts)
    step = max(1, n // max(1, flows))
    flow_table = {}
    for i in range(0, n, step):
        if len(flow_table) >= flows:
            break
        src, dst = hosts[i], hosts[(i + n // 2) % n]
        flow_table[f"f{i}"] = {"source": src, "sink": dst}
    return {"schema": 1, "name": f"fat-tree-k{k}-r{oversubscription}",
            "description": f"k = {k} fat tree, {n} hosts, oversubscription {oversubscription}:1, "
                           f"{line} links (Al-Fares et al., SIGCOMM 2008)",
            "components": comps, "links": links, "flows": flow_table,
            "scenarios": {"shift": {"flows": list(flow_table)}}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=8, help="switch ports (even; default 8)")
    ap.add_argument("--oversubscription", type=int, default=1, help="hosts per edge uplink (default 1)")
    ap.add_argument("--line", default="100 Gbit/s", help="every link's line rate")
    ap.add_argument("--flows", type=int, default=64, help="shift-permutation flows (default 64)")
    ap.add_argument("--write", metavar="FILE", help="also write the profile (TOML)")
    args = ap.parse_args(argv)

    from pinchpoint.ceilings import all_ceilings, scenario_ceilings
    from pinchpoint.profile import profile_from_document

    t0 = time.perf_counter()
    doc = fat_tree(args.k, args.oversubscription, args.line, args.flows)
    t1 = time.perf_counter()
    profile = profile_from_document(doc)
    t2 = time.perf_counter()
    flows = all_ceilings(profile)
    t3 = time.perf_counter()
    shared = scenario_ceilings(profile, "shift")
    t4 = time.perf_counter()
    if args.write:
        from pinchpoint.profile_io import dump_document
        dump_document(doc, args.write)
    line_bps = min(c.ceiling_bytes_per_s for c in flows)
    per_flow = min(c.ceiling_bytes_per_s for c in shared)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    hosts = sum(1 for c in doc["components"].values() if c["kind"] == "nic")
    print(f"{doc['description']}")
    print(f"components {len(doc['components'])}, links {len(doc['links'])}, flows {len(flows)}")
    print(f"generate {t1 - t0:.2f} s, load and validate {t2 - t1:.2f} s, all flow ceilings "
          f"{t3 - t2:.2f} s, scenario of {len(shared)} flows at once {t4 - t3:.2f} s; "
          f"peak RSS {rss:.0f} MiB")
    print(f"one flow alone: {line_bps * 8 / 1e9:.4g} Gbit/s; each flow in the scenario: "
          f"{per_flow * 8 / 1e9:.4g} Gbit/s ({per_flow / line_bps:.3f} of the line; expected "
          f"at least 1/{args.oversubscription} = {1 / args.oversubscription:.3f} for {hosts} hosts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
