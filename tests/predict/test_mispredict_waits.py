"""Mispredicted branches that wait for a load served below L1 (``[phases.instructions]
mispredicted_waits``): read and checked, and priced as the penalty plus the load's latency at
that level beyond an L1 load's, read off MAPS random (a chase).  The expected times are computed
here from the synthetic signature's two random points by log-log interpolation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import KiB, MiB, synthetic_doc
from test_core_resource import PENALTY, core_points

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.inputs.workload_data import Instructions
from pinchpoint.prediction.convolve import convolve


def _signature(random: bool = True) -> Signature:
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points()}
    if not random:
        doc["kernels"]["maps"]["points"] = [p for p in doc["kernels"]["maps"]["points"]
                                            if p["pattern"] != "random"]
    return Signature.from_dict(doc)


SIG = _signature()
#: the synthetic MAPS random load: 5 GB/s at 4 KiB, 20 MB/s at 64 MiB (8 B per load)
RANDOM = ((4 * KiB, 5e9), (64 * MiB, 2e7))


def chase_ns(ws: float) -> float:
    """ns per dependent 8-byte load at ``ws``: log-log interpolation written out here."""
    (x0, y0), (x1, y1) = RANDOM
    f = (math.log(ws) - math.log(x0)) / (math.log(x1) - math.log(x0))
    return 8 / math.exp(math.log(y0) + f * (math.log(y1) - math.log(y0))) * 1e9


#: the synthetic host: L1 32 KiB, L2 512 KiB.  L2 is read at the middle of its range
#: (sqrt(32 KiB x 512 KiB) = 128 KiB), memory at the largest point, L1 at half its size.
WAIT_NS = {"L2": chase_ns(128 * KiB) - chase_ns(16 * KiB),
           "memory": chase_ns(64 * MiB) - chase_ns(16 * KiB)}


def workload(waits: str, mispredicted: float = 1e6, threads: int = 1, file: str = "w.toml"):
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"search\"\nthreads = {threads}\n"
                          f"[phases.instructions]\ntotal = 1e7\nbranches = 2e6\n"
                          f"mispredicted = {mispredicted!r}\n{waits}", file=file)


def test_waits_are_read_and_round_trip():
    w = workload("mispredicted_waits = { L2 = 3e5, memory = 1e5 }\n")
    ins = w.phases[0].instructions
    assert ins.mispredicted_waits == (("L2", 3e5, None), ("memory", 1e5, None))
    assert w.phases[0].to_dict()["instructions"]["mispredicted_waits"] == {"L2": 3e5,
                                                                            "memory": 1e5}
    assert ins.scaled(2).mispredicted_waits == (("L2", 6e5, None), ("memory", 2e5, None))
    assert "mispredicted_waits" not in workload("").phases[0].to_dict()["instructions"]


@pytest.mark.parametrize("waits, key, words", [
    ("mispredicted_waits = { L1 = 5 }\n", "mispredicted_waits.L1", "unknown key"),
    ("mispredicted_waits = { L2 = -5 }\n", "mispredicted_waits.L2", "negative"),
    ("mispredicted_waits = { L2 = 'x' }\n", "mispredicted_waits.L2", "not a number"),
    ("mispredicted_waits = 5\n", "mispredicted_waits", "expected"),
    ("mispredicted_waits = { L2 = 6e5, L3 = 5e5 }\n", "mispredicted_waits",
     "more than the 1e+06 mispredicted"),
])
def test_bad_waits_name_the_file_and_key(waits, key, words):
    with pytest.raises(WorkloadError) as exc:
        workload(waits)
    assert exc.value.file == "w.toml"
    assert exc.value.key == f"phases[0].instructions.{key}"
    assert words in exc.value.message


def test_the_object_cannot_exist_invalid():
    for waits in ((("L1", 1.0),), (("L2", -1.0),), (("L2", float("nan")),), (("L2", 11.0),)):
        with pytest.raises(WorkloadError):
            Instructions(100, 20, 10, mispredicted_waits=waits)


@settings(max_examples=40, deadline=None)
@given(l2=st.floats(0, 4e5), memory=st.floats(0, 4e5), threads=st.integers(1, 4))
def test_each_wait_adds_its_level_latency_beyond_l1(l2, memory, threads):
    base = convolve(SIG, workload("", threads=threads)).seconds("core")
    got = convolve(SIG, workload(f"mispredicted_waits = {{ L2 = {l2!r}, memory = {memory!r} }}\n",
                                 threads=threads)).seconds("core")
    want = (l2 * WAIT_NS["L2"] + memory * WAIT_NS["memory"]) * 1e-9 / threads
    assert got - base == pytest.approx(want, rel=1e-9, abs=1e-15)
    # the base itself: instructions at 10 G/s, branches at 2 G/s, 1e6 mispredictions
    assert base == pytest.approx((max(1e7 / 10e9, 2e6 / 2e9) + 1e6 * PENALTY) / threads)


def test_a_memory_wait_costs_the_chase_at_dram_less_l1():
    # 400 ns at 64 MiB less 1.6 x (16/4)^(log 250 / log 16384) ns at 16 KiB
    assert WAIT_NS["memory"] == pytest.approx(400 - chase_ns(16 * KiB))
    p = convolve(SIG, workload("mispredicted_waits = { memory = 1e6 }\n"))
    core = next(r for r in p.phases[0].resources if r.name == "core")
    assert "wait" in core.detail and "memory" in core.detail


def test_a_level_the_host_lacks_is_refused():
    with pytest.raises(WorkloadError) as exc:
        convolve(SIG, workload("mispredicted_waits = { L3 = 10 }\n"))
    assert "L3" in exc.value.message and exc.value.key.endswith("mispredicted_waits.L3")


def test_without_maps_random_it_is_refused_or_left_out_and_listed():
    sig = _signature(random=False)
    w = workload("mispredicted_waits = { L2 = 1e5 }\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, w)
    assert "MAPS random" in exc.value.message
    p = convolve(sig, w, extrapolate=True)
    assert p.seconds("core") == pytest.approx(convolve(sig, workload("")).seconds("core"))
    assert any("MAPS random" in e for e in p.extrapolations)


def test_the_cli_refuses_a_bad_wait_in_one_line_with_exit_2(capsys, tmp_path):
    import json

    from pinchpoint.cli import main
    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(synthetic_doc()))
    f = tmp_path / "w.toml"
    for waits, words in (("{ L2 = nan }", "not a finite number"),
                         ("{ L2 = 6e5, memory = 6e5 }", "more than the 1e+06 mispredicted")):
        f.write_text(f"schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 1e7\n"
                     f"branches = 2e6\nmispredicted = 1e6\nmispredicted_waits = {waits}\n")
        assert main(["predict", "--workload", str(f), "--signature", str(sig)]) == 2
        err = capsys.readouterr().err
        assert str(f) in err and "instructions.mispredicted_waits" in err and words in err
        assert len(err.strip().splitlines()) == 1


@given(st.dictionaries(st.integers(0, 5), st.dictionaries(
    st.sampled_from(("L2", "L3", "memory")),
    st.tuples(st.floats(0, 1e9), st.floats(0, 1e9)), min_size=1), min_size=1))
def test_a_load_makes_mispredictions_wait_at_most_once_per_execution(waits):
    """Two branches on one loaded value (a probe loop's ``slot == 0`` and ``slot == key``)
    both resolve when it arrives: the waits a level serves are, per waiting load, the fewer of
    its branches' waiting mispredictions and its executions that level serves."""
    from pinchpoint.prediction.trace.waits import capped_waits

    per_load = {("prog", "kernel", a): {"served": (), "levels": levels}
                for a, levels in waits.items()}
    got = capped_waits(per_load)
    for level in ("L2", "L3", "memory"):
        pairs = [lv[level] for lv in waits.values() if level in lv]
        if not pairs:
            assert level not in got
            continue
        assert got[level] == pytest.approx(sum(min(n, e) for n, e in pairs))
        assert got[level] <= sum(n for n, _ in pairs) + 1e-6
        assert got[level] <= sum(e for _, e in pairs) + 1e-6


def test_two_branches_on_one_probe_wait_once_per_probe():
    from pinchpoint.prediction.trace.waits import capped_waits

    # 157 k and 57 k mispredictions of two branches on 70 k and 31 k probes served by L3 and
    # memory: at most the probes wait
    got = capped_waits({("p", "k", 0x10): {"levels": {"L3": (157e3, 70e3), "memory": (57e3, 31e3)}},
                         ("p", "k", 0x40): {"levels": {"L3": (5e3, 40e3)}}})
    assert got == {"L3": 75e3, "memory": 31e3}


def test_the_waited_for_footprint_is_read_checked_and_round_trips():
    w = workload('mispredicted_waits = { L2 = 3e5 }\nwaits_working_set = "64 KiB"\n')
    assert w.phases[0].instructions.waits_working_set == 64 * KiB
    again = w.phases[0].to_dict()["instructions"]
    assert again["waits_working_set"] == "65536 B"
    assert w.phases[0].instructions.scaled(3).waits_working_set == 64 * KiB  # not a count
    for bad, words in (('"-4 KiB"', "positive"), ("4096", "string with a unit"),
                       ('"4 ms"', "size")):
        with pytest.raises(WorkloadError) as exc:
            workload(f"mispredicted_waits = {{ L2 = 3e5 }}\nwaits_working_set = {bad}\n")
        assert exc.value.key == "phases[0].instructions.waits_working_set"
    for ws in (0.0, -1.0, float("inf"), True):
        with pytest.raises(WorkloadError):
            Instructions(100, 20, 10, waits_working_set=ws)


@pytest.mark.parametrize("footprint, read_at", [
    (64 * KiB, 64 * KiB),     # inside the level, below its middle: read at the footprint
    (8 * KiB, 32 * KiB),      # below the level: at its smallest (the L1's size)
    (4 * MiB, 128 * KiB),     # past the middle: the middle, as without a footprint
])
def test_a_wait_is_read_at_the_loads_footprint_up_to_the_levels_middle(footprint, read_at):
    base = convolve(SIG, workload("")).seconds("core")
    got = convolve(SIG, workload(f'mispredicted_waits = {{ L2 = 1e5 }}\n'
                                 f'waits_working_set = "{footprint} B"\n')).seconds("core")
    assert got - base == pytest.approx(1e5 * (chase_ns(read_at) - chase_ns(16 * KiB)) * 1e-9,
                                       rel=1e-9)
    # a memory wait at the footprint too, but past the last cache (the 512 KiB L2)
    mem = convolve(SIG, workload(f'mispredicted_waits = {{ memory = 1e5 }}\n'
                                 f'waits_working_set = "{footprint} B"\n')).seconds("core")
    at = max(footprint, 512 * KiB)
    assert mem - base == pytest.approx(1e5 * (chase_ns(at) - chase_ns(16 * KiB)) * 1e-9, rel=1e-9)


def test_a_memory_wait_reads_no_further_than_the_largest_working_set():
    base = convolve(SIG, workload("")).seconds("core")
    mem = convolve(SIG, workload('mispredicted_waits = { memory = 1e5 }\n'
                                 'waits_working_set = "1 GiB"\n')).seconds("core")
    assert mem - base == pytest.approx(1e5 * WAIT_NS["memory"] * 1e-9, rel=1e-9)


def test_a_groups_own_footprint_is_read_where_it_lies_in_the_level():
    """The phase's waits_working_set only narrows a level's middle; a group's own working set
    (a trace's near or far half of a probed last level) is read where it lies in the level,
    from the level above up to the level's size."""
    base = convolve(SIG, workload("")).seconds("core")
    for ws, read_at in ((400 * KiB, 400 * KiB), (4 * MiB, 512 * KiB), (8 * KiB, 32 * KiB)):
        got = convolve(SIG, workload(f'mispredicted_waits = [{{ level = "L2", count = 1e5, '
                                     f'working_set = "{ws} B" }}]\n')).seconds("core")
        assert got - base == pytest.approx(1e5 * (chase_ns(read_at) - chase_ns(16 * KiB)) * 1e-9,
                                           rel=1e-9)
    shared = convolve(SIG, workload('mispredicted_waits = { L2 = 1e5 }\n'
                                    'waits_working_set = "400 KiB"\n')).seconds("core")
    assert shared - base == pytest.approx(1e5 * (chase_ns(128 * KiB) - chase_ns(16 * KiB)) * 1e-9,
                                          rel=1e-9)
