"""diagnose's variants from outside: a TCP loss model registered by name, a limit step appended (as pyhf's test_custom_mods)."""

from __future__ import annotations

import pytest

from pinchpoint.diagnose import LIMIT_STEPS, LOSS_MODELS, DiagnoseInputs, LossCeiling, diagnose, register_loss_model
from pinchpoint.errors import InputError

GBIT = 1e9 / 8
MBIT = 1e6 / 8


@pytest.fixture
def bbr_like():
    """A toy model-based congestion control: it keeps (1 - p) of the line whatever the loss.

    BBR v1 paces at the estimated bottleneck bandwidth and does not back off on random loss up to
    about 20 % (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016);
    the (1 - p) is the share of packets that arrive.  Only ``line_bytes_per_s`` and ``loss`` are
    declared, so diagnose must hand it only those.
    """
    calls = []

    def bbr(line_bytes_per_s, loss):
        calls.append((line_bytes_per_s, loss))
        value = line_bytes_per_s * (1 - loss)
        return LossCeiling(value, f"BBR: line x (1 - p) = {value:g} B/s", "pacing, no back-off on random loss")

    register_loss_model("bbr-test", bbr)
    try:
        yield calls
    finally:
        LOSS_MODELS.pop("bbr-test")


def test_registered_loss_model_binds_in_a_verdict(bbr_like):
    base = dict(measured_bytes_per_s=650 * MBIT, line_bytes_per_s=GBIT, rtt_s=0.050, loss=0.3)
    cubic = diagnose(DiagnoseInputs(**base))
    assert cubic.verdict == "above-ceiling"  # PFTK (CUBIC's formula is not valid there) allows a few Mbit/s

    v = diagnose(DiagnoseInputs(**base, loss_model="bbr-test"))
    assert bbr_like == [(GBIT, 0.3)]
    assert v.binding.kind == "loss"
    assert v.binding.formula.startswith("BBR: line x (1 - p)")
    assert v.binding.ceiling_bytes_per_s == pytest.approx(0.7 * GBIT)
    assert v.verdict == "at-ceiling"
    assert v.limited_by == "packet loss"
    assert v.to_dict()["binding"]["note"] == "pacing, no back-off on random loss"


def test_default_loss_model_is_cubic_and_reno_is_selectable():
    assert DiagnoseInputs(measured_bytes_per_s=1.0).loss_model == "cubic"
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=1 * MBIT, rtt_s=0.05, loss=1e-4))
    assert v.binding.formula.startswith("CUBIC (RFC 9438)")
    for name in ("reno", "mathis"):
        v = diagnose(DiagnoseInputs(measured_bytes_per_s=1 * MBIT, rtt_s=0.05, loss=1e-4, loss_model=name))
        assert v.binding.formula.startswith("Mathis (Reno):")


def test_unknown_loss_model_is_an_input_error():
    with pytest.raises(InputError) as info:
        diagnose(DiagnoseInputs(measured_bytes_per_s=1 * MBIT, rtt_s=0.05, loss=1e-4, loss_model="reno-2"))
    assert info.value.key == "loss_model"
    assert "mathis" in str(info.value)


def test_registration_refuses_undeclarable_inputs_and_duplicates():
    with pytest.raises(ValueError, match="declares cwnd"):
        register_loss_model("needs-cwnd", lambda cwnd, loss: LossCeiling(1.0, ""))
    assert "needs-cwnd" not in LOSS_MODELS
    with pytest.raises(ValueError, match="already registered"):
        register_loss_model("mathis", lambda loss: LossCeiling(1.0, ""))


def test_limit_steps_run_in_their_documented_order():
    assert [s.name for s in LIMIT_STEPS] == ["line", "framing", "window", "loss", "target", "shaper",
                                                "host_path", "cpu"]


def test_cli_picks_a_registered_loss_model_and_refuses_an_unknown_one(bbr_like, capsys):
    from pinchpoint.cli import main

    argv = ["diagnose", "--measured", "650 Mbit/s", "--link", "1 Gbit/s", "--rtt", "50 ms", "--loss", "0.3"]
    assert main([*argv, "--loss-model", "bbr-test", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"formula": "BBR: line x (1 - p)' in out and '"verdict": "at-ceiling"' in out
    assert main([*argv, "--loss-model", "reno-2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--loss-model" in err and "reno-2" in err and len(err.splitlines()) == 1


def test_a_limit_step_added_from_outside_runs_in_order_and_can_bind():
    from pinchpoint.diagnose import Limit, LimitStep

    seen = []

    def nic_queue(run):
        seen.append((run.line, run.mtu))
        return [Limit("NIC ring", "nic-queue", 0.5 * run.line, "ring x MTU / interrupt interval")]

    LIMIT_STEPS.append(LimitStep("nic_queue", nic_queue))
    try:
        v = diagnose(DiagnoseInputs(measured_bytes_per_s=480 * MBIT, line_bytes_per_s=GBIT))
    finally:
        LIMIT_STEPS.pop()
    assert seen == [(GBIT, 1500.0)]
    assert v.binding.name == "NIC ring" and v.verdict == "at-ceiling"
    assert v.limited_by == "hardware (nic-queue)"
    assert [s.name for s in LIMIT_STEPS][-1] == "cpu"
