"""Integer divisions in ``[phases.instructions]``: read and checked, priced by the core kernel's
divide loop as a bound of their own beside the instruction and branch rates, refused (or left
out with --extrapolate) where the signature lacks the loop.  Times are checked against the
formula written out here with round figures."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc
from test_core_resource import BRANCH, ISSUE, PENALTY, core_points

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload, workload_from_dict
from pinchpoint.inputs.workload_data import Instructions
from pinchpoint.prediction.convolve import RESOURCES, convolve

#: the divide loop: 0.5 G division/s (2 ns each, 20 instruction slots of alu at 10 G/s); the
#: dependent chain slower (5 ns each), measured beside it but pricing nothing
DIVIDE, CHAIN = 0.5e9, 0.2e9


def signature(divide: bool = True, rate: float = DIVIDE) -> Signature:
    doc = synthetic_doc()
    pts = core_points()
    if divide:
        pts += [{"op": "divide", "dividend_bits": 64, "divisor_bits": 32,
                 "result": result("division/s", rate)},
                {"op": "divide_chain", "dividend_bits": 64, "divisor_bits": 32,
                 "result": result("division/s", CHAIN)}]
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    return Signature.from_dict(doc)


SIG = signature()


def workload(table: str, threads: int = 1, repeat: float = 1.0, file: str = "w.toml"):
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"loop\"\nthreads = {threads}\n"
                          f"repeat = {repeat!r}\n[phases.instructions]\n{table}", file=file)


def expected(total, branches=0.0, missed=0.0, divisions=0.0, threads=1):
    """max(total / 10 G/s, branches / 2 G/s, divisions / 0.5 G/s) + missed x 10 ns, per thread."""
    return (max(total / ISSUE, branches / BRANCH, divisions / DIVIDE) + missed * PENALTY) / threads


@pytest.mark.parametrize("counts, threads", [
    ((12e6, 1e6, 0.0, 1e6), 1),     # a hashed count, 12 instructions and 1 division per key
    ((12e6, 1e6, 0.0, 1e6), 2),
    ((1e9, 1e8, 1e6, 1e6), 1),      # few divisions: the instructions bind
    ((1e9, 5e8, 0.0, 2e8), 3),      # branches and divisions tie at 0.25 s
    ((4e9, 0.0, 0.0, 4e9), 1),      # nothing but divisions
])
def test_divisions_join_the_max_of_the_core_time(counts, threads):
    total, branches, missed, divisions = counts
    w = workload(f"total = {total!r}\nbranches = {branches!r}\nmispredicted = {missed!r}\n"
                 f"divisions = {divisions!r}\n", threads)
    p = convolve(SIG, w)
    assert p.seconds("core") == pytest.approx(expected(*counts, threads=threads), rel=1e-12)


def test_a_hashed_count_is_bound_by_its_divider_not_by_its_instructions():
    # per key: 12 instructions at 10 G/s = 1.2 ns, one division at 0.5 G/s = 2 ns
    p = convolve(SIG, workload("total = 12e6\ndivisions = 1e6\n"))
    assert p.seconds("core") == pytest.approx(2e-3, rel=1e-12)
    detail = p.resources[RESOURCES.index("core")].detail
    assert "1e+06 integer divisions at 0.5 G/s (core divide)" in detail
    # without the divisions the same phase is priced at the instruction rate: 1.7x faster
    assert convolve(SIG, workload("total = 12e6\n")).seconds("core") == pytest.approx(1.2e-3)


def test_the_chain_loop_does_not_price_divisions():
    # a signature whose divide_chain ran faster than divide (noise): divide still prices
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + [
        {"op": "divide", "result": result("division/s", DIVIDE)},
        {"op": "divide_chain", "result": result("division/s", 10 * DIVIDE)}]}
    p = convolve(Signature.from_dict(doc), workload("total = 1e6\ndivisions = 1e6\n"))
    assert p.seconds("core") == pytest.approx(1e6 / DIVIDE)


def test_zero_divisions_need_no_divide_loop():
    plain = convolve(signature(divide=False), workload("total = 1e9\n"))
    zero = convolve(signature(divide=False), workload("total = 1e9\ndivisions = 0\n"))
    assert plain.to_dict()["resources"] == zero.to_dict()["resources"]
    assert plain.seconds("core") == pytest.approx(0.1)


def test_a_signature_without_the_divide_loop_is_refused_or_extrapolated():
    w = workload("total = 1e9\ndivisions = 1e6\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(signature(divide=False), w)
    assert exc.value.file == "w.toml" and exc.value.key == "phases[0].instructions.divisions"
    assert "integer divisions need the core kernel's divide loop" in exc.value.message
    p = convolve(signature(divide=False), w, extrapolate=True)
    assert p.seconds("core") == 0.0
    assert any("instructions.divisions" in e and "no core time" in e for e in p.extrapolations)


def test_divisions_are_read_checked_and_written():
    ins = workload("total = 10\ndivisions = 4\n").phases[0].instructions
    assert (ins.total, ins.divisions) == (10, 4)
    assert ins.to_dict() == {"total": 10, "branches": 0, "mispredicted": 0, "divisions": 4}
    assert "divisions" not in Instructions(10).to_dict()  # absent: written as before
    assert Instructions(4, 2, 1, divisions=3).scaled(2) == Instructions(8, 4, 2, divisions=6)
    with pytest.raises(WorkloadError, match="more than the 4 total"):
        Instructions(4, divisions=5)


@pytest.mark.parametrize("body, words", [
    ("total = 5\ndivisions = 6\n", "more than the 5 total"),
    ("total = 5\ndivisions = -1\n", "negative"),
    ("total = 5\ndivisions = 'one'\n", "not a number"),
])
def test_bad_divisions_name_the_file_and_key(body, words):
    with pytest.raises(WorkloadError) as exc:
        workload(body)
    assert (exc.value.file, exc.value.key) == ("w.toml", "phases[0].instructions.divisions")
    assert words in exc.value.message


def test_cli_refuses_too_many_divisions_in_one_line_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(SIG.to_dict()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 5\ndivisions = 6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "w.toml" in err and "instructions.divisions" in err
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 12e6\ndivisions = 1e6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--json"]) == 0
    core = next(r for r in json.loads(capsys.readouterr().out)["resources"] if r["name"] == "core")
    assert core["seconds"] == pytest.approx(2e-3)


def test_divide_points_carry_division_units():
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + [
        {"op": "divide", "result": result("instruction/s", DIVIDE)}]}
    with pytest.raises(SignatureError, match="division/s"):
        Signature.from_dict(doc)


counts = st.floats(0, 1e12, allow_nan=False)


@st.composite
def tables(draw):
    """(total, branches, mispredicted, divisions): mispredicted <= branches <= total,
    divisions <= total."""
    total = draw(counts)
    branches = total * draw(st.floats(0, 1))
    return total, branches, branches * draw(st.floats(0, 1)), total * draw(st.floats(0, 1))


def _core(table, threads=1, repeat=1.0) -> float:
    ph = {"threads": threads, "repeat": repeat,
          "instructions": dict(zip(("total", "branches", "mispredicted", "divisions"), table))}
    return convolve(SIG, workload_from_dict({"schema": 1, "phases": [ph]})).seconds("core")


@settings(max_examples=80, deadline=None)
@given(tables(), st.floats(0, 1), st.integers(1, 16), st.floats(0, 10))
def test_more_divisions_never_predict_less_and_the_time_is_the_formula(table, more, threads, rep):
    total, branches, missed, divisions = table
    more_div = min(total, divisions + (total - divisions) * more)  # rounding may overshoot
    t = _core(table, threads, rep)
    assert _core((total, branches, missed, more_div), threads, rep) >= t * (1 - 1e-12)
    assert t == pytest.approx(expected(*(c * rep for c in table), threads=threads),
                              rel=1e-9, abs=1e-300)
    # a division never costs less than an instruction here (the divider is 20x slower)
    assert t >= _core((total, branches, missed, 0.0), threads, rep) * (1 - 1e-12)


def swept(rates: dict) -> Signature:
    """A signature whose divide loop ran at each quotient width of ``rates`` (bits: rate)."""
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None, "points": core_points() + [
        {"op": "divide", "dividend_bits": 64, "divisor_bits": 65 - q, "quotient_bits": q,
         "result": result("division/s", r)} for q, r in rates.items()]}
    return Signature.from_dict(doc)


#: a divider that slows from 0.6 G/s to 0.45 G/s beyond 32 quotient bits
SWEPT = swept({2: 0.6e9, 32: 0.6e9, 52: 0.45e9, 64: 0.4e9})


@pytest.mark.parametrize("bits, ns", [
    (2, 1 / 0.6), (20, 1 / 0.6), (32, 1 / 0.6), (52, 1 / 0.45), (64, 1 / 0.4),
    # half way from 32 to 52 bits: the mean of the two times per division
    (42, (1 / 0.6 + 1 / 0.45) / 2),
    (58, (1 / 0.45 + 1 / 0.4) / 2),
])
def test_divisions_are_priced_at_their_quotient_width(bits, ns):
    p = convolve(SWEPT, workload(f"total = 1e6\ndivisions = 1e6\nquotient_bits = {bits}\n"))
    assert p.seconds("core") == pytest.approx(1e6 * ns * 1e-9, rel=1e-12)
    assert p.extrapolations == ()


def test_without_a_width_divisions_take_the_fastest_point():
    p = convolve(SWEPT, workload("total = 1e6\ndivisions = 1e6\n"))
    assert p.seconds("core") == pytest.approx(1e6 / 0.6e9, rel=1e-12)


def test_a_width_beyond_the_sweep_is_refused_or_read_at_its_end():
    narrow = swept({17: 0.6e9, 53: 0.45e9})
    w = workload("total = 1e6\ndivisions = 1e6\nquotient_bits = 60\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(narrow, w)
    assert exc.value.key == "phases[0].instructions.quotient_bits"
    p = convolve(narrow, w, extrapolate=True)
    assert p.seconds("core") == pytest.approx(1e6 / 0.45e9, rel=1e-12)
    assert any("quotient_bits" in e for e in p.extrapolations)


def test_a_signature_before_the_quotient_sweep_prices_its_one_point_and_says_so():
    w = workload("total = 1e6\ndivisions = 1e6\nquotient_bits = 50\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(SIG, w)
    assert "quotient sweep" in exc.value.message
    p = convolve(SIG, w, extrapolate=True)
    assert p.seconds("core") == pytest.approx(1e6 / DIVIDE, rel=1e-12)
    assert any("quotient sweep" in e and "its fastest division" in e for e in p.extrapolations)


def test_quotient_bits_are_read_written_and_left_unscaled():
    ins = workload("total = 10\ndivisions = 4\nquotient_bits = 52.5\n").phases[0].instructions
    assert ins.quotient_bits == 52.5 and ins.to_dict()["quotient_bits"] == 52.5
    assert ins.scaled(3).quotient_bits == 52.5


@pytest.mark.parametrize("value, words", [
    ("0", "at least 1"), ("65", "more than a 64-bit quotient holds"), ("'wide'", "not a number"),
    ("nan", "not a finite number"), ("inf", "not a finite number"),
])
def test_bad_quotient_bits_name_the_file_and_key(value, words):
    with pytest.raises(WorkloadError) as exc:
        workload(f"total = 10\ndivisions = 4\nquotient_bits = {value}\n")
    assert (exc.value.file, exc.value.key) == ("w.toml", "phases[0].instructions.quotient_bits")
    assert words in exc.value.message
