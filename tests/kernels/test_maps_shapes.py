"""MAPS's access-shape sweeps (streams, strides, trips), gather update and the CPU list of
--pin: each point names its shape, counts 8 B per access, and refuses what it cannot run."""

from __future__ import annotations

import os

import pytest

from pinchpoint.errors import MeasurementError
from pinchpoint.measure.runner import run_kernel

FAST = ["--reps", "2", "--min-time", "0.0005", "--max-seconds", "60"]


def maps(binaries, *args):
    return run_kernel(binaries["maps"], FAST + list(args), kernel="maps", timeout=120).points


def test_stream_stride_and_trip_points_name_their_shape(binaries):
    pts = maps(binaries, "--ops", "load,store", "--streams", "2,8", "--sizes", "64K")
    assert sorted((p["params"]["op"], p["params"]["streams"]) for p in pts) == \
        [("load", 2), ("load", 8), ("store", 2), ("store", 8)]
    pts = maps(binaries, "--ops", "store", "--strides", "64,33088", "--sizes", "16K,1M")
    # a 33088 B stride needs two rows of 4136 elements: not in 16 KiB (2048 elements)
    assert sorted((p["params"]["stride_bytes"], p["params"]["working_set_bytes"]) for p in pts) == \
        [(64, 16384), (64, 1048576), (33088, 1048576)]
    pts = maps(binaries, "--ops", "load", "--trips", "4,64", "--sizes", "16K")
    assert [p["params"]["trips"] for p in pts] == [4, 64]
    assert all(r > 0 for p in pts for r in p["repetitions"])


def test_strided_walks_are_slower_than_unit_stride_per_byte(binaries):
    """At 64 MiB a 4160 B stride touches a new line and a new page per 8 B counted: far below
    the unit-stride sweep of the same array (a miscounted stride would not be)."""
    plain = maps(binaries, "--ops", "load", "--sizes", "64M")[0]["repetitions"]
    wide = maps(binaries, "--ops", "load", "--strides", "4160", "--sizes", "64M")[0]["repetitions"]
    assert max(wide) < max(plain) / 4


def test_gather_update_runs_and_shapes_refuse_other_ops(binaries):
    pts = maps(binaries, "--ops", "update", "--patterns", "gather", "--sizes", "64K")
    assert pts[0]["params"]["op"] == "update" and pts[0]["params"]["pattern"] == "gather"
    for bad in (["--ops", "copy", "--streams", "2"], ["--ops", "store", "--trips", "4"],
                ["--ops", "load", "--patterns", "gather", "--strides", "64"],
                ["--ops", "load", "--strides", "12"], ["--ops", "load", "--streams", "2", "--trips", "4"]):
        with pytest.raises(MeasurementError):
            maps(binaries, *bad, "--sizes", "64K")


def test_gather_copy_holds_three_arrays_and_triad_is_refused(binaries):
    """y[i] = x[idx[i]]: idx, x and y of 4096 elements each in a 96 KiB working set."""
    pts = maps(binaries, "--ops", "copy", "--patterns", "gather", "--sizes", "96K,100K")
    assert [(p["params"]["op"], p["params"]["pattern"]) for p in pts] == [("copy", "gather")] * 2
    # 100 KiB: 4266 elements per array, rounded down to an even count (the gather's quantum)
    assert [p["params"]["working_set_bytes"] for p in pts] == [3 * 8 * 4096, 3 * 8 * 4266]
    assert all(r > 0 for p in pts for r in p["repetitions"])
    with pytest.raises(MeasurementError):
        maps(binaries, "--ops", "triad", "--patterns", "gather", "--sizes", "96K")


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")
def test_pin_takes_a_cpu_list(binaries):
    cpus = sorted(os.sched_getaffinity(0))
    pts = maps(binaries, "--ops", "load", "--threads", str(len(cpus)), "--pin",
               ",".join(map(str, cpus)), "--sizes", "64K")
    assert pts and pts[0]["params"]["threads"] == len(cpus)


def test_gather_pads_name_their_pad_and_slow_the_gather_from_memory(binaries):
    """From memory each pad instruction holds the window's room for misses: 64 extra adds per
    access take far longer than 8 (about 70 against 13 ns on the Zen 5 VM at 64 MiB, 2.3-2.6
    times as long on an Intel Xeon VM at 256 MiB).  At 64 MiB that VM's L3 holds part of the
    working set: 2.0-2.6 times on a quiet machine, 1.47 beside the other half of the test
    suite.  Other ops, patterns and pads are refused."""
    pts = maps(binaries, "--ops", "load", "--patterns", "gather", "--pads", "8,64",
               "--sizes", "256M")
    assert [(p["params"]["pattern"], p["params"]["pad"]) for p in pts] == [("gather", 8), ("gather", 64)]
    assert max(pts[1]["repetitions"]) < min(pts[0]["repetitions"]) / 1.5
    for bad in (["--ops", "store", "--patterns", "gather", "--pads", "8"],
                ["--ops", "load", "--patterns", "gather", "--pads", "12"],
                ["--ops", "load", "--patterns", "gather", "--pads", "128"],
                ["--ops", "load", "--patterns", "random", "--pads", "8"],
                ["--ops", "store", "--pads", "8"], ["--ops", "load", "--pads", "24"],
                ["--ops", "load", "--patterns", "gather", "--pads", "8", "--trips", "4"]):
        with pytest.raises(MeasurementError):
            maps(binaries, *bad, "--sizes", "64K")


def test_stream_pads_are_a_chain_per_line_that_sets_the_time_inside_l1(binaries):
    """The stride-1 load with a chain of P dependent adds per 64-byte line: inside L1 the chain
    is the loop's time, one add a cycle, so 256 adds a line take about eight times as long as
    32 (a chain folded away or run in parallel would not)."""
    pts = maps(binaries, "--ops", "load", "--pads", "32,256", "--sizes", "16K")
    assert [(p["params"]["pattern"], p["params"]["pad"]) for p in pts] == [("stride1", 32), ("stride1", 256)]
    ratio = min(pts[0]["repetitions"]) / max(pts[1]["repetitions"])
    assert 5 < ratio < 10


def test_a_shape_sweep_runs_every_shape_at_a_size_before_the_next_size(binaries):
    """Sizes outside shapes: a sweep cut short by its time bound loses its largest working sets
    (a strided walk of 2 GiB takes seconds per call), not its last strides."""
    pts = maps(binaries, "--ops", "load", "--strides", "64,4160,576", "--sizes", "64K,1M")
    assert [(p["params"]["working_set_bytes"], p["params"]["stride_bytes"]) for p in pts] == \
        [(65536, 64), (65536, 4160), (65536, 576), (1048576, 64), (1048576, 4160), (1048576, 576)]


def test_every_gather_and_shape_op_has_a_time_bound_of_its_own():
    """On a VM reporting a 480 MiB L3 the sweeps reach 2 GiB: one job of four gather ops ran out
    of time in the copy, and one of strided loads and stores in the loads."""
    from pinchpoint.measure.session import make_plan

    plan = make_plan("quick", ("maps",), llc_bytes=480 << 20, cpus=1, mpi=False,
                     memory_bytes=24 << 30)
    ops = {}
    for job in plan.jobs:
        args = list(job.args)
        pattern = args[args.index("--patterns") + 1]
        shape = next((f for f in ("--streams", "--strides", "--trips") if f in args), "")
        ops.setdefault((pattern, shape), []).append(args[args.index("--ops") + 1])
    assert sorted(ops[("gather", "")]) == ["copy", "load", "store", "update"]
    assert sorted(ops[("stride1", "--strides")]) == sorted(ops[("stride1", "--streams")]) == \
        ["load", "store"]


def test_a_scatter_into_buckets_stores_and_refuses_other_ops(binaries):
    """Stores into 256 buckets filled in turn: the bucket sequence and x in equal halves of
    the working set, 8 B counted per store; loads are no scatter."""
    pts = maps(binaries, "--ops", "store", "--patterns", "scatter", "--sizes", "64K,1M")
    assert [(p["params"]["op"], p["params"]["pattern"], p["params"]["working_set_bytes"])
            for p in pts] == [("store", "scatter", 65536), ("store", "scatter", 1048576)]
    assert all(r > 0 for p in pts for r in p["repetitions"])
    for bad in (["--ops", "load"], ["--ops", "update"], ["--ops", "store", "--streams", "2"]):
        with pytest.raises(MeasurementError):
            maps(binaries, *bad, "--patterns", "scatter", "--sizes", "64K")


def test_a_scatter_past_the_caches_is_slower_per_store_than_a_stream(binaries):
    """Beyond the caches each bucket's new line is a miss the prefetchers do not foresee (256
    streams), so a store costs more than one of a unit-stride store stream of the same size
    (a scatter walked as one stream would not)."""
    plain = maps(binaries, "--ops", "store", "--sizes", "128M")[0]["repetitions"]
    scatter = maps(binaries, "--ops", "store", "--patterns", "scatter", "--sizes", "256M")[0]
    assert max(scatter["repetitions"]) < max(plain) / 2
