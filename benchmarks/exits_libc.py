"""Time the loop-exit rule (pinchpoint.prediction.trace.exits) over a whole shared library's code,
as ``pinchpoint trace`` meets it for every object a program maps (libc first of all).

Prints the instructions, the branches that close or leave a loop (candidates), the learnt exits,
and the best of --repeat times [s] of: the sweep (``LoopExits``: what a trace pays per object;
the data flow then follows only the branches that ran) and the full rule (``loop_exits``: the data
flow of every candidate).

Usage::

    PYTHONPATH=.pyshim python3 benchmarks/exits_libc.py [--library /lib/x86_64-linux-gnu/libc.so.6]
"""

from __future__ import annotations

import argparse
import subprocess
import time

from pinchpoint.prediction.trace.disasm import parse_objdump
from pinchpoint.prediction.trace.exits import LoopExits, loop_exits
from pinchpoint.prediction.trace.operands import effects


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        effects.cache_clear()  # each run decodes operands afresh, as a new trace does
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--library", default="/lib/x86_64-linux-gnu/libc.so.6")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    dump = subprocess.run(["objdump", "-d", "-M", "intel", "--no-show-raw-insn", a.library],
                          capture_output=True, text=True, check=True, timeout=300).stdout
    code = parse_objdump(dump)
    sweep, lazy = _best(lambda: LoopExits(code), a.repeat)
    full, exits = _best(lambda: loop_exits(code), a.repeat)
    print(f"{a.library}: {len(code)} instructions, {len(lazy.leaving)} branches close or leave a "
          f"loop, {len(exits)} learnt exits (string instructions included)")
    print(f"sweep (LoopExits) {sweep:.2f} s, full rule (loop_exits) {full:.2f} s, best of {a.repeat}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
