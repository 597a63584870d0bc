"""parse_hwloc_xml against a recorded `lstopo --of xml` of a real machine (see conftest)."""

from __future__ import annotations

import pytest

from pinchpoint.measure.detect import parse_hwloc_xml
from pinchpoint.errors import InputError, PinchpointError

from detect_paths import HWLOC_XML


@pytest.fixture(scope="module")
def facts():
    return parse_hwloc_xml(HWLOC_XML.read_text(), file=str(HWLOC_XML))


def test_topology(facts):
    # The XML holds 1 Package, 2 Core and 2 PU objects; CPUModel "AMD EPYC".
    assert (facts.sockets, facts.cores, facts.threads) == (1, 2, 2)
    assert facts.cpu_model == "AMD EPYC"
    assert facts.nominal_clock is None  # hwloc gives no clock and the model name states none
    assert facts.memory_bytes == 5597507584  # NUMANode local_memory


def test_caches(facts):
    got = {(c.level, c.type): (c.size_bytes, c.line_bytes, c.associativity, c.shared_by) for c in facts.caches}
    assert got == {
        (1, "data"): (32768, 64, 8, 1),
        (1, "instruction"): (32768, 64, 8, 1),
        (2, "unified"): (1048576, 64, 8, 1),
        (3, "unified"): (33554432, 64, 16, 2),  # one L3 over both cores
    }


def test_devices(facts):
    assert [(n.name, n.pci_address) for n in facts.nics] == [("eth0", "0000:00:03.0")]
    assert [(d.name, d.size_bytes, d.pci_address) for d in facts.disks] == [("vda", 256 * 2 ** 30, "0000:00:02.0")]
    # pci_link_speed="0.000000": a virtio device has no PCIe link -> unknown, not zero
    assert all(d.link_bytes_per_s is None for d in facts.pci)
    assert {d.address: d.class_code for d in facts.pci} == {"0000:00:02.0": "0x0180", "0000:00:03.0": "0x0200"}


def test_hwloc1_cache_objects_and_link_speed():
    xml = """<?xml version="1.0"?><topology><object type="Machine" local_memory="1073741824">
      <object type="Socket"><info name="CPUModel" value="Intel(R) Xeon(R) CPU E5-2680 0 @ 2.70GHz"/>
        <object type="Cache" depth="2" cache_size="262144" cache_linesize="64" cache_associativity="8" cache_type="0">
          <object type="Cache" depth="1" cache_size="32768" cache_linesize="64" cache_associativity="8" cache_type="1">
            <object type="Core"><object type="PU"/></object></object></object></object>
      <object type="Bridge"><object type="PCIDev" pci_busid="0000:03:00.0" pci_type="0200 [8086:10fb] [8086:000c] 01"
        pci_link_speed="4.000000"><object type="OSDev" name="eth2" osdev_type="2"/></object></object>
    </object></topology>"""
    f = parse_hwloc_xml(xml)
    assert f.nominal_clock == pytest.approx(2.70e9)
    assert [(c.level, c.type, c.size_bytes) for c in f.caches] == [(1, "data", 32768), (2, "unified", 262144)]
    assert f.memory_bytes == 1073741824
    # hwloc's pci_link_speed is GB/s per direction: 8 lanes x 5 GT/s x 8/10 / 8 = 4 GB/s
    assert f.pci[0].link_bytes_per_s == pytest.approx(4e9)
    assert f.nics[0].name == "eth2" and f.pci[0].vendor == "0x8086"


def test_truncated_xml_is_a_clear_error():
    text = HWLOC_XML.read_text()
    with pytest.raises(InputError) as err:
        parse_hwloc_xml(text[: len(text) // 2], file="cut.xml")
    msg = str(err.value)
    assert "cut.xml" in msg and "truncated" in msg and "line" in msg
    assert isinstance(err.value, PinchpointError)


@pytest.mark.parametrize("text, words", [
    ("<html><body/></html>", "root element is <html>"),
    ("<topology></topology>", "no objects"),
    ('<topology><object type="L2Cache" cache_size="lots"/></topology>', "cache_size='lots'"),
])
def test_not_a_topology(text, words):
    with pytest.raises(InputError, match="x.xml") as err:
        parse_hwloc_xml(text, file="x.xml")
    assert words in str(err.value)


@pytest.mark.parametrize("old, new", [
    ('pci_link_speed="0.000000"', 'pci_link_speed="nan"'),
    ('local_memory="5597507584"', 'local_memory="-5"'),
])
def test_nonsense_numbers_are_unknown(old, new):
    """Found by fuzzing: these became profile values that do not validate."""
    from pinchpoint.measure.detect import facts_to_profile_document
    from pinchpoint.inputs.profile import profile_from_document

    text = HWLOC_XML.read_text().replace(old, new)
    profile_from_document(facts_to_profile_document(parse_hwloc_xml(text)))


# --- XML format 3.0 (hwloc's own test topologies, tests/fixtures/hwloc/README.md)

from detect_paths import FIXTURES  # noqa: E402

CXL_V3 = FIXTURES / "hwloc" / "hwloc-cxlmem+dax.v3.xml"
CXL_V2 = FIXTURES / "hwloc" / "hwloc-cxlmem+dax.v2.xml"


def _parse(path):
    return parse_hwloc_xml(path.read_text(), file=str(path))


def test_format_3_osdev_bit_flags_keep_nics_and_disks():
    f = _parse(CXL_V3)
    # enp0s2 has osdev_type="16" (network); sr0 and sda "1" (storage)
    assert [(n.name, n.pci_address) for n in f.nics] == [("enp0s2", "0000:00:02.0")]
    assert [(d.name, d.size_bytes) for d in f.disks] == [("sr0", 1048575 * 1024), ("sda", 10485760 * 1024)]
    # the CXL memory devices (osdev_type 2 = memory, 3 = storage | memory) are neither NICs nor disks
    names = {n.name for n in f.nics} | {d.name for d in f.disks}
    assert not names & {"mem0", "mem1", "mem2", "mem3"}


def test_format_2_and_3_of_the_same_machine_agree():
    v2, v3 = _parse(CXL_V2), _parse(CXL_V3)
    assert v2.nics == v3.nics and v2.disks == v3.disks
    assert (v2.cores, v2.memory_bytes, v2.caches) == (v3.cores, v3.memory_bytes, v3.caches)


def test_unknown_format_version_is_an_error():
    text = CXL_V3.read_text().replace('<topology version="3.0">', '<topology version="4.0">')
    with pytest.raises(InputError, match="format version '4.0'") as e:
        parse_hwloc_xml(text, file="future.xml")
    assert e.value.file == "future.xml"


def test_detect_from_a_file_does_not_mix_in_this_machine(capsys, monkeypatch):
    # the "live" machine stands in as the recorded X5460 tree: its CPU, clock and disks must not
    # appear in a profile of the file's QEMU machine
    import json

    from detect_paths import SYSFS

    from pinchpoint.measure import detect
    from pinchpoint.cli import main

    live = detect.read_sysfs(SYSFS)
    assert live.cpu_model and "X5460" in live.cpu_model
    monkeypatch.setattr(detect, "read_sysfs", lambda root=None: live)
    assert main(["detect", "--hwloc-xml", str(CXL_V3), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    facts = doc["facts"]
    assert facts["cpu_model"] == "QEMU Virtual CPU version 2.5+"
    assert "X5460" not in json.dumps(doc)
    assert facts["memory_bytes"] == _parse(CXL_V3).memory_bytes
    assert [d["name"] for d in facts["disks"]] == ["sr0", "sda"]
    assert facts.get("nominal_clock") is None and facts.get("current_clock") is None


def test_detect_from_a_file_refuses_to_measure_this_machine(capsys):
    from pinchpoint.cli import main

    assert main(["detect", "--hwloc-xml", str(CXL_V3), "--measure"]) == 2
    assert "--measure" in capsys.readouterr().err


# --- hybrid CPUs keep every cache, shared_by counts cores ----------------------

def _by_kind(path):
    f = _parse(FIXTURES / "hwloc" / path)
    return f, {(c.level, c.type, c.cpu_kind): (c.size_bytes, c.shared_by, c.instances) for c in f.caches}


def test_raptor_lake_p_and_e_core_caches():
    # Intel Core i7-1370P: 6 P-cores (48 KiB L1d, 32 KiB L1i, 1.25 MiB L2 each) and 8 E-cores
    # (32 KiB L1d, 64 KiB L1i, 2 MiB L2 per cluster of 4); 24 MiB L3 for all 14 cores (20 threads)
    f, got = _by_kind("hwloc-Intel-RaptorLake-Corei7-1370P.xml")
    assert (f.cores, f.threads) == (14, 20)
    assert got[(1, "data", "IntelCore")] == (48 * 1024, 1, 6)
    assert got[(1, "data", "IntelAtom")] == (32 * 1024, 1, 8)
    assert got[(1, "instruction", "IntelAtom")] == (64 * 1024, 1, 8)
    assert got[(2, "unified", "IntelCore")] == (1280 * 1024, 1, 6)
    assert got[(2, "unified", "IntelAtom")] == (2 * 2**20, 4, 2)
    assert got[(3, "unified", "IntelAtom+IntelCore")] == (24 * 2**20, 14, 1)  # 14 cores, not 20 threads


def test_strix_point_keeps_both_l3s():
    # AMD Ryzen AI 9 HX 370: 4 Zen 5 cores share 16 MiB of L3, 8 Zen 5c cores 8 MiB
    _, got = _by_kind("hwloc-AMD-1Ah-Zen5StrixPoint-RyzenAI9HX370.xml")
    assert got[(3, "unified", "AMDPerformance")] == (16 * 2**20, 4, 1)
    assert got[(3, "unified", "AMDEfficiency")] == (8 * 2**20, 8, 1)


def test_gb10_keeps_both_core_types_l2():
    # NVIDIA GB10: 10 Cortex-X925 (CPUPart 0xd85, 2 MiB L2) and 10 Cortex-A725 (0xd87, 512 KiB L2)
    _, got = _by_kind("hwloc-nvidia-dgx-gb10.xml")
    assert got[(2, "unified", "0xd85")] == (2 * 2**20, 1, 10)
    assert got[(2, "unified", "0xd87")] == (512 * 1024, 1, 10)


def test_a_homogeneous_machine_names_no_core_kind():
    f = _parse(CXL_V3)
    assert all(c.cpu_kind is None for c in f.caches)
    assert {(c.level, c.type): c.instances for c in f.caches} == {
        (1, "data"): 4, (1, "instruction"): 4, (2, "unified"): 4, (3, "unified"): 1}
