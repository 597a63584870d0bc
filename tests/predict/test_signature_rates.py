"""One signature-rates policy: measured ceilings, detect and the convolution read a signature's
memory bandwidth alike (pinchpoint.prediction.rates)."""

from __future__ import annotations

import pytest

from pinchpoint.measure import detect
from pinchpoint.solve import measured_ceilings
from pinchpoint.prediction import rates as signature_rates
from pinchpoint.prediction.convolve import SignatureRates
from pinchpoint.inputs.signature import KernelRun, Point, Result, Signature, load_bundled



def _sig(kernels):
    return Signature({"name": "t", "cpu_model": "x"}, {}, "2026-01-01", kernels)


def _pt(value, **params):
    return Point(params, Result.from_repetitions("B/s", [value * 0.98, value, value * 1.01]))


MIXED = {
    "stream": KernelRun(None, (_pt(20e9, op="copy", working_set_bytes=402653184),
                               _pt(50e9, op="copy", working_set_bytes=24576))),  # in cache: not memory
    "maps": KernelRun(None, (_pt(14e9, op="load", pattern="stride1", threads=1, working_set_bytes=2 ** 27),
                             _pt(26e9, op="load", pattern="stride1", threads=2, working_set_bytes=2 ** 27),
                             _pt(90e9, op="load", pattern="stride1", threads=2, working_set_bytes=2 ** 14),
                             _pt(1e9, op="load", pattern="random", threads=2, working_set_bytes=2 ** 27))),
    "likwid_bench": KernelRun(None, (_pt(24e9, op="load", pattern="stride1", threads=2,
                                         working_set_bytes=2 ** 27),)),
}


@pytest.mark.parametrize("stat", ["median", "best"])
def test_measured_ceilings_and_detect_agree_on_mixed_sources(stat):
    sig = _sig(MIXED)
    got = signature_rates.memory_bandwidth(sig, stat)
    # the plateau (largest working set) at the most threads, the highest source: MAPS on 2 threads
    assert got.kernel == "maps" and got.point["threads"] == 2
    assert got.bytes_per_s == pytest.approx(26e9 * (1.01 if stat == "best" else 1.0))
    assert measured_ceilings.memory_figure(sig, stat)[0] == got.bytes_per_s
    if stat == "best":
        assert detect.memory_rate_from_signature(sig)[0] == got.bytes_per_s


def test_stream_wins_when_higher_and_copy_rate_follows_the_same_rule():
    sig = _sig(MIXED | {"stream": KernelRun(None, (_pt(30e9, op="copy", working_set_bytes=402653184),))})
    assert signature_rates.memory_bandwidth(sig).kernel == "stream"
    assert measured_ceilings.memory_figure(sig)[0] == 30e9
    assert detect.memory_rate_from_signature(sig)[0] == pytest.approx(30.3e9)
    assert measured_ceilings.copy_figure(sig) == (15e9, "stream copy / 2")


def test_peak_dot_stands_in_only_without_memory_sources():
    peak = KernelRun(None, (Point({"op": "dot", "loop_length": 4096}, Result.from_repetitions("flop/s", [1e9])),
                            Point({"op": "dot", "loop_length": 2 ** 22}, Result.from_repetitions("flop/s", [0.5e9]))))
    alone = signature_rates.memory_bandwidth(_sig({"peak": peak}))
    assert alone.peak_loop == "dot" and alone.bytes_per_s == 0.5e9 * 8  # longest loop x 8 B/flop
    assert measured_ceilings.memory_figure(_sig({"peak": peak}))[0] == alone.bytes_per_s
    assert detect.memory_rate_from_signature(_sig({"peak": peak}))[0] == alone.bytes_per_s
    assert signature_rates.memory_bandwidth(_sig(MIXED | {"peak": peak})).kernel == "maps"
    assert signature_rates.memory_bandwidth(_sig({"peak": peak}), op="copy") is None


@pytest.mark.parametrize("name", ["p690", "powermac-g5-xbench", "powermac-g5-linux-memory"])
def test_bundled_signatures_read_alike(name):
    sig = load_bundled(name)
    got = signature_rates.memory_bandwidth(sig, "best")
    assert got is not None
    assert measured_ceilings.memory_figure(sig, "best")[0] == got.bytes_per_s
    assert detect.memory_rate_from_signature(sig)[0] == got.bytes_per_s


def test_convolution_curve_at_the_plateau_is_the_policy_figure_for_one_maps_thread():
    """With MAPS the only source, measured on one thread, the convolution's DRAM plateau of a
    load is the policy's memory bandwidth; its curve comes from MAPS before likwid-bench."""
    maps_only = _sig({"maps": KernelRun(None, (
        _pt(30e9, op="load", pattern="stride1", threads=1, working_set_bytes=2 ** 14),
        _pt(12e9, op="load", pattern="stride1", threads=1, working_set_bytes=2 ** 27)))})
    rates = SignatureRates(maps_only)
    plateau = rates.memory_bandwidth("load", "stride1", None, "memory.load")
    assert plateau == signature_rates.memory_bandwidth(maps_only, "median", op="load").bytes_per_s == 12e9
    assert measured_ceilings.memory_figure(maps_only)[0] == plateau
    assert signature_rates.curve_kernel(_sig(MIXED), "load", "stride1") == "maps"
    no_maps = _sig({"likwid_bench": MIXED["likwid_bench"]})
    assert signature_rates.curve_kernel(no_maps, "load", "stride1") == "likwid_bench"
    assert SignatureRates(no_maps).memory_bandwidth("load", "stride1", None, "k", threads=2) == 24e9
