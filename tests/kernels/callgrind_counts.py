"""Callgrind's self counts per function of a kernel binary, for the tests that check the
instruction and branch counts a kernel's loops state."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pinchpoint.prediction.trace.callgrind import parse_callgrind


def callgrind_self_counts(binary, ops: str | None, out, extra=()) -> dict[str, dict[str, float]]:
    """Self events (Ir, Bc, Bcm) of each function of a kernel run once under callgrind with
    branch simulation (``ops``: its --ops list, None for its default; ``extra``: more of its
    arguments), and the calls each function received (``calls``), read with trace's own
    Callgrind reader.  Skips where Valgrind is not installed."""
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    # the reader wants the cache events too (trace always collects them)
    subprocess.run(["valgrind", "--tool=callgrind", "--branch-sim=yes", "--cache-sim=yes",
                    "--simulate-wb=yes", "--dump-instr=yes",
                    f"--callgrind-out-file={out}", str(binary),
                    *(["--ops", ops] if ops else []), *extra, "--reps", "1", "--min-time", "1e-6"],
                   check=True, capture_output=True, timeout=300)
    prof = parse_callgrind(Path(out).read_text())
    calls: dict[str, float] = {}
    for (_, _, _, (_, callee)), n in prof.calls.items():
        calls[callee] = calls.get(callee, 0.0) + n
    return {fn: {**e, "calls": calls.get(fn, 0.0)} for (_, fn), e in prof.functions().items()}
