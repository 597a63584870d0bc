"""Ceilings of a generated 5,000-link profile, in-process (issue 2: under 1 s).

The profile is a random tree of 5,001 components joined by links of every kind, with 20 flows
(single-pass ones solved by max-flow, multi-leg ones in closed form) and, for comparison, the
same flows on a mesh (extra links), which the linear program solves.  Both are first cut to the
blocks (biconnected components) on each flow's route, so only a mesh's cycles cost solver time.
Run: python3 benchmarks/ceilings_large.py [LINKS]
"""

from __future__ import annotations

import random
import sys
import time

from pinchpoint.ceilings import all_ceilings
from pinchpoint.profile import profile_from_document


def document(n_links: int, extra: int = 0, seed: int = 1) -> dict:
    rng = random.Random(seed)
    names = [f"c{i}" for i in range(n_links + 1)]
    links = {}
    for i in range(1, len(names)):
        a, b = names[rng.randrange(i)], names[i]
        kind = rng.choice(["link", "pci", "memory", "pcie", "hypertransport"])
        t = {"kind": kind, "between": [a, b]}
        if kind == "link":
            t["rate"] = f"{rng.uniform(0.1, 100):.3f} Gbit/s"
        elif kind == "pcie":
            t.update(generation=rng.randint(1, 5), lanes=rng.choice([1, 4, 8, 16]))
        else:
            t.update(width=f"{rng.choice([32, 64, 128])} bit", clock=f"{rng.uniform(33, 1600):.1f} MHz")
        links[f"l{i}"] = t
    for k in range(extra):
        a, b = rng.sample(names, 2)
        links[f"x{k}"] = {"kind": "link", "between": [a, b], "rate": "1 Gbit/s"}
    flows = {}
    for k in range(20):
        a, b, c = rng.sample(names, 3)
        flows[f"f{k}"] = {"source": a, "sink": b} if k % 2 else {"legs": [[a, b], [b, c]]}
    return {"schema": 1, "name": f"generated-{n_links}", "components": {n: {"kind": "device"} for n in names},
            "links": links, "flows": flows}


def main(n_links: int = 5000) -> None:
    # The mesh goes through scipy's LP; its first import (about 0.6 s here) is a one-time cost
    # of the process, shown on its own line rather than charged to the mesh.
    t0 = time.perf_counter()
    import scipy.optimize  # noqa: F401
    print(f"import scipy.optimize: {time.perf_counter() - t0:.3f} s (once per process)")
    for label, extra in (("tree", 0), ("mesh (+50 links)", 50)):
        doc = document(n_links - extra, extra)
        t0 = time.perf_counter()
        profile = profile_from_document(doc)
        t1 = time.perf_counter()
        result = all_ceilings(profile)
        t2 = time.perf_counter()
        methods = sorted({c.method for c in result})
        print(f"{label:18} {len(profile.links):5d} links, {len(result)} flows: load {t1 - t0:.3f} s, "
              f"ceilings {t2 - t1:.3f} s ({', '.join(methods)})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
