"""How long detection takes: lstopo, the sysfs walk, and whole `pinchpoint detect` processes.

Prints the median and the minimum of N runs of each step.  Run: python3 benchmarks/detect_speed.py
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sysfs" / "x5460-throttled-pcie-x4"


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def main(runs: int = 5) -> None:
    from pinchpoint.measure import detect

    base = [sys.executable, "-m", "pinchpoint.cli"]
    steps = {}
    if shutil.which("lstopo"):
        steps["lstopo --of xml -"] = lambda: subprocess.run(["lstopo", "--of", "xml", "-"], capture_output=True,
                                                            check=True)
    steps["read_sysfs('/') (in process)"] = lambda: detect.read_sysfs("/")
    steps["read_sysfs(fixture) (in process)"] = lambda: detect.read_sysfs(FIXTURE)
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "here.toml")
        steps["pinchpoint detect -o here.toml"] = lambda: subprocess.run(base + ["detect", "-o", out],
                                                                         capture_output=True, check=True)
        steps["pinchpoint detect --no-hwloc"] = lambda: subprocess.run(base + ["detect", "--no-hwloc"],
                                                                       capture_output=True, check=True)
        print(f"{'step':42} {'median s':>9} {'min s':>7}   ({runs} runs)")
        for label, fn in steps.items():
            med, lo = timed(fn, runs)
            print(f"{label:42} {med:9.3f} {lo:7.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
