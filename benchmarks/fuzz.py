"""The long fuzzing run: mutated bundled and fixture files of every format and random
command lines, in process, with a 10 s limit per case; prints a table (cases,
clean errors, tracebacks, hangs) and every crash site with one example.

Run: python3 benchmarks/fuzz.py [--profiles N] [--cases N] [--cli N] [--seed S]
Besides the mutated files: valid-but-extreme documents of every format judged for silent
nonsense (NaN, infinity, a zero ceiling, given with exit 0), metamorphic checks (TOML = JSON,
repeat x 2 doubles the time, the USL fit is scale-free) and command lines under environment
faults (full, closed, ASCII-only stdout, a pipe that closes, names over 255 bytes, SIGTERM,
endless stdin, non-UTF-8 file names): tests/fuzz/extreme.py and tests/fuzz/faults.py.
The goal: 0 tracebacks, 0 hangs over 10 s and 0 silent nonsense over 10,000 profile cases and
1,000 of every other format and of command lines.  The quick run is tests/fuzz/.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz import engine, extreme, faults  # noqa: E402  (after the path is set)


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
        _more(results, args, Path(folder))
    print(engine.table(results))
    for name, tally in results.items():
        if tally.unnamed:
            print(f"- {name}: {tally.unnamed} clean errors do not name the file; e.g. {tally.examples['unnamed']}")
        for site, count in sorted(tally.sites.items(), key=lambda kv: -kv[1]):
            if site == "unnamed":
                continue
            print(f"- {name}: {count} x {site}; e.g. {tally.examples[site][:160]}")
    return 1 if any(t.traceback or t.hang or t.nonsense for t in results.values()) else 0


def _more(results: dict, args, folder: Path) -> None:
    """The valid-but-extreme, metamorphic and environment-fault cases."""
    for name in extreme.TARGETS | {"csv": None}:
        n = args.profiles if name == "profiles" else args.cases
        sub = folder / f"extreme-{name}"
        sub.mkdir()
        results[f"{name} (extreme)"], seconds = engine.timed(extreme.fuzz_extreme, name, n, args.seed,
                                                             limit_s=args.limit, folder=sub)
        print(f"{name} (extreme): {n:,} cases in {seconds:.1f} s", file=sys.stderr, flush=True)
    sub = folder / "metamorphic"
    sub.mkdir()
    results["metamorphic"], seconds = engine.timed(extreme.fuzz_metamorphic, args.cases, args.seed,
                                                   limit_s=args.limit, folder=sub)
    print(f"metamorphic: {args.cases:,} cases in {seconds:.1f} s", file=sys.stderr, flush=True)
    sub = folder / "faults"
    sub.mkdir()
    results["CLI under faults"], seconds = engine.timed(faults.fuzz_faults, args.cli, args.seed,
                                                        limit_s=args.limit, folder=sub)
    print(f"CLI under faults: {args.cli:,} cases in {seconds:.1f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    sys.exit(code)
