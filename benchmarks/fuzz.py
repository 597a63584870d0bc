"""The long fuzzing run: mutated bundled and fixture files of every format and random
command lines, in process, with a 10 s limit per case; prints a table (cases,
clean errors, tracebacks, hangs) and every crash site with one example.

Run: python3 benchmarks/fuzz.py [--profiles N] [--cases N] [--cli N] [--seed S]
(the goal: 0 tracebacks and 0 hangs over 10,000 profile cases and 1,000 of every other
format and of the command line).  The quick run inside the test suite is tests/fuzz/.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz import engine  # noqa: E402  (after the path is set)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=10_000, help="profile cases (default 10,000)")
    parser.add_argument("--cases", type=int, default=1_000, help="cases of every other format (default 1,000)")
    parser.add_argument("--cli", type=int, default=1_000, help="command lines (default 1,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=10.0, help="seconds before a case counts as a hang")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="pinchpoint-fuzz-run-") as folder:
        for name, fmt in engine.FORMATS.items():
            n = args.profiles if name == "profiles" else args.cases
            tally, seconds = engine.timed(engine.fuzz_format, fmt, n, args.seed, limit_s=args.limit,
                                          folder=Path(folder))
            results[name] = tally
            print(f"{name}: {n:,} cases in {seconds:.1f} s", file=sys.stderr, flush=True)
        import os

        here = os.getcwd()
        os.chdir(folder)  # whatever a command writes stays in the scratch folder
        try:
            results["CLI arguments"], seconds = engine.timed(engine.fuzz_cli, args.cli, args.seed,
                                                             limit_s=args.limit)
        finally:
            os.chdir(here)
        print(f"CLI: {args.cli:,} cases in {seconds:.1f} s", file=sys.stderr)
    print(engine.table(results))
    for name, tally in results.items():
        if tally.unnamed:
            print(f"- {name}: {tally.unnamed} clean errors do not name the file; e.g. {tally.examples['unnamed']}")
        for site, count in sorted(tally.sites.items(), key=lambda kv: -kv[1]):
            if site == "unnamed":
                continue
            print(f"- {name}: {count} x {site}; e.g. {tally.examples[site][:160]}")
    return 1 if any(t.traceback or t.hang for t in results.values()) else 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    sys.exit(code)
