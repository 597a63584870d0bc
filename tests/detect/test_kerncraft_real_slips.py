"""kerncraft import reads what real machine files hold: the chip's own write-allocate
behaviour, never a capacity above the DIMMs' peak, slips skipped with a warning where the figure
does not depend on them, `model type` where `model name` is null (see the fixture's header)."""

from __future__ import annotations

import pytest
from detect_paths import FIXTURES

from pinchpoint.errors import InputError
from pinchpoint.importers import kerncraft
from pinchpoint.importers.kerncraft_memory import dimm_peak
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.solve.ceilings import flow_ceiling

SLIPS = FIXTURES / "kerncraft" / "no-write-allocate-small.yml"
#: two DDR4 DIMMs at 1600 MT/s, 64 data bits each (JEDEC JESD79-4): 2 x 8 B x 1.6e9
TWO_DIMMS = 2 * 8 * 1600e6


def _machine(text=None, notes=None):
    return kerncraft.load_machine(text or SLIPS.read_text(), file="m.yml", notes=notes)


def test_core_list_with_a_lost_comma_is_read_with_a_note():
    notes = []
    m = _machine(notes=notes)
    block = m["benchmarks"]["measurements"]["MEM"][1]
    assert block["cores"] == [1, 2, 3, 4] and block["threads"] == [1, 2, 3, 4]
    assert any("cores[2] = '3 4'" in n and "comma" in n for n in notes)


def test_copy_above_the_load_figure_means_no_write_allocate():
    p = profile_from_document(kerncraft.to_profile_document(_machine(), file="m.yml"))
    # 20 GB/s x 1.5 = 30 GB/s would exceed the 24 GB/s the four cores read alone
    assert p.links["mem0"].capacity_bytes_per_s == pytest.approx(20e9)
    assert "avoids the write-allocate" in p.links["mem0"].params["rate"].source
    assert flow_ceiling(p, "mem-copy").ceiling_bytes_per_s == pytest.approx(20e9 / 2)  # the copy measured


def test_capacity_never_above_the_dimms_peak():
    m = _machine()
    assert dimm_peak(m)[0] == pytest.approx(TWO_DIMMS)
    fast = SLIPS.read_text().replace("load: [9.00 GB/s, 16.00 GB/s, 21.00 GB/s, 24.00 GB/s]",
                                     "load: [9.00 GB/s, 16.00 GB/s, 21.00 GB/s, 31.00 GB/s]")
    rate, how, passes = kerncraft.memory_rate(_machine(fast), file="m.yml")
    # with write-allocate 30 GB/s, within the load figure, but above the DIMMs' 25.6 GB/s
    assert rate == pytest.approx(TWO_DIMMS) and passes == pytest.approx(3.0) and "DIMMs' peak" in how


def test_write_allocate_kept_where_the_figures_allow_it():
    text = SLIPS.read_text().replace("copy: [8.00 GB/s, 14.00 GB/s, 18.00 GB/s, 20.00 GB/s]",
                                     "copy: [8.00 GB/s, 14.00 GB/s, 15.00 GB/s, 16.00 GB/s]")
    rate, _, passes = kerncraft.memory_rate(_machine(text), file="m.yml")
    assert rate == pytest.approx(16e9 * 1.5) and passes == pytest.approx(3.0)  # 24 GB/s, the load figure


def test_model_type_names_a_null_model_name():
    doc = kerncraft.to_profile_document(_machine(), file="m.yml")
    assert doc["components"]["cpu0"]["model"] == "Small test chip (ARMv8)"
    assert "None" not in doc["description"]
    sig = kerncraft.to_signature(_machine(), file="m.yml", notes=[])
    assert sig.host["cpu_model"] == "Small test chip (ARMv8)"


def test_malformed_repetition_is_skipped_with_a_note():
    notes = []
    sig = kerncraft.to_signature(_machine(), file="m.yml", notes=notes)
    p = sig.points("likwid_bench", op="copy", level="MEM", cores=2)[0]
    assert p.result.repetitions == (14e9,) or list(p.result.repetitions) == [14e9]
    assert any("stats.copy[1][1]" in n and "skipped" in n for n in notes)
    with pytest.raises(InputError, match=r"stats\.copy\[1\]\[1\]"):  # without a place for notes: refused
        kerncraft.to_signature(_machine(), file="m.yml")


def test_cli_warns_once_per_slip(cli, tmp_path):
    r = cli("import", "kerncraft", str(SLIPS), "-o", str(tmp_path / "k.toml"), "--signature", str(tmp_path / "k.json"))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("comma") == 3 and "Traceback" not in r.stderr  # cores, threads, the repetition


def test_huge_integer_is_one_clear_error():
    text = SLIPS.read_text().replace("sockets: 1", "sockets: " + "9" * 5000)
    with pytest.raises(InputError) as e:
        _machine(text)
    assert e.value.file == "m.yml" and e.value.line == 11 and "digits" in str(e.value)


def test_a_lone_port_name_is_kept_as_a_string():
    """A port list edited down to one bare value (``OSACA: 5.0``) is metadata, read as it is
    (it raised a TypeError inside the import)."""
    fixture = FIXTURES / "kerncraft" / "kerncraft-A64FX_qpace4-mem-only.yml"
    text = fixture.read_text().replace("OSACA: ['5D', '6D']", "OSACA: 5.0")
    machine = kerncraft.load_machine(text, file="m.yml")
    ports = kerncraft.to_signature(machine, file="m.yml").host["kerncraft"]["non_overlapping_model_ports"]
    assert ports["OSACA"] == "5.0" and tuple(ports["LLVM-MCA"]) == ("A64FXIPEAGA", "A64FXIPEAGB")


@pytest.mark.parametrize("copy_streams", [
    # a copy that moves no bytes: the write-allocate factor divided by zero
    ("read streams: {bytes: 0.00 B, streams: 0}", "write streams: {bytes: 0.00 B, streams: 0}"),
    # more bytes read and written in place than read at all: a negative factor
    ("read+write streams: {bytes: 16.00 B, streams: 2}", "write streams: {bytes: 8.00 B, streams: 1}")])
def test_a_copy_that_moves_no_bytes_or_more_in_place_than_read_is_refused(copy_streams):
    text = SLIPS.read_text()
    head, tail = text.split("    load:", 1)
    if "read+write" in copy_streams[0]:
        head = head.replace("read+write streams: {bytes: 0.00 B, streams: 0}", copy_streams[0])
    else:
        head = head.replace("read streams: {bytes: 8.00 B, streams: 1}", copy_streams[0])
        head = head.replace("write streams: {bytes: 8.00 B, streams: 1}", copy_streams[1])
    with pytest.raises(InputError) as e:
        kerncraft.to_profile_document(_machine(head + "    load:" + tail), file="m.yml")
    assert e.value.file == "m.yml" and e.value.key == "benchmarks.kernels.copy"
    assert "must move bytes" in e.value.message
