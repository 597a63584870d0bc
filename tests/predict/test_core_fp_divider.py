"""Floating-point divide and square-root instructions in ``[phases.instructions]``
(``fp_divisions``, ``fp_square_roots``): read and checked, priced per instruction by the core
kernel's fdiv and fsqrt loops as one divider bound (their times add) beside the other core
counts, while PEAK division keeps pricing their flops; refused (or, with --extrapolate, only the
divider bound left out) where the signature lacks the loops.  Times are checked against the
formula written out here with round figures."""

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

#: the divider: 4 ns per divide instruction, 8 ns per square root (the synthetic PEAK division
#: runs 1 G flop/s: a 4-lane packed divide per 4 ns, so scalar divides 4x slower per flop)
FDIV, FSQRT = 0.25e9, 0.125e9


def divider_points(fdiv: bool = True, fsqrt: bool = True) -> list[dict]:
    pts = []
    if fdiv:
        pts.append({"op": "fdiv", "precision": "double", "lanes": 1,
                    "result": result("instruction/s", FDIV)})
        # the packed loop, faster here: kept in the signature, pricing nothing
        pts.append({"op": "fdiv_ymm", "precision": "double", "lanes": 4,
                    "result": result("instruction/s", 4 * FDIV)})
    if fsqrt:
        pts.append({"op": "fsqrt", "precision": "double", "lanes": 1,
                    "result": result("instruction/s", FSQRT)})
    return pts


def signature(**kw) -> Signature:
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + divider_points(**kw)}
    return Signature.from_dict(doc)


SIG = signature()


def workload(table: str, threads: int = 1, repeat: float = 1.0, flops: str = "",
             file: str = "w.toml"):
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"loop\"\nthreads = {threads}\n"
                          f"repeat = {repeat!r}\n{flops}[phases.instructions]\n{table}", file=file)


def expected(total, branches=0.0, fdiv=0.0, fsqrt=0.0, threads=1):
    """max(total / 10 G/s, branches / 2 G/s, fdiv / 0.25 G/s + fsqrt / 0.125 G/s), per thread."""
    return max(total / ISSUE, branches / BRANCH, fdiv / FDIV + fsqrt / FSQRT) / threads


def table(total, branches=0.0, fdiv=0.0, fsqrt=0.0) -> str:
    return (f"total = {total!r}\nbranches = {branches!r}\nfp_divisions = {fdiv!r}\n"
            f"fp_square_roots = {fsqrt!r}\n")


@pytest.mark.parametrize("counts, threads", [
    ((20e6, 1e6, 1e6, 1e6), 1),    # an n-body pair: 20 instructions, a divide and a root: 12 ns
    ((20e6, 1e6, 1e6, 1e6), 2),
    ((1e9, 1e8, 1e6, 0.0), 1),     # few divides: the instructions bind
    ((1e9, 0.0, 2.5e7, 0.0), 1),   # divides and instructions tie at 0.1 s
    ((4e9, 0.0, 0.0, 4e9), 3),     # nothing but square roots
])
def test_the_divider_joins_the_max_of_the_core_time(counts, threads):
    p = convolve(SIG, workload(table(*counts), threads))
    assert p.seconds("core") == pytest.approx(expected(*counts, threads=threads), rel=1e-12)


def test_divides_and_square_roots_add_on_one_divider():
    # 1e6 of each: 4 ms + 8 ms = 12 ms, not the longer 8 ms (two units would overlap them)
    p = convolve(SIG, workload(table(1e6, fdiv=1e6, fsqrt=1e6)))
    assert p.seconds("core") == pytest.approx(12e-3, rel=1e-12)
    detail = p.resources[RESOURCES.index("core")].detail
    assert "1e+06 FP divide instructions at 0.25 G/s (core fdiv)" in detail
    assert "1e+06 FP square-root instructions at 0.125 G/s (core fsqrt)" in detail
    assert "divides and square roots share the divider: 12 ms" in detail


def test_scalar_divides_bind_the_core_where_peak_prices_their_flops_four_times_faster():
    # 1e6 scalar divides (1e6 flops): PEAK division 1 ms, the divider 4 ms
    flops = "[phases.flops]\ndivision = 1e6\n"
    p = convolve(SIG, workload(table(4e6, fdiv=1e6), flops=flops))
    assert p.seconds("fp") == pytest.approx(1e-3, rel=1e-9)
    assert p.seconds("core") == pytest.approx(4e-3, rel=1e-12)
    assert p.binding == "core"
    # the same flops in 4-lane packed divides: 2.5e5 instructions, 1 ms either way
    p = convolve(SIG, workload(table(1e6, fdiv=2.5e5), flops=flops))
    assert p.seconds("core") == pytest.approx(p.seconds("fp"), rel=1e-9)
    # without the count (an older workload) the phase is priced as before: flops alone
    assert convolve(SIG, workload(table(4e6), flops=flops)).seconds("core") == pytest.approx(4e-4)


def test_zero_counts_need_no_divider_loop():
    plain = convolve(signature(fdiv=False, fsqrt=False), workload("total = 1e9\n"))
    zero = convolve(signature(fdiv=False, fsqrt=False), workload(table(1e9)))
    assert plain.to_dict()["resources"] == zero.to_dict()["resources"]
    assert plain.seconds("core") == pytest.approx(0.1)


@pytest.mark.parametrize("missing, count, loop", [
    (dict(fdiv=False), "fp_divisions", "fdiv"),
    (dict(fsqrt=False), "fp_square_roots", "fsqrt"),
])
def test_a_signature_without_the_loop_is_refused_or_only_the_divider_left_out(missing, count, loop):
    sig = signature(**missing)
    w = workload(f"total = 1e9\n{count} = 1e8\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, w)
    assert exc.value.file == "w.toml" and exc.value.key == f"phases[0].instructions.{count}"
    assert f"need the core kernel's {loop} loop" in exc.value.message
    p = convolve(sig, w, extrapolate=True)
    # the instructions are still priced; only the divider's bound (1e8 x 4 or 8 ns) is left out
    assert p.seconds("core") == pytest.approx(0.1)
    assert any(f"instructions.{count}" in e and "no divider bound" in e for e in p.extrapolations)


def test_the_counts_are_read_checked_and_written():
    ins = workload(table(10, fdiv=4, fsqrt=3)).phases[0].instructions
    assert (ins.total, ins.fp_divisions, ins.fp_square_roots) == (10, 4, 3)
    assert ins.to_dict() == {"total": 10, "branches": 0, "mispredicted": 0, "fp_divisions": 4,
                             "fp_square_roots": 3}
    assert "fp_divisions" not in Instructions(10).to_dict()  # absent: written as before
    assert (Instructions(4, fp_divisions=3, fp_square_roots=1).scaled(2)
            == Instructions(8, fp_divisions=6, fp_square_roots=2))
    with pytest.raises(WorkloadError, match="more than the 4 total"):
        Instructions(4, fp_square_roots=5)


@pytest.mark.parametrize("count", ["fp_divisions", "fp_square_roots"])
@pytest.mark.parametrize("value, words", [
    ("6", "more than the 5 total"),
    ("-1", "negative"),
    ("'one'", "not a number"),
    ("inf", "finite"),
    ("nan", "not a finite number"),
])
def test_bad_counts_name_the_file_and_key(count, value, words):
    with pytest.raises(WorkloadError) as exc:
        workload(f"total = 5\n{count} = {value}\n")
    assert (exc.value.file, exc.value.key) == ("w.toml", f"phases[0].instructions.{count}")
    assert words in exc.value.message


def test_cli_refuses_too_many_square_roots_in_one_line_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(SIG.to_dict()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 5\nfp_square_roots = 6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "w.toml" in err and "instructions.fp_square_roots" in err
    assert "Traceback" not in err
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 20e6\n"
                 "fp_divisions = 1e6\nfp_square_roots = 1e6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--json"]) == 0
    core = next(r for r in json.loads(capsys.readouterr().out)["resources"] if r["name"] == "core")
    assert core["seconds"] == pytest.approx(12e-3)


def test_divider_points_carry_instruction_units():
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + [
        {"op": "fdiv", "result": result("division/s", FDIV)}]}
    with pytest.raises(SignatureError, match="instruction/s"):
        Signature.from_dict(doc)


counts = st.floats(0, 1e12, allow_nan=False)


@st.composite
def tables(draw):
    """(total, branches, fp_divisions, fp_square_roots), each part <= total."""
    total = draw(counts)
    return (total, total * draw(st.floats(0, 1)), total * draw(st.floats(0, 1)),
            total * draw(st.floats(0, 1)))


def _core(tab, threads=1, repeat=1.0) -> float:
    ph = {"threads": threads, "repeat": repeat, "instructions": dict(zip(
        ("total", "branches", "fp_divisions", "fp_square_roots"), tab))}
    return convolve(SIG, workload_from_dict({"schema": 1, "phases": [ph]})).seconds("core")


@settings(max_examples=80, deadline=None)
@given(tables(), st.floats(0, 1), st.integers(1, 16), st.floats(0, 10))
def test_more_divider_work_never_predicts_less_and_the_time_is_the_formula(tab, more, threads, rep):
    total, branches, fdiv, fsqrt = tab
    t = _core(tab, threads, rep)
    assert t == pytest.approx(expected(*(c * rep for c in tab), threads=threads),
                              rel=1e-9, abs=1e-300)
    more_sqrt = min(total, fsqrt + (total - fsqrt) * more)  # still <= total (rounding)
    assert _core((total, branches, fdiv, more_sqrt), threads, rep) >= t * (1 - 1e-12)
    assert t >= _core((total, branches, 0.0, 0.0), threads, rep) * (1 - 1e-12)
