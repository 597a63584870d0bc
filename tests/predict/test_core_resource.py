"""The core resource: a phase's instructions, branches and mispredictions priced by the core
kernel's loops, checked against the formula computed here by hand."""

from __future__ import annotations

import json

import pytest
from synthetic_signature import result, synthetic_doc

from pinchpoint.errors import SignatureError, WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.inputs.workload import loads_workload
from pinchpoint.prediction.convolve import RESOURCES, convolve

#: Round figures of the core kernel: alu 10 G instruction/s (mix 5 G/s: slower, so alu
#: prices), 2 G branch/s; the branch loop takes 1 ns per branch over sorted bits (no
#: mispredictions) and 6 ns over random bits (half mispredicted): 10 ns per misprediction.
ISSUE, MIX, BRANCH = 10e9, 5e9, 2e9
#: taken: 1 G taken-branch/s (a loop of one iteration per ns); taken_jumps faster (4 G/s), kept
#: beside it but never pricing (compiled loops carry the counter chain taken has).
TAKEN, TAKEN_JUMPS = 1e9, 4e9
SORTED_S, RANDOM_S, RANDOM_SHARE = 1e-9, 6e-9, 0.5
PENALTY = (RANDOM_S - SORTED_S) / RANDOM_SHARE


def core_points(speed: float = 1.0, **override) -> list[dict]:
    figures = {"alu": ("instruction/s", ISSUE), "mix": ("instruction/s", MIX),
               "branches": ("branch/s", BRANCH), "taken": ("taken-branch/s", TAKEN),
               "taken_jumps": ("taken-branch/s", TAKEN_JUMPS),
               "branch_sorted": ("branch/s", 1 / SORTED_S),
               "branch_random": ("branch/s", 1 / RANDOM_S)}
    pts = []
    for op, (unit, rate) in figures.items():
        p = {"op": op, "result": result(unit, override.get(op, rate) * speed)}
        if op.startswith("branch_"):
            p["mispredict_share"] = RANDOM_SHARE if op == "branch_random" else 0.0
        pts.append(p)
    return pts


def signature(with_core: bool = True, without=(), **override) -> Signature:
    doc = synthetic_doc()
    if with_core:
        doc["kernels"]["core"] = {"source_sha256": None,
                                  "points": [p for p in core_points(**override) if p["op"] not in without]}
    return Signature.from_dict(doc)


def workload(table: str, threads: int = 1, repeat: float = 1.0):
    return loads_workload(f"schema = 1\n[[phases]]\nname = \"loop\"\nthreads = {threads}\n"
                          f"repeat = {repeat!r}\n[[phases.memory]]\nops = 1000\n"
                          f"working_set = '16 KiB'\n" + (f"[phases.instructions]\n{table}" if table else ""),
                          file="w.toml")


def expected(total, branches=0.0, missed=0.0, taken=0.0, threads=1):
    """The formula, written out: max(total / instruction rate, branches / branch rate,
    taken / taken-branch rate) + missed x penalty, every count shared by the threads."""
    return (max(total / threads / ISSUE, branches / threads / BRANCH, taken / threads / TAKEN)
            + missed / threads * PENALTY)


@pytest.mark.parametrize("counts, threads", [
    ((6e9, 1e9, 1e7), 1), ((6e9, 1e9, 1e7), 2), ((1e9, 1e9, 0.0), 1), ((6e9, 0.0, 0.0), 4),
    ((5e9, 5e9, 5e9), 3),
])
def test_core_time_is_the_formula(counts, threads):
    total, branches, missed = counts
    w = workload(f"total = {total!r}\nbranches = {branches!r}\nmispredicted = {missed!r}\n", threads)
    p = convolve(signature(), w)
    assert p.seconds("core") == pytest.approx(expected(total, branches, missed, threads=threads), rel=1e-12)
    assert p.binding == "core" and p.phases[0].binding == "core"
    assert p.low_s == pytest.approx(max(r.seconds for r in p.resources), rel=1e-12)


def test_repeat_multiplies_the_counts():
    one = convolve(signature(), workload("total = 1e9\nbranches = 1e8\n")).seconds("core")
    five = convolve(signature(), workload("total = 1e9\nbranches = 1e8\n", repeat=5)).seconds("core")
    assert five == pytest.approx(5 * one) and one == pytest.approx(0.1)


@pytest.mark.parametrize("total, branches, fused, threads", [
    (6e9, 1e9, 1e9, 1), (6e9, 1e9, 5e8, 2), (2e9, 1e9, 1e9, 1), (6e9, 1e9, 0.0, 3),
])
def test_fused_branches_issue_as_one_operation_with_their_compare(total, branches, fused, threads):
    """(total - fused_branches) at the instruction rate; the branch bound is unchanged: a
    loop of 2e9 instructions, half of them fused compare-and-branch pairs, issues 1e9
    operations (0.1 s at 10 G/s) and is then held by its 1e9 branches (0.5 s at 2 G/s)."""
    w = workload(f"total = {total!r}\nbranches = {branches!r}\nfused_branches = {fused!r}\n",
                 threads)
    p = convolve(signature(), w)
    assert p.seconds("core") == pytest.approx(expected(total - fused, branches, threads=threads),
                                              rel=1e-12)
    if fused:
        assert f"{fused:.4g} compare-and-branch pairs fused" in \
            p.resources[RESOURCES.index("core")].detail
    assert w.phases[0].instructions.to_dict().get("fused_branches", 0.0) == fused


def test_more_fused_branches_than_branches_is_refused_naming_the_key():
    with pytest.raises(WorkloadError) as exc:
        workload("total = 10\nbranches = 2\nfused_branches = 3\n")
    assert exc.value.key == "phases[0].instructions.fused_branches"
    assert "branches" in exc.value.message


def test_the_faster_instruction_loop_prices():
    # mix faster than alu: mix prices (the fastest instruction stream measured)
    p = convolve(signature(mix=20e9), workload("total = 2e10\n"))
    assert p.seconds("core") == pytest.approx(1.0)
    assert "core mix" in p.resources[RESOURCES.index("core")].detail


@pytest.mark.parametrize("counts, threads, seconds", [
    # a short-bodied loop of 1e9 iterations: 4 instructions, 1 branch taken each; at 10 G
    # instructions/s and 2 G branches/s it would take 0.4 s; its back branches hold it 1 s
    ((4e9, 1e9, 0.0, 1e9), 1, 1.0),
    ((4e9, 1e9, 0.0, 1e9), 4, 0.25),
    ((4e9, 1e9, 1e6, 1e9), 1, 1.0 + 1e6 * PENALTY),
    # a long body: 40 instructions an iteration, so instructions bind (4 s), not the 1 s of taken
    ((40e9, 1e9, 0.0, 1e9), 1, 4.0),
])
def test_taken_branches_bound_short_loops(counts, threads, seconds):
    total, branches, missed, taken = counts
    w = workload(f"total = {total!r}\nbranches = {branches!r}\nmispredicted = {missed!r}\n"
                 f"taken = {taken!r}\n", threads)
    p = convolve(signature(), w)
    assert p.seconds("core") == pytest.approx(seconds, rel=1e-12)
    assert p.seconds("core") == pytest.approx(expected(*counts, threads=threads), rel=1e-12)
    detail = p.resources[RESOURCES.index("core")].detail
    assert "1e+09 taken branches at 1 G/s (core taken)" in detail
    assert "taken_jumps" not in detail  # the faster jump chain never prices


@pytest.mark.parametrize("jumps_rate, seconds", [
    # 1e9 iterations of 3 branches (1.5 s at 2 G/s), 1.9 taken (1.9 s as back branches): the
    # back branches alone hold it 1 s, all taken ones 0.475 s at 4 G/s: the branches bind
    (TAKEN_JUMPS, 1.5),
    # a front end slower at jumps (1.5 G/s): 1.9e9 taken take 1.27 s, the branches still bind
    (1.5e9, 1.5),
    # slower still (0.5 G/s): the taken ones bind at 3.8 s
    (0.5e9, 3.8)])
def test_back_branches_at_the_taken_loop_and_all_taken_at_taken_jumps(jumps_rate, seconds):
    w = workload("total = 10e9\nbranches = 3e9\ntaken = 1.9e9\ntaken_backward = 1e9\n")
    p = convolve(signature(taken_jumps=jumps_rate), w)
    assert p.seconds("core") == pytest.approx(seconds, rel=1e-12)
    assert p.seconds("core") == pytest.approx(
        max(10e9 / ISSUE, 3e9 / BRANCH, 1e9 / TAKEN, 1.9e9 / jumps_rate), rel=1e-12)
    detail = p.resources[RESOURCES.index("core")].detail
    assert "1e+09 taken back branches at 1 G/s (core taken)" in detail
    assert "1.9e+09 taken branches at" in detail and "(core taken_jumps)" in detail
    # not split: every taken branch a back branch, 1.9 s
    whole = convolve(signature(), workload("total = 10e9\nbranches = 3e9\ntaken = 1.9e9\n"))
    assert whole.seconds("core") == pytest.approx(1.9, rel=1e-12)


def test_back_branches_without_the_jump_loop_are_priced_as_before_and_said():
    w = workload("total = 10e9\nbranches = 3e9\ntaken = 1.9e9\ntaken_backward = 1e9\n")
    p = convolve(signature(without=("taken_jumps",)), w)
    assert p.seconds("core") == pytest.approx(1.9, rel=1e-12)
    assert "priced as a back branch (core taken_jumps not measured)" in \
        p.resources[RESOURCES.index("core")].detail


def test_more_back_branches_than_taken_ones_are_refused():
    with pytest.raises(WorkloadError) as exc:
        workload("total = 10e9\nbranches = 3e9\ntaken = 1e9\ntaken_backward = 2e9\n")
    assert exc.value.key.endswith("instructions.taken_backward")
    assert "more than the 1e+09 taken" in exc.value.message


def test_a_missing_taken_loop_is_refused_naming_the_key_and_the_loop():
    sig = signature(without=("taken", "taken_jumps"))
    w = workload("total = 4e9\nbranches = 1e9\ntaken = 1e9\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, w)
    assert exc.value.key == "phases[0].instructions.taken"
    assert "taken branches need the core kernel's taken loop" in exc.value.message
    p = convolve(sig, w, extrapolate=True)
    assert p.seconds("core") == 0.0
    assert any("instructions.taken" in e and "no core time" in e for e in p.extrapolations)
    # without a taken count, the signature's lack of the loop does not matter
    plain = convolve(sig, workload("total = 4e9\nbranches = 1e9\n"))
    assert plain.seconds("core") == pytest.approx(0.5)


def test_core_shows_in_json_and_text(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(signature().to_dict()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 1e10\nbranches = 1e9\n"
                 "mispredicted = 1e6\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    core = next(r for r in d["resources"] if r["name"] == "core")
    assert core["seconds"] == pytest.approx(expected(1e10, 1e9, 1e6)) and d["binding"] == "core"
    assert "mispredicted branches at 10 ns each" in core["detail"]
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 0
    text = capsys.readouterr().out
    assert "binding: core" in text and "instructions at 10 G/s (core alu)" in text


def test_a_missing_core_kernel_is_refused_naming_the_phase_and_the_loop():
    w = workload("total = 1e9\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(signature(with_core=False), w)
    assert exc.value.file == "w.toml" and exc.value.key == "phases[0].instructions.total"
    assert "core kernel's alu or mix loop" in exc.value.message
    p = convolve(signature(with_core=False), w, extrapolate=True)
    assert p.seconds("core") == 0.0
    assert any("instructions.total" in e and "no core time" in e for e in p.extrapolations)


def test_missing_misprediction_loops_name_the_key():
    doc = synthetic_doc()
    doc["kernels"]["core"] = {"source_sha256": None,
                              "points": [p for p in core_points() if p["op"] != "branch_random"]}
    w = workload("total = 1e9\nbranches = 1e8\nmispredicted = 10\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(Signature.from_dict(doc), w)
    assert exc.value.key == "phases[0].instructions.mispredicted"
    assert "branch_random and branch_sorted loops" in exc.value.message
    # extrapolating: the whole core time is left out, none of it half priced
    p = convolve(Signature.from_dict(doc), w, extrapolate=True)
    core = p.resources[RESOURCES.index("core")]
    assert core.seconds == 0.0 and core.detail == ""
    assert any("instructions.mispredicted" in e for e in p.extrapolations)


def test_cli_refuses_a_missing_core_kernel_with_exit_2(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(synthetic_doc()))
    w = tmp_path / "w.toml"
    w.write_text("schema = 1\n[[phases]]\n[phases.instructions]\ntotal = 1e9\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(w)]) == 2
    err = capsys.readouterr().err
    assert "phases[0].instructions.total" in err and "core kernel" in err
    assert len(err.strip().splitlines()) == 1
    assert main(["predict", "--signature", str(sig), "--workload", str(w), "--extrapolate", "--json"]) == 0
    assert any("no core time" in e for e in json.loads(capsys.readouterr().out)["extrapolations"])


def test_zero_counts_and_no_table_need_no_core_kernel_and_change_nothing():
    plain = convolve(signature(with_core=False), workload(""))
    zero = convolve(signature(with_core=False), workload("total = 0\nbranches = 0\nmispredicted = 0\n"))
    with_core = convolve(signature(), workload(""))
    assert plain.to_dict()["resources"] == zero.to_dict()["resources"] == with_core.to_dict()["resources"]
    assert plain.low_s == zero.low_s == with_core.low_s and plain.seconds("core") == 0.0


def test_a_penalty_that_cannot_be_read_is_a_signature_error():
    # shuffled bits no slower than sorted ones: the measurement failed
    with pytest.raises(SignatureError, match="no misprediction cost"):
        convolve(signature(branch_random=1 / SORTED_S),
                 workload("total = 1e9\nbranches = 1e8\nmispredicted = 10\n"))


def test_core_points_carry_their_own_units():
    doc = synthetic_doc()
    pts = core_points()
    pts[0]["result"]["unit"] = "branch/s"  # alu counts instructions
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    with pytest.raises(SignatureError, match="instruction/s"):
        Signature.from_dict(doc)


def test_signature_show_prints_the_core_points(capsys, tmp_path):
    from pinchpoint.cli import main

    sig = tmp_path / "s.json"
    sig.write_text(json.dumps(signature().to_dict()))
    assert main(["signature", "show", str(sig)]) == 0
    out = capsys.readouterr().out
    assert "10 Ginstruction/s" in out and "2 Gbranch/s" in out
