"""``benchmarks/predict_unseen.py --recorded`` re-predicts every recorded machine from the kernel
times kept in the repository (no kernel runs): one table per machine and kernel set."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def recorded():
    sys.path.insert(0, str(BENCH))
    try:
        import recorded as mod
        yield mod
    finally:
        sys.path.remove(str(BENCH))


def test_every_recorded_folder_is_predicted(recorded, capsys):
    folders = sorted(p for p in recorded.RESULTS.glob("*") if p.is_dir())
    assert folders, "benchmarks/results holds no machine"
    for folder in folders:
        sets = recorded.machine_sets(folder)
        assert sets, f"{folder.name}: no kernel set recorded"
        for name, sig, rows in sets:
            errs = [r["error_pct"] for r in rows if "error_pct" in r]
            # every case is predicted (none refused) and every error is a finite figure
            assert len(errs) == len(rows) and all(math.isfinite(e) for e in errs), (folder.name, name)
    assert recorded.predict_recorded() == 0
    out = capsys.readouterr().out
    assert all(f"=== {f.name}:" in out for f in folders)
