"""Ceilings of a generated 5,000-link profile, in-process and as whole processes (the
target: all flows under 1 s for the tree and 1.5 s for the mesh, whole process).

The profile is a random tree of 5,001 components joined by links of every kind, with 20 flows
(single-pass ones solved by max-flow, multi-leg ones in closed form) and, for comparison, the
same flows on a mesh (extra links), which the linear program solves.  Both are first cut to the
blocks (biconnected components) on each flow's route, so only a mesh's cycles cost solver time.

In-process it prints load (and how much of it is parsing unit strings with pint) and ceilings;
then it writes each profile to a temporary .toml and times `python3 -m pinchpoint.cli ceilings
FILE` (all flows) and `... ceilings FILE --flow f1` (one flow) as subprocesses, median of RUNS.
Run: python3 benchmarks/ceilings_large.py [LINKS] [RUNS]
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time

from pinchpoint.physics import units
from pinchpoint.solve.ceilings import all_ceilings, flow_ceiling
from pinchpoint.inputs.profile import profile_from_document


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


class _UnitTimer:
    """Time spent in units.parse while a profile loads (the profile loader calls it by module
    attribute, so wrapping it there sees every call)."""

    def __init__(self):
        self.seconds = 0.0

    def __enter__(self):
        self._parse = units.parse

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return self._parse(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0

        units.parse = timed
        return self

    def __exit__(self, *exc):
        units.parse = self._parse


def whole_process(args: list[str], runs: int) -> float:
    """Median wall time [s] of `python3 -m pinchpoint.cli ARGS`."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pinchpoint.cli", *args], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def main(n_links: int = 5000, runs: int = 5) -> None:
    from pinchpoint.inputs.profile_io import dump_document

    # The mesh goes through HiGHS's LP (highspy); its first import is a one-time cost of the
    # process, shown on its own line rather than charged to the mesh.
    t0 = time.perf_counter()
    import highspy  # noqa: F401
    print(f"import highspy: {time.perf_counter() - t0:.3f} s (once per process)")
    docs = {}
    for label, extra in (("tree", 0), ("mesh (+50 links)", 50)):
        doc = docs[label] = document(n_links - extra, extra)
        t0 = time.perf_counter()
        with _UnitTimer() as pint_time:
            profile = profile_from_document(doc)
        t1 = time.perf_counter()
        result = all_ceilings(profile)
        t2 = time.perf_counter()
        one = flow_ceiling(profile, "f1")  # builds and solves only f1's blocks
        t3 = time.perf_counter()
        assert one.to_dict() == next(c for c in result if c.name == "f1").to_dict()
        methods = sorted({c.method for c in result})
        print(f"{label:18} {len(profile.links):5d} links, {len(result)} flows: load {t1 - t0:.3f} s "
              f"(units.parse {pint_time.seconds:.3f} s of it), ceilings {t2 - t1:.3f} s ({', '.join(methods)}); "
              f"f1 alone {t3 - t2:.3f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for label, doc in docs.items():
            for suffix in (".toml", ".json"):  # the same document; tomllib is pure Python
                path = os.path.join(tmp, f"{doc['name']}-{label.split()[0]}{suffix}")
                if suffix == ".json":
                    with open(path, "w", encoding="utf-8") as out:
                        json.dump(doc, out)
                else:
                    dump_document(doc, path)
                every = whole_process(["ceilings", path], runs)
                one = whole_process(["ceilings", path, "--flow", "f1"], runs)
                print(f"{label:18} {suffix[1:]:4} whole process, median of {runs}: `ceilings FILE` "
                      f"{every:.3f} s, `ceilings FILE --flow f1` {one:.3f} s")
        import_only = whole_process(["--version"], runs)
        print(f"whole process `pinchpoint --version` (start-up alone): {import_only:.3f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000, int(sys.argv[2]) if len(sys.argv) > 2 else 5)
