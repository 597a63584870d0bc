"""Fixtures for the report and plot tests: the G5 profile, its verdict from the UvA G5 report, a small MAPS signature."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

from pinchpoint.diagnose import DiagnoseInputs, diagnose  # noqa: E402
from pinchpoint.inputs.profile_io import load_profile  # noqa: E402
from pinchpoint.inputs.signature import KernelRun, Point, Result, Signature  # noqa: E402

GBIT = 1e9 / 8

#: the UvA G5 report (2004) (000_b92ccb8ee8444441.txt), section 4.4.1 "Iperf TCP": 3.5 Gbit/s with 16 streams,
#: MSS 9000 (jumbo frames), after MMRBC was raised from 512 to 4096 bytes ("PCI-X burst size was
#: increased from 512 bytes to 4096 bytes").
G5_TCP = dict(measured_bytes_per_s=3.5 * GBIT, flow="nic-rx", mtu_bytes=9000.0, streams=16, mmrbc_bytes=4096.0)


@pytest.fixture(scope="session")
def g5():
    return load_profile("powermac-g5")


@pytest.fixture(scope="session")
def g5_verdict(g5):
    return diagnose(DiagnoseInputs(profile=g5, **G5_TCP))


def maps_signature(caches=((1, 32768), (2, 1048576))) -> Signature:
    """Three cache levels' worth of made-up MAPS points: 100, 50, 10 GB/s."""
    points = []
    for ws, bw in ((4096, 100e9), (16384, 100e9), (262144, 50e9), (4 * 2 ** 20, 10e9), (64 * 2 ** 20, 10e9)):
        for op in ("load", "copy"):
            points.append(Point({"op": op, "pattern": "stride1", "threads": 1, "working_set_bytes": ws},
                                Result.from_repetitions("B/s", [bw * 0.95, bw, bw * 1.02])))
    host = {"name": "fake", "cpu_model": "Fake CPU",
            "caches": [{"level": lv, "type": "Data" if lv == 1 else "Unified", "size_bytes": sz} for lv, sz in caches]}
    return Signature(host, {"name": "cc"}, "2026-01-01T00:00:00+00:00", {"maps": KernelRun(None, tuple(points))})


@pytest.fixture
def maps_sig():
    return maps_signature()
