"""Start-up and run time of whole `pinchpoint` processes (issue 2: --version < 0.2 s, ceilings < 1 s).

Prints the median and the minimum of N runs of each command.  Run: python3 benchmarks/cli_speed.py
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "pinchpoint --version": ["--version"],
    "pinchpoint ceilings powermac-g5": ["ceilings", "powermac-g5"],
    "pinchpoint ceilings powermac-g5 --json": ["ceilings", "powermac-g5", "--json"],
    "pinchpoint explain powermac-g5 pcix": ["explain", "powermac-g5", "pcix"],
}


def main(runs: int = 7) -> None:
    exe = shutil.which("pinchpoint")
    base = [exe] if exe else [sys.executable, "-m", "pinchpoint.cli"]
    subprocess.run(base + ["ceilings", "powermac-g5"], capture_output=True, check=True)  # warm caches
    print(f"{'command':42} {'median s':>9} {'min s':>7}   ({runs} runs, {' '.join(base)})")
    for label, args in COMMANDS.items():
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(base + args, capture_output=True, check=True)
            times.append(time.perf_counter() - t0)
        print(f"{label:42} {statistics.median(times):9.3f} {min(times):7.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
