"""``[phases.dependencies]``: the operations on a phase's loop-carried chains, read and checked,
priced at one operation's measured latency per kind (core.c's chain loops, PEAK add_chain and
fma_chain) as a bound of its own, refused (or left out with --extrapolate) where the
signature lacks a kind's loop.  Times are checked against the formula written out here with
round figures."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc
from test_core_resource import core_points

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.inputs.workload_data import DEPENDENCY_KINDS, Dependencies
from pinchpoint.prediction.convolve import RESOURCES, convolve

#: one chain's rate [operation/s] per core.c loop: latencies of 0.25, 1, 5, 1.25, 1.6, 1, 4
#: and 0.5 ns; an add-multiply pair [pair/s] of 2.5 ns
CHAINS = {"alu_chain": 4e9, "multiply_chain": 1e9, "divide_chain": 0.2e9, "load_chain": 0.8e9,
          "load_index_chain": 0.625e9, "fmul_chain": 1e9, "fdiv_chain": 0.25e9,
          "vector_chain": 2e9, "fadd_fmul_chain": 0.4e9}
#: latency [s] per kind: the core loops above; PEAK add_chain and fma_chain of the synthetic
#: signature run 1 G flop/s, so an add takes 1 ns and an FMA (2 flops) 2 ns; an add handing
#: its result to a multiply the pair's 2.5 ns less the multiply's 1
LATENCY = {"alu": 0.25e-9, "multiply": 1e-9, "divide": 5e-9, "load": 1.25e-9,
           "indexed_load": 1.6e-9, "fp_add": 1e-9, "fp_add_to_other": 1.5e-9,
           "fp_multiply": 1e-9, "fma": 2e-9, "fp_divide": 4e-9, "vector": 0.5e-9}
UNITS = {"divide_chain": "division/s", "fadd_fmul_chain": "pair/s"}


def signature(without=(), rates=None) -> Signature:
    doc = synthetic_doc()
    pts = core_points() + [{"op": op, "result": result(UNITS.get(op, "operation/s"), rate)}
                           for op, rate in {**CHAINS, **(rates or {})}.items()
                           if op not in without]
    for p in pts:
        if p["op"] == "divide_chain":
            p.update(dividend_bits=64, divisor_bits=32)
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    return Signature.from_dict(doc)


SIG = signature()


def workload(table: str, threads: int = 1, extra: str = "", file: str = "w.toml"):
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"loop\"\nthreads = {threads}\n"
                          f"{extra}[phases.dependencies]\n{table}", file=file)


def test_the_table_is_read_and_written_back():
    w = workload("alu = 6e6\nfp_add = 2e6\n")
    deps = w.phases[0].dependencies
    assert deps == Dependencies(alu=6e6, fp_add=2e6) and deps.total == 8e6
    assert w.phases[0].to_dict()["dependencies"] == {"alu": 6e6, "fp_add": 2e6}
    assert workload("").phases[0].dependencies == Dependencies()


@pytest.mark.parametrize("body, key, words", [
    ("alus = 1\n", "phases[0].dependencies.alus", "alu"),
    ("alu = -1\n", "phases[0].dependencies.alu", ">= 0"),
    ("fma = \"many\"\n", "phases[0].dependencies.fma", "number"),
])
def test_bad_tables_name_the_file_and_key(body, key, words):
    with pytest.raises(WorkloadError) as exc:
        workload(body)
    assert (exc.value.file, exc.value.key) == ("w.toml", key)
    assert words in exc.value.message


@pytest.mark.parametrize("kind", DEPENDENCY_KINDS)
def test_each_kind_is_priced_at_its_own_latency(kind):
    p = convolve(SIG, workload(f"{kind} = 1e6\n"))
    assert p.seconds("dependencies") == pytest.approx(1e6 * LATENCY[kind], rel=1e-12)


def test_kinds_add_up_and_threads_divide():
    # 6 M one-cycle operations (1.5 ms) and 1 M multiplies (1 ms) on one chain per thread
    one = convolve(SIG, workload("alu = 6e6\nmultiply = 1e6\n"))
    assert one.seconds("dependencies") == pytest.approx(2.5e-3, rel=1e-12)
    two = convolve(SIG, workload("alu = 6e6\nmultiply = 1e6\n", threads=2))
    assert two.seconds("dependencies") == pytest.approx(1.25e-3, rel=1e-12)
    detail = one.resources[RESOURCES.index("dependencies")].detail
    assert "6e+06 chained alu at 0.25 ns (core alu_chain)" in detail


def test_a_recurrence_binds_where_its_instructions_would_not():
    # xorshift: 15 instructions per element at 10 G/s (core alu) = 1.5 ns; its chain of 6
    # one-cycle operations at 0.25 ns = 1.5 ns ... made 8 here: 2 ns, so the chain binds
    table = "alu = 8e6\n"
    extra = "[phases.instructions]\ntotal = 15e6\n"
    p = convolve(SIG, workload(table, extra=extra))
    assert p.binding == "dependencies"
    assert p.estimate_s == pytest.approx(2e-3, rel=1e-12)
    alone = convolve(SIG, loads_workload("schema = 1\n[[phases]]\n" + extra))
    assert alone.estimate_s == pytest.approx(1.5e-3, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(DEPENDENCY_KINDS), st.floats(0, 1e12), min_size=1),
       st.floats(0.5, 8))
def test_the_time_scales_with_the_counts(counts, factor):
    table = "".join(f"{k} = {v!r}\n" for k, v in counts.items())
    base = convolve(SIG, workload(table)).seconds("dependencies")
    assert base == pytest.approx(sum(v * LATENCY[k] for k, v in counts.items()), rel=1e-9)
    scaled = "".join(f"{k} = {v * factor!r}\n" for k, v in counts.items())
    assert convolve(SIG, workload(scaled)).seconds("dependencies") == \
        pytest.approx(base * factor, rel=1e-9, abs=1e-300)


def test_a_signature_without_a_chain_loop_is_refused_or_extrapolated():
    sig = signature(without=("load_chain",))
    w = workload("alu = 4e6\nload = 1e6\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, w)
    assert exc.value.key == "phases[0].dependencies.load" and "load_chain" in exc.value.message
    p = convolve(sig, w, extrapolate=True)
    assert p.seconds("dependencies") == pytest.approx(1e-3, rel=1e-12)  # the alus alone
    assert any("dependencies.load" in e for e in p.extrapolations)


def test_indexed_loads_without_their_loop_are_priced_as_plain_loads_and_said():
    """A signature measured before core.c had load_index_chain prices a chain's indexed loads
    at the plain load latency (an underestimate by the address cycle), with a note; neither
    refused nor left out."""
    sig = signature(without=("load_index_chain",))
    p = convolve(sig, workload("indexed_load = 1e6\n"))
    assert p.seconds("dependencies") == pytest.approx(1e6 * LATENCY["load"], rel=1e-12)
    assert not p.extrapolations
    assert any("load_index_chain" in n and "priced as load" in n for n in p.notes)
    gone = signature(without=("load_index_chain", "load_chain"))
    with pytest.raises(WorkloadError) as exc:
        convolve(gone, workload("indexed_load = 1e6\n"))
    assert "load_chain" in exc.value.message


@pytest.mark.parametrize("kind, loop, plain", [("fp_add_to_other", "fadd_fmul_chain", "fp_add"),
                                               ("vector", "vector_chain", "alu")])
def test_kinds_without_their_loop_are_priced_as_the_plainer_kind_and_said(kind, loop, plain):
    """Signatures measured before core.c had these loops: an add into another kind priced as
    an add into an add, vector operations as integer ones, noted."""
    p = convolve(signature(without=(loop,)), workload(f"{kind} = 1e6\n"))
    assert p.seconds("dependencies") == pytest.approx(1e6 * LATENCY[plain], rel=1e-12)
    assert not p.extrapolations
    assert any(loop in n and f"priced as {plain}" in n for n in p.notes)


@given(pair_ns=st.floats(0.5, 20.0))
@settings(max_examples=40, deadline=None)
def test_an_add_into_another_kind_costs_the_pair_less_the_multiply_never_less_than_an_add(
        pair_ns):
    """fadd_fmul_chain less fmul_chain (1 ns), floored at PEAK add_chain's add (1 ns): a
    handoff only adds to an add's latency, whatever noise puts in the pair."""
    sig = signature(rates={"fadd_fmul_chain": 1 / (pair_ns * 1e-9)})
    p = convolve(sig, workload("fp_add_to_other = 1e6\n"))
    assert p.seconds("dependencies") == pytest.approx(1e6 * max(pair_ns - 1.0, 1.0) * 1e-9,
                                                       rel=1e-9)


def test_cli_refuses_a_bad_table_in_one_line_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(SIG.to_dict()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[phases.dependencies]\nalu = -3\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "w.toml" in err and "dependencies.alu" in err
    w.write_text("schema = 1\n[[phases]]\n[phases.dependencies]\nalu = 4e6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--json"]) == 0
    deps = next(r for r in json.loads(capsys.readouterr().out)["resources"]
                if r["name"] == "dependencies")
    assert deps["seconds"] == pytest.approx(1e-3)
