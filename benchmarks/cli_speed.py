"""Start-up and run time of whole `pinchpoint` processes (targets: --version < 0.2 s,
ceilings < 1 s, ceilings powermac-g5 < 0.25 s).

Prints the median and the minimum of N runs of each command, and the floor under them: a bare
Python process and one that only imports the third-party library `ceilings` needs (networkx; pint
and numpy only when a unit string is not in units_table.json).  Run: python3 benchmarks/cli_speed.py [N] [--module]

``--module`` runs ``python3 -m pinchpoint.cli`` (the tree on PYTHONPATH) instead of the installed
``pinchpoint`` script.  ``--compare DIR...`` times ``ceilings powermac-g5`` and ``scale`` with each
directory on PYTHONPATH in turn (each holding a ``pinchpoint`` package), the runs interleaved so
that a busy shared machine slows all of them alike:

    python3 benchmarks/cli_speed.py 10 --compare /tmp/before-shim /tmp/after-shim
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

MYSQL = str(Path(__file__).resolve().parents[1] / "profiles" / "concurrency" / "mysql-g5-anandtech-2005-09-01.csv")

COMMANDS = {
    "pinchpoint --version": ["--version"],
    "pinchpoint ceilings powermac-g5": ["ceilings", "powermac-g5"],
    "pinchpoint ceilings powermac-g5 --json": ["ceilings", "powermac-g5", "--json"],
    "pinchpoint explain powermac-g5 pcix": ["explain", "powermac-g5", "pcix"],
    "pinchpoint diagnose (260 Mbit/s question)": ["diagnose", "--measured", "260 Mbit/s", "--link", "1 Gbit/s",
                                                  "--rtt", "2 ms", "--window", "64 KiB"],
    "pinchpoint scale mysql-g5 CSV": ["scale", MYSQL],
}
FLOORS = {
    "python3 -c pass (floor)": [sys.executable, "-c", "pass"],
    "python3 -c 'import networkx'": [sys.executable, "-c", "import networkx"],
    "python3 -c 'import numpy, pint, networkx'": [sys.executable, "-c", "import numpy, pint, networkx"],
}


def _time(cmd: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return times


def main(runs: int = 10, module: bool = False) -> None:
    # the script beside this interpreter: a version manager's shim on PATH (pyenv's is a bash
    # script) would add its own 0.1 s to every run
    beside = Path(sys.executable).with_name("pinchpoint")
    exe = None if module else str(beside) if beside.exists() else shutil.which("pinchpoint")
    base = [exe] if exe else [sys.executable, "-m", "pinchpoint.cli"]
    where = subprocess.run([sys.executable, "-c", "import pinchpoint; print(pinchpoint.__file__)"],
                           capture_output=True, text=True).stdout.strip()
    subprocess.run(base + ["ceilings", "powermac-g5"], capture_output=True, check=True)  # warm caches
    print(f"{'command':44} {'median s':>9} {'min s':>7}   ({runs} runs, {' '.join(base)}; {where})")
    for label, cmd in FLOORS.items():
        times = _time(cmd, runs)
        print(f"{label:44} {statistics.median(times):9.3f} {min(times):7.3f}")
    for label, args in COMMANDS.items():
        times = _time(base + args, runs)
        print(f"{label:44} {statistics.median(times):9.3f} {min(times):7.3f}")


def compare(runs: int, trees: list[str], args=("ceilings", "powermac-g5")) -> None:
    """Interleaved runs of one command with each tree on PYTHONPATH: median and minimum."""
    import os

    times: dict[str, list[float]] = {t: [] for t in trees}
    for _ in range(runs):
        for t in trees:
            env = dict(os.environ, PYTHONPATH=t)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pinchpoint.cli", *args], capture_output=True, check=True, env=env)
            times[t].append(time.perf_counter() - t0)
    print(f"pinchpoint {' '.join(Path(a).name for a in args)}: {runs} interleaved runs per tree")
    for t in trees:
        print(f"  {t:50} median {statistics.median(times[t]):.3f} s  min {min(times[t]):.3f} s")


if __name__ == "__main__":
    if "--compare" in sys.argv:
        i = sys.argv.index("--compare")
        for args in (("ceilings", "powermac-g5"), ("scale", MYSQL)):
            compare(int(sys.argv[1]) if i > 1 else 10, sys.argv[i + 1:], args)
        sys.exit(0)
    rest = [a for a in sys.argv[1:] if a != "--module"]
    main(int(rest[0]) if rest else 10, "--module" in sys.argv[1:])
