"""Time to write the HTML report and to run each notebook; prints figures, asserts nothing.

Run: python3 benchmarks/report_speed.py [--notebooks] [--runs N]
The report is timed in-process (first call includes matplotlib's start-up, then the warm median) and
as whole `pinchpoint report` processes: powermac-g5 with a verdict, and hgx-h100-8gpu (44 components,
71 links, 19 flows; goal: under 3 s), median of N runs with the CPU time beside the wall time (a
busy machine stretches the wall time, not the CPU time); --notebooks also executes every notebook
with nbclient.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from pinchpoint.diagnose import DiagnoseInputs, diagnose  # noqa: E402
from pinchpoint.inputs.profile_io import load_profile  # noqa: E402
from pinchpoint.report.page import build_report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    g5 = load_profile("powermac-g5")
    verdict = diagnose(DiagnoseInputs(3.5e9 / 8, profile=g5, flow="nic-rx", mtu_bytes=9000.0, streams=16,
                                      mmrbc_bytes=4096.0))
    t = time.perf_counter()
    page = build_report(g5, verdict=verdict)
    first = time.perf_counter() - t
    warm = []
    for _ in range(5):
        t = time.perf_counter()
        build_report(g5, verdict=verdict)
        warm.append(time.perf_counter() - t)
    print(f"build_report(powermac-g5, verdict): first {first:.2f} s, warm median {statistics.median(warm):.2f} s, "
          f"{len(page) / 1024:.0f} KiB")
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
    cases = {"powermac-g5 --measured": ["powermac-g5", "--measured", "3.5 Gbit/s", "--flow", "nic-rx", "--mtu",
                                        "9000", "--streams", "16", "--mmrbc", "4096"],
             "hgx-h100-8gpu": ["hgx-h100-8gpu"]}
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in cases.items():
            walls, cpus = [], []
            for _ in range(runs):
                before = os.times()
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pinchpoint.cli", "report", *argv, "-o", str(Path(tmp) / "r.html")],
                               check=True, capture_output=True)
                walls.append(time.perf_counter() - t)
                after = os.times()
                cpus.append(after.children_user + after.children_system - before.children_user - before.children_system)
            print(f"pinchpoint report {label} (whole process): median {statistics.median(walls):.2f} s wall, "
                  f"{statistics.median(cpus):.2f} s CPU over {runs} runs")
    if "--notebooks" in sys.argv:
        import nbclient
        import nbformat

        for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
            nb = nbformat.read(str(path), as_version=4)
            with tempfile.TemporaryDirectory() as tmp:
                t = time.perf_counter()
                nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                        resources={"metadata": {"path": tmp}}).execute()
                print(f"{path.name}: {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
