"""Vector shuffles in ``[phases.instructions]`` (``shuffles``: the shuffle unit's kinds;
``lane_shuffles``: fixed-pattern in-lane ones): read and checked, priced by the core kernel's
shuffle and shuffle_lane loops as bounds beside the other core counts (in the max, not added):
shuffles / R_shuffle and (shuffles + lane_shuffles) / R_lane; refused (or, with --extrapolate,
only the shuffle bound left out) where the signature lacks the loops.  Times are checked
against the formula written out here with round figures."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc
from test_core_resource import BRANCH, ISSUE, core_points

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload, workload_from_dict
from pinchpoint.inputs.workload_data import Instructions
from pinchpoint.prediction.convolve import RESOURCES, convolve

#: the shuffle unit: 2 G shuffles/s, a fifth of the synthetic 10 G instructions/s; the in-lane
#: kinds 4 G/s
SHUF, LANE = 2e9, 4e9


def shuffle_points(unit: bool = True, lane: bool = True) -> list[dict]:
    pts = []
    if unit:
        pts.append({"op": "shuffle", "width_bits": 256, "kinds": "shuffle unit",
                    "result": result("instruction/s", SHUF)})
    if lane:
        pts.append({"op": "shuffle_lane", "width_bits": 256, "kinds": "fixed in-lane",
                    "result": result("instruction/s", LANE)})
    return pts


def signature(**kw) -> Signature:
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + shuffle_points(**kw)}
    return Signature.from_dict(doc)


SIG = signature()


def workload(table: str, threads: int = 1, repeat: float = 1.0, file: str = "w.toml"):
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"loop\"\nthreads = {threads}\n"
                          f"repeat = {repeat!r}\n[phases.instructions]\n{table}", file=file)


def expected(total, branches=0.0, shuf=0.0, lane=0.0, threads=1):
    """max(total / 10 G/s, branches / 2 G/s, shuffles / 2 G/s, (shuffles + lane) / 4 G/s), per
    thread; the second shuffle bound only where the phase has in-lane shuffles."""
    both = (shuf + lane) / LANE if lane > 0 else 0.0
    return max(total / ISSUE, branches / BRANCH, shuf / SHUF, both) / threads


def table(total, branches=0.0, shuf=0.0, lane=0.0) -> str:
    return (f"total = {total!r}\nbranches = {branches!r}\nshuffles = {shuf!r}\n"
            f"lane_shuffles = {lane!r}\n")


@pytest.mark.parametrize("counts, threads", [
    # a byte count widened to 64-bit sums: 43 instructions, 21 shuffles per 32 bytes
    ((43e6, 1e6, 21e6, 0.0), 1),   # shuffles 10.5 ms against 4.3 ms of instructions
    ((43e6, 1e6, 21e6, 0.0), 2),
    ((1e9, 1e8, 1e7, 0.0), 1),     # few shuffles: the instructions bind
    ((1e9, 0.0, 2e8, 0.0), 1),     # shuffles and instructions tie at 0.1 s
    ((1e9, 0.0, 1e8, 5e8), 1),     # both kinds: 6e8 at 4 G/s = 0.15 s binds
    ((1e9, 0.0, 0.0, 8e8), 3),     # nothing but in-lane shuffles: 0.2 s / 3
])
def test_the_shuffle_bounds_join_the_max_of_the_core_time(counts, threads):
    p = convolve(SIG, workload(table(*counts), threads))
    assert p.seconds("core") == pytest.approx(expected(*counts, threads=threads), rel=1e-12)


def test_a_byte_count_is_held_by_its_shuffles_not_by_dispatch():
    # 21 shuffles in 43 instructions per 32 bytes, 1e6 iterations: 21e6 / 2 G/s = 10.5 ms,
    # not the 4.3 ms the instruction rate alone gives
    p = convolve(SIG, workload(table(43e6, shuf=21e6)))
    assert p.seconds("core") == pytest.approx(10.5e-3, rel=1e-12)
    detail = p.resources[RESOURCES.index("core")].detail
    assert "2.1e+07 shuffle-unit shuffles at 2 G/s (core shuffle)" in detail
    # the in-lane kinds' pipes take the shuffle unit's kinds too: 21e6 + 21e6 at 4 G/s
    p = convolve(SIG, workload(table(43e6, shuf=21e6, lane=21e6)))
    assert p.seconds("core") == pytest.approx(10.5e-3, rel=1e-12)
    assert ("4.2e+07 in-lane shuffles at 4 G/s (core shuffle_lane)"
            in p.resources[RESOURCES.index("core")].detail)


def test_zero_counts_need_no_shuffle_loop():
    plain = convolve(signature(unit=False, lane=False), workload("total = 1e9\n"))
    zero = convolve(signature(unit=False, lane=False), workload(table(1e9)))
    assert plain.to_dict()["resources"] == zero.to_dict()["resources"]
    assert plain.seconds("core") == pytest.approx(0.1)


@pytest.mark.parametrize("missing, count, loop", [
    (dict(unit=False), "shuffles", "shuffle"),
    (dict(lane=False), "lane_shuffles", "shuffle_lane"),
])
def test_a_signature_without_the_loop_is_refused_or_only_the_shuffle_bound_left_out(
        missing, count, loop):
    sig = signature(**missing)
    w = workload(f"total = 1e9\n{count} = 9e8\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, w)
    assert exc.value.file == "w.toml" and exc.value.key == f"phases[0].instructions.{count}"
    assert f"need the core kernel's {loop} loop" in exc.value.message
    p = convolve(sig, w, extrapolate=True)
    # the instructions are still priced; only the shuffle bound (0.45 or 0.225 s) is left out
    assert p.seconds("core") == pytest.approx(0.1)
    assert any(f"instructions.{count}" in e and "no shuffle bound" in e for e in p.extrapolations)


def test_the_counts_are_read_checked_and_written():
    ins = workload(table(10, shuf=4, lane=3)).phases[0].instructions
    assert (ins.total, ins.shuffles, ins.lane_shuffles) == (10, 4, 3)
    assert ins.to_dict() == {"total": 10, "branches": 0, "mispredicted": 0, "shuffles": 4,
                             "lane_shuffles": 3}
    assert "shuffles" not in Instructions(10).to_dict()  # absent: written as before
    assert (Instructions(4, shuffles=3, lane_shuffles=1).scaled(2)
            == Instructions(8, shuffles=6, lane_shuffles=2))


@pytest.mark.parametrize("tab, key, words", [
    ("total = 5\nshuffles = 6\n", "shuffles", "more than the 5 total"),
    ("total = 5\nlane_shuffles = 6\n", "lane_shuffles", "more than the 5 total"),
    # two kinds of the same instructions: together at most the total
    ("total = 5\nshuffles = 3\nlane_shuffles = 3\n", "lane_shuffles", "three kinds are more"),
    ("total = 5\nlane_shuffles = 3\nfp_shuffles = 3\n", "fp_shuffles", "three kinds are more"),
    ("total = 5\nfp_shuffles = 6\n", "fp_shuffles", "more than the 5 total"),
    ("total = 5\nfp_shuffles = -1\n", "fp_shuffles", "negative"),
    ("total = 5\nshuffles = -1\n", "shuffles", "negative"),
    ("total = 5\nlane_shuffles = 'one'\n", "lane_shuffles", "not a number"),
    ("total = 5\nshuffles = inf\n", "shuffles", "finite"),
    ("total = 5\nlane_shuffles = nan\n", "lane_shuffles", "not a finite number"),
])
def test_bad_counts_name_the_file_and_key(tab, key, words):
    with pytest.raises(WorkloadError) as exc:
        workload(tab)
    assert (exc.value.file, exc.value.key) == ("w.toml", f"phases[0].instructions.{key}")
    assert words in exc.value.message


def test_cli_refuses_too_many_shuffles_in_one_line_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(SIG.to_dict()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 5\nshuffles = 6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "w.toml" in err and "instructions.shuffles" in err
    assert "Traceback" not in err
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 43e6\nshuffles = 21e6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--json"]) == 0
    core = next(r for r in json.loads(capsys.readouterr().out)["resources"] if r["name"] == "core")
    assert core["seconds"] == pytest.approx(10.5e-3)


def test_shuffle_points_carry_instruction_units():
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + [
        {"op": "shuffle", "result": result("operation/s", SHUF)}]}
    with pytest.raises(SignatureError, match="instruction/s"):
        Signature.from_dict(doc)


counts = st.floats(0, 1e12, allow_nan=False)


@st.composite
def tables(draw):
    """(total, branches, shuffles, lane_shuffles), shuffles + lane_shuffles <= total."""
    total = draw(counts)
    shuf = total * draw(st.floats(0, 1))
    return (total, total * draw(st.floats(0, 1)), shuf, (total - shuf) * draw(st.floats(0, 1)))


def _core(tab, threads=1, repeat=1.0) -> float:
    ph = {"threads": threads, "repeat": repeat, "instructions": dict(zip(
        ("total", "branches", "shuffles", "lane_shuffles"), tab))}
    return convolve(SIG, workload_from_dict({"schema": 1, "phases": [ph]})).seconds("core")


@settings(max_examples=80, deadline=None)
@given(tables(), st.floats(0, 1), st.integers(1, 16), st.floats(0, 10))
def test_more_shuffles_never_predict_less_and_the_time_is_the_formula(tab, more, threads, rep):
    total, branches, shuf, lane = tab
    t = _core(tab, threads, rep)
    assert t == pytest.approx(expected(*(c * rep for c in tab), threads=threads),
                              rel=1e-9, abs=1e-300)
    # an in-lane shuffle turned into one of the shuffle unit's never predicts less
    moved = lane * more
    assert _core((total, branches, shuf + moved, lane - moved), threads, rep) >= t * (1 - 1e-9)
    assert t >= _core((total, branches, 0.0, 0.0), threads, rep) * (1 - 1e-12)


# -- the third kind: in-lane shuffles of floating-point elements, on pipes read off the rates --

def fp_signature(fp_rate: float | None) -> Signature:
    """The synthetic signature with a shuffle_fp loop at ``fp_rate`` (None: not measured)."""
    doc = synthetic_doc()
    pts = core_points() + shuffle_points()
    if fp_rate is not None:
        pts.append({"op": "shuffle_fp", "width_bits": 256, "kinds": "fixed in-lane floating-point",
                    "result": result("instruction/s", fp_rate)})
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    return Signature.from_dict(doc)


def fp_table(total, shuf=0.0, lane=0.0, fp=0.0) -> str:
    return table(total, 0.0, shuf, lane) + f"fp_shuffles = {fp!r}\n"


@pytest.mark.parametrize("fp_rate, counts, seconds", [
    # Intel from Ice Lake: the unit's kinds and the FP kinds on one port (2 G/s), the other
    # in-lane kinds on two (4 G/s).  An array-of-structures loop: 22 lane-crossing vpermpd and
    # 22 vunpck*pd per step, 1e6 steps: (22 + 22) / 2 G/s = 22 ms, not 22 / 2 or 44 / 4 (11 ms)
    (2e9, (1e8, 22e6, 0.0, 22e6), 22e-3),
    # with 40e6 in-lane ones too: max((22 + 22) / 2, (22 + 40 + 22) / 4) = 22 ms, then 84 / 4
    (2e9, (1e8, 22e6, 40e6, 22e6), 22e-3),
    (2e9, (2e8, 22e6, 80e6, 22e6), 31e-3),
    # an FP kind measured within 25 % of the unit's (2.4 G/s against 2): the same port, so
    # each of the two levels takes both kinds: max(44 / 2, 44 / 2.4) = 22 ms
    (2.4e9, (1e8, 22e6, 0.0, 22e6), 22e-3),
    # AMD Zen 5: the FP kinds run as fast as the other in-lane ones (4 G/s): one level of 4
    (4e9, (1e8, 22e6, 0.0, 22e6), 11e-3),
    (4e9, (5e7, 0.0, 0.0, 36e6), 9e-3),
    # FP kinds alone on their one port: 36e6 / 2 G/s
    (2e9, (1e8, 0.0, 0.0, 36e6), 18e-3),
])
def test_each_kind_takes_the_pipes_of_every_kind_no_faster(fp_rate, counts, seconds):
    p = convolve(fp_signature(fp_rate), workload(fp_table(*counts)))
    assert p.seconds("core") == pytest.approx(seconds, rel=1e-12)


def test_a_signature_without_the_fp_loop_prices_the_fp_kinds_as_in_lane_ones():
    # 22e6 unit + 22e6 FP at the in-lane rate: max(22 / 2, 44 / 4) = 11 ms, as before the loop
    p = convolve(fp_signature(None), workload(fp_table(1e8, 22e6, 0.0, 22e6)))
    assert p.seconds("core") == pytest.approx(11e-3, rel=1e-12)
    detail = p.resources[RESOURCES.index("core")].detail
    assert "priced as the other in-lane ones (core shuffle_fp not measured)" in detail
    assert not p.extrapolations


@st.composite
def mixes(draw):
    """(total, shuffles, lane_shuffles, fp_shuffles), the three within the total."""
    total = draw(st.floats(1, 1e12))
    shares = [draw(st.floats(0, 1)) for _ in range(3)]
    scale = max(1.0, sum(shares)) * (1 + 1e-9)  # the three summed within the total, rounded
    return (total, *(total * x / scale for x in shares))


@settings(max_examples=80, deadline=None)
@given(mixes(), st.sampled_from([1e9, 2e9, 3e9, 4e9, 8e9]), st.floats(0, 1))
def test_the_shuffle_time_lies_between_its_kinds_alone_and_all_on_the_slowest(mix, fp_rate, move):
    total, shuf, lane, fp = mix
    sig = fp_signature(fp_rate)
    t = convolve(sig, workload(fp_table(*mix))).seconds("core")
    rates = {"shuffles": SHUF, "lane_shuffles": LANE, "fp_shuffles": fp_rate}
    own = max(n / r for n, r in zip((shuf, lane, fp), rates.values()))
    slowest = (shuf + lane + fp) / min(r for n, r in zip((shuf, lane, fp), rates.values()) if n > 0) \
        if shuf + lane + fp > 0 else 0.0
    assert max(own, total / ISSUE) * (1 - 1e-9) <= t <= max(slowest, total / ISSUE) * (1 + 1e-9)
    # an in-lane shuffle turned into one of a kind measured no faster never predicts less
    if fp_rate <= LANE:
        moved = lane * move
        t2 = convolve(sig, workload(fp_table(total, shuf, lane - moved, fp + moved))).seconds("core")
        assert t2 >= t * (1 - 1e-9)
