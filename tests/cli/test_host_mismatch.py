"""A signature put beside a profile of another machine gets a warning naming both inputs, and an
efficiency above the theoretical capacity is not shown as one."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.cli import main
from pinchpoint.inputs.host_match import ABOVE_THEORY, clock_mismatch, mismatch_warnings
from pinchpoint.solve.measured_ceilings import measured_ceilings
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.inputs.signature import Signature, load_bundled
from synthetic_signature import synthetic_doc

#: the bundled signatures and the profiles of the machines they were measured on
MATCHING = [("powermac-g5", "powermac-g5-xbench"), ("powermac-g5", "powermac-g5-linux-memory"),
            ("ibm-p690", "p690"), ("ibm-p650", "p650"), ("ibm-p655-1.1", "p655-1.1"),
            ("ibm-p655-1.3", "p655-1.3")]


def _server_signature(speed=4.0, clocks=None, tmp_path=None):
    """The synthetic signature at ``speed``: its MAPS copy plateau is 10 GB/s x speed."""
    doc = synthetic_doc(speed)
    if clocks:
        doc["host"]["clocks"] = clocks
    sig = Signature.from_dict(doc)
    if tmp_path is not None:
        path = tmp_path / "server.json"
        path.write_text(sig.to_json())
        return path
    return sig


@pytest.mark.parametrize("profile, signature", MATCHING)
def test_no_warning_for_a_signature_of_the_same_machine(profile, signature):
    prof, sig = load_profile(profile), load_bundled(signature)
    assert mismatch_warnings(prof, sig, measured_ceilings(prof, sig)) == ()


def test_signature_of_another_cpu_clock_is_named():
    text = clock_mismatch(load_profile("powermac-g5"), load_bundled("p690"))
    assert "'p690'" in text and "'powermac-g5'" in text and "1.3 GHz" in text and "2 GHz" in text


def test_ceilings_with_a_foreign_signature_warns_and_hides_the_efficiency(tmp_path, capsys):
    # 40 GB/s of memory copy against the G5's 6.4 GB/s DDR-400 bus: 6.25 x, not 625 %
    sig = _server_signature(4.0, tmp_path=tmp_path)
    assert main(["ceilings", "powermac-g5", "--signature", str(sig)]) == 0
    out, err = capsys.readouterr()
    assert "warning" in err and "'synthetic'" in err and "'powermac-g5'" in err and "mem" in err
    assert "625%" not in out and "invalid (6.2 x)" in out


def test_json_carries_the_warnings(tmp_path, capsys):
    sig = _server_signature(4.0, clocks={"current_hz": 3.5e9}, tmp_path=tmp_path)
    assert main(["ceilings", "powermac-g5", "--signature", str(sig), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    warnings = doc["measured"]["warnings"]
    # the clocks, the memory link (40 vs 6.4 GB/s) and the mem-copy flow (20 vs 3.2 GB/s)
    assert len(warnings) == 3 and "3.5 GHz" in warnings[0]
    assert warnings[1].startswith("mem: ") and warnings[2].startswith("mem-copy: ")


def test_predict_with_another_machines_profile_warns(capsys):
    assert main(["predict", "--signature", "p690", "--workload", "power4-memory-heavy",
                 "--profile", "powermac-g5"]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "'p690'" in err and "'powermac-g5'" in err


def test_quiet_silences_the_warning(capsys):
    assert main(["-q", "predict", "--signature", "p690", "--workload", "power4-memory-heavy",
                 "--profile", "powermac-g5"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["predict", "--signature", "p690", "--workload", "power4-memory-heavy",
                 "--profile", "powermac-g5", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@settings(max_examples=40, deadline=None)
@given(speed=st.floats(0.05, 3.0))
def test_above_theory_warning_fires_exactly_past_the_threshold(speed):
    prof = load_profile("powermac-g5")
    sig = _server_signature(speed)
    rows = [m for m in measured_ceilings(prof, sig) if m.theoretical_bytes_per_s]
    expected = any(m.measured_bytes_per_s > ABOVE_THEORY * m.theoretical_bytes_per_s for m in rows)
    assert bool(mismatch_warnings(prof, sig, rows)) == expected


def test_report_with_a_foreign_signature_warns_in_the_page_and_on_stderr(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", "powermac-g5", "--signature", "p690", "-o", str(out)]) == 0
    assert "'p690'" in capsys.readouterr().err
    html = out.read_text()
    assert "Another machine" in html and "1.3 GHz" in html
    assert main(["report", "powermac-g5", "--signature", "powermac-g5-xbench", "-o", str(out)]) == 0
    assert "Another machine" not in out.read_text() and capsys.readouterr().err == ""


def test_compare_predictions_warn_per_mismatched_pair(capsys):
    # one profile for both: the p690 signature is that machine's, the p650's (1.45 GHz) is not
    assert main(["compare", "ibm-p690", "--workload", "power4-memory-heavy",
                 "--signature", "p690", "p650"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "'p650'" in warnings[0] and "'ibm-p690'" in warnings[0]
