"""A phase whose branch outcomes repeat (``branch_period``): the mispredictions a predictor
learns by heart are taken off, by the share the core kernel's pass sweep measured, computed
here by hand."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic_signature import result, synthetic_doc
from test_core_resource import PENALTY, SORTED_S, core_points, workload

from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import Signature
from pinchpoint.prediction.convolve import convolve

#: Per bit of shuffled passes: 4 Ki bits learnt (as sorted), 16 Ki half way, 64 Ki and the
#: longest (256 Ki, the branch_random point of core_points) not at all; 32 Ki a slow outlier.
RANDOM_S = 6e-9
PASSES = {4096: SORTED_S, 16384: (SORTED_S + RANDOM_S) / 2, 32768: 9e-9, 65536: RANDOM_S}


def signature(passes=PASSES) -> Signature:
    doc = synthetic_doc()
    pts = core_points()
    for bits, t in passes.items():
        pts.append({"op": "branch_random", "mispredict_share": 0.5, "pass_bits": bits,
                    "result": result("branch/s", 1 / t)})
    doc["kernels"]["core"] = {"source_sha256": None, "points": pts}
    return Signature.from_dict(doc)


def core_s(sig, table: str) -> float:
    return convolve(sig, workload(table)).seconds("core")


BASE = "total = 1e6\nbranches = 2e5\nmispredicted = 1e5\n"


@pytest.mark.parametrize("period, share", [
    (2 * 4096, 0.0),                     # learnt by heart
    (1000, 0.0),                         # shorter than the shortest pass: its share
    (2 * 16384, 0.5),                    # half way between sorted and unlearnable
    (2 * 8192, 0.25),                    # log-midpoint of 4 Ki (0) and 16 Ki (0.5)
    (2 * 32768, 1.0),                    # the 9 ns outlier clipped to 1, as 64 Ki
    (2 * 24576, 0.5 + 0.5 * math.log(1.5) / math.log(2)),  # between 16 Ki (0.5) and 32 Ki (1)
    (1e9, 1.0),                          # beyond the longest pass: nothing learnt
])
def test_the_learnt_share_is_taken_off_the_mispredictions(period, share):
    busy = max(1e6 / 10e9, 2e5 / 2e9)  # instructions at alu's 10 G/s, branches at 2 G/s
    got = core_s(signature(), BASE + f"branch_period = {period!r}\n")
    assert got == pytest.approx(busy + share * 1e5 * PENALTY, rel=1e-9)


def test_a_slow_short_pass_never_raises_a_longer_ones_share():
    # 16 Ki measured slower than 64 Ki (noise, share 1 read raw) but 32 Ki at half: 16 Ki is held
    # to 32 Ki's half, never above what a longer pattern left
    noisy = {4096: SORTED_S, 16384: 8e-9, 32768: (SORTED_S + RANDOM_S) / 2, 65536: RANDOM_S}
    got = core_s(signature(noisy), BASE + "branch_period = 32768\n")
    assert got == pytest.approx(max(1e6 / 10e9, 2e5 / 2e9) + 0.5 * 1e5 * PENALTY, rel=1e-9)


def test_one_slow_unlearnable_pass_sets_neither_the_penalty_nor_the_shares():
    """The passes past what a predictor learns (a quarter of the longest and longer) are one
    plateau, read as its median: a longest pass measured 10 % slow (the 262144-bit point of
    core_points, replaced here) moves neither the penalty nor 16 Ki's half share."""
    doc = json.loads(json.dumps(signature().to_dict()))
    for p in doc["kernels"]["core"]["points"]:
        if p["op"] == "branch_random" and p.get("pass_bits", 262144) == 262144:
            p["result"] = result("branch/s", 1 / (1.1 * RANDOM_S))
    doc["kernels"]["core"]["points"].append(
        {"op": "branch_random", "mispredict_share": 0.5, "pass_bits": 131072,
         "result": result("branch/s", 1 / RANDOM_S)})
    slow = Signature.from_dict(doc)
    busy = max(1e6 / 10e9, 2e5 / 2e9)
    assert core_s(slow, BASE) == pytest.approx(busy + 1e5 * PENALTY, rel=1e-9)
    assert core_s(slow, BASE + "branch_period = 32768\n") == \
        pytest.approx(busy + 0.5 * 1e5 * PENALTY, rel=1e-9)


def test_without_a_period_or_a_sweep_every_misprediction_is_priced():
    full = max(1e6 / 10e9, 2e5 / 2e9) + 1e5 * PENALTY
    assert core_s(signature(), BASE) == pytest.approx(full, rel=1e-9)
    assert core_s(signature({}), BASE + "branch_period = 100\n") == pytest.approx(full, rel=1e-9)


@pytest.mark.parametrize("name", ["branch_period", "taken_period"])
@pytest.mark.parametrize("value, words", [(0, "at least 1"), (-5, "at least 1"), ("'x'", "not a number")])
def test_a_bad_period_is_refused_naming_the_key(name, value, words):
    with pytest.raises(WorkloadError, match=name) as exc:
        workload(BASE + f"{name} = {value}\n")
    assert words in str(exc.value)


def test_the_period_survives_scaling_and_writing():
    w = workload(BASE + "branch_period = 4096\ntaken_period = 5000\n")
    ins = w.phases[0].instructions
    assert ins.scaled(3).branch_period == 4096 and ins.scaled(3).mispredicted == 3e5
    assert ins.scaled(3).taken_period == 5000
    assert ins.to_dict()["branch_period"] == 4096 and ins.to_dict()["taken_period"] == 5000


@settings(max_examples=50, deadline=None)
@given(st.floats(1, 1e8), st.floats(1, 1e8))
def test_a_longer_period_never_predicts_less_time(a, b):
    short, long = sorted((a, b))
    sig = signature()
    assert core_s(sig, BASE + f"branch_period = {long!r}\n") >= core_s(sig, BASE + f"branch_period = {short!r}\n") * (1 - 1e-12)


@pytest.mark.parametrize("value, words", [("nan", "not a finite number"), ("1e400", "not a finite number"),
                                          ("0", "at least 1")])
def test_the_cli_refuses_a_bad_period_in_one_line(tmp_path, capsys, value, words):
    from pinchpoint.cli import main

    sig = tmp_path / "sig.json"
    sig.write_text(json.dumps(synthetic_doc()))
    wl = tmp_path / "w.toml"
    wl.write_text("schema = 1\n[[phases]]\nname = 'p'\n[phases.instructions]\n" + BASE
                  + f"branch_period = {value}\n")
    assert main(["predict", "--signature", str(sig), "--workload", str(wl)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "instructions.branch_period" in err and words in err


@pytest.mark.parametrize("taken_period, share", [
    (1.5 * 4096, 0.0),                   # the bit loop's 1.5 taken transfers per bit: learnt
    (1.5 * 16384, 0.5),                  # half way
    (1.5 * 65536, 1.0),
])
def test_a_taken_period_is_read_against_the_bit_loops_taken_transfers(taken_period, share):
    # the branch period alone would say learnt (2 x 4096 branches); a path history counts the
    # taken transfers, which say otherwise, and are preferred
    busy = max(1e6 / 10e9, 2e5 / 2e9)
    table = BASE + f"branch_period = 8192\ntaken_period = {taken_period!r}\n"
    assert core_s(signature(), table) == pytest.approx(busy + share * 1e5 * PENALTY, rel=1e-9)
