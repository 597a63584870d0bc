"""The share of a strided entry that L1 serves: a hit costs one access whatever distance separates
the lines, so it is read off MAPS's stride sweep at one line's stride inside L1; the shares
beyond L1 keep the entry's own stride (values computed here by hand from the sweep's points)."""

from __future__ import annotations

import math

import pytest
from test_vocabulary import shaped_doc, wl

from pinchpoint.inputs.signature import Signature
from pinchpoint.prediction.convolve import convolve

KiB, MiB = 2 ** 10, 2 ** 20


@pytest.fixture
def lined() -> Signature:
    """shaped_doc's sweeps (4 KiB: plain 200 GB/s, 64 B stride 50 GB/s, 4 KiB stride 4 GB/s;
    64 MiB: 10, 2.5 and 0.2 GB/s) on a host whose caches state their 64-byte lines."""
    doc = shaped_doc()
    for c in doc["host"]["caches"]:
        c["line_bytes"] = 64
    return Signature.from_dict(doc)


def strided(stride: str, hits: str, ws: str = "16 KiB") -> str:
    return (f"[[phases.memory]]\nops = 1e6\nbytes_per_op = '8 B'\nstride = '{stride}'\n"
            f"working_set = '{ws}'\nhit_rates = {{ {hits} }}\n")


def test_l1_hits_cost_an_access_at_one_lines_stride_whatever_the_stride(lined):
    # every access a new line inside L1: the 64 B sweep at 4 KiB, 50 GB/s in 8-byte accesses
    one_line = convolve(lined, wl(strided("64 B", "L1 = 1.0"))).seconds("memory")
    assert one_line == pytest.approx(1e6 * 8 / 50e9, rel=1e-9)
    for far in ("512 B", "4 KiB", "33 KiB"):
        p = convolve(lined, wl(strided(far, "L1 = 1.0")), extrapolate=True)
        assert p.seconds("memory") == pytest.approx(one_line, rel=1e-9)
        assert not p.extrapolations


def test_l1_hits_of_a_short_stride_read_between_the_plain_curve_and_one_line(lined):
    # 16 B: a third of the way from 8 B to 64 B in log stride.  Each curve is read at half the
    # 32 KiB L1 or its largest point inside L1 if smaller: the plain curve (8 B) at 16 KiB,
    # two thirds of the way from 4 KiB (200 GB/s) to 32 KiB (100 GB/s) in log size; the 64 B
    # sweep at 4 KiB (50 GB/s)
    plain = 200e9 * 0.5 ** (2 / 3)
    p = convolve(lined, wl(strided("16 B", "L1 = 1.0")))
    assert p.seconds("memory") == pytest.approx(1e6 * 8 / (plain * (50e9 / plain) ** (1 / 3)),
                                                rel=1e-9)


def test_shares_beyond_l1_keep_the_entrys_stride(lined):
    # half the accesses hit L1 (50 GB/s, as above), half come from memory at the 4 KiB stride's
    # 64 MiB point (0.2 GB/s): the entry's footprint caps nothing there
    p = convolve(lined, wl(strided("4 KiB", "L1 = 0.5, memory = 0.5", ws="64 MiB")))
    assert p.seconds("memory") == pytest.approx(0.5e6 * 8 / 50e9 + 0.5e6 * 8 / 0.2e9, rel=1e-9)


def test_an_entry_without_hit_rates_is_read_at_its_working_set_as_before(lined):
    # no hit rates: the stride sweep at the entry's own stride and working set (4 KiB: 4 GB/s)
    p = convolve(lined, wl("[[phases.memory]]\nops = 1e6\nstride = '4 KiB'\nworking_set = '4 KiB'\n"))
    assert p.seconds("memory") == pytest.approx(1e6 * 8 / 4e9, rel=1e-9)


def test_without_line_sizes_the_l1_share_reads_the_entrys_own_stride_inside_l1():
    # shaped_doc's host lists no line size: the 4 KiB stride read at its 4 KiB point (inside
    # the 32 KiB L1), not interpolated towards its 64 MiB point
    sig = Signature.from_dict(shaped_doc())
    p = convolve(sig, wl(strided("4 KiB", "L1 = 1.0")))
    assert p.seconds("memory") == pytest.approx(1e6 * 8 / 4e9, rel=1e-9)
    assert math.isfinite(p.low_s)
