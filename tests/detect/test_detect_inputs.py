"""detect: a refusal names the input it came from; values too long or meaningless are unknown."""

from __future__ import annotations

import pytest
from detect_paths import FIXTURES

from pinchpoint.cli import main
from pinchpoint.measure import detect
from pinchpoint.measure.machine_facts import clock_from_model_name

MCDRAM = FIXTURES / "hwloc" / "mcdram-hybrid.v3.xml"
CXL_V3 = FIXTURES / "hwloc" / "hwloc-cxlmem+dax.v3.xml"


def test_a_bad_profile_names_the_input_not_the_output(monkeypatch, tmp_path, capsys):
    real = detect.facts_to_profile_document

    def zero_clock(facts, **kw):
        doc = real(facts, **kw)
        doc["components"]["cpu0"]["clock"] = "0 GHz"  # what a nonsense value in the XML would become
        return doc

    monkeypatch.setattr(detect, "facts_to_profile_document", zero_clock)
    out = tmp_path / "mine.toml"
    assert main(["detect", "--hwloc-xml", str(MCDRAM), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(MCDRAM) in err and "mine.toml" not in err and not out.exists()


@pytest.mark.parametrize("model, hz", [
    ("Intel(R) Xeon Phi(TM) CPU 7210 @ 1.30GHz", 1.3e9),
    ("Intel(R) Xeon Phi CPU @ 0.0GHz", None),  # says nothing
    ("CPU @ " + "9" * 300 + "GHz", None),  # no clock has 300 digits
])
def test_clock_from_model_name(model, hz):
    got = clock_from_model_name(model)
    assert got == (pytest.approx(hz) if hz else None)


def test_a_huge_xml_clock_is_unknown_and_detect_succeeds(tmp_path, capsys):
    bad = tmp_path / "big-clock.xml"
    bad.write_text(MCDRAM.read_text().replace("@ 1.30GHz", "@ " + "9" * 300 + "GHz"))
    assert main(["detect", "--hwloc-xml", str(bad), "--json"]) == 0
    assert '"nominal_clock_hz": null' in capsys.readouterr().out


def test_a_5000_digit_disk_size_is_unknown():
    text = CXL_V3.read_text().replace('value="10485760KiB"', 'value="' + "9" * 5000 + 'KiB"')
    assert text != CXL_V3.read_text()
    facts = detect.parse_hwloc_xml(text, file="x.xml")
    assert {d.name: d.size_bytes for d in facts.disks}["sda"] is None
