"""facts_to_profile_document: the detected machine loads as a normal profile and its ceilings
follow from the detected links (values computed independently below)."""

from __future__ import annotations

import pytest
from detect_paths import HWLOC_XML, SYSFS

from pinchpoint.solve.ceilings import all_ceilings
from pinchpoint.measure.detect import (MachineFacts, facts_to_profile_document, memory_rate_from_signature,
                               parse_hwloc_xml, read_sysfs)
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.inputs.signature import KernelRun, Point, Result, Signature

# PCIe 3.0 x4 (the fixture NIC's negotiated link): 8 GT/s x 4 lanes x 128/130 / 8 bits [B/s]
PCIE3_X4 = 8e9 * 4 * 128 / 130 / 8


@pytest.fixture(scope="module")
def facts():
    return read_sysfs(SYSFS)


def test_fixture_profile_loads_and_binds_on_the_downgraded_link(facts):
    doc = facts_to_profile_document(facts)
    p = profile_from_document(doc)
    assert p.name == "acer-r520"
    cpu = p.components["cpu0"]
    assert cpu.get("clock") == pytest.approx(3.16e9) and cpu.get("current_clock") == pytest.approx(2e9)
    assert cpu.get("cores") == 4 and "flops_per_cycle" in cpu.unknown
    assert [(c.level, c.size.si) for c in cpu.caches] == [(1, 32768), (1, 32768), (2, 6 * 2 ** 20)]
    link = p.links["pcie-nic-eth0"]
    assert link.kind == "pcie" and link.capacity_bytes_per_s == pytest.approx(PCIE3_X4)
    assert p.components["nic-eth0"].get("line_rate") == pytest.approx(12.5e9)
    assert "memory" not in p.links and "mem-copy" not in p.flows  # memory bandwidth is not invented
    ceilings = {c.name: c for c in all_ceilings(p)}
    rx = ceilings["nic-rx"]
    assert rx.ceiling_bytes_per_s == pytest.approx(PCIE3_X4)  # 3.94 GB/s < 12.5 GB/s line rate
    assert list(rx.binding) == ["pcie-nic-eth0"]
    assert p.flows["nic-rx"].sink == "cpu0"


def test_measured_memory_link_completes_the_flows(facts):
    doc = facts_to_profile_document(facts, memory_rate=6.4e9, memory_source="measured: test")
    p = profile_from_document(doc)
    assert p.links["memory"].duplex == "half"
    assert p.flows["nic-rx"].sink == "memory"
    ceilings = {c.name: c.ceiling_bytes_per_s for c in all_ceilings(p)}
    assert ceilings["mem-copy"] == pytest.approx(6.4e9 / 2)  # read and write share the link
    assert ceilings["nic-rx"] == pytest.approx(PCIE3_X4)  # 3.94 GB/s still below 6.4 GB/s


def test_vm_profile_lists_unknowns():
    facts = parse_hwloc_xml(HWLOC_XML.read_text())
    doc = facts_to_profile_document(facts)
    p = profile_from_document(doc)
    assert "clock" in p.components["cpu0"].unknown
    assert "line_rate" in p.components["nic-eth0"].unknown  # hwloc gives no NIC line rate
    assert "links" not in doc and "flows" not in doc  # nothing with a known capacity


def test_empty_facts_still_load():
    p = profile_from_document(facts_to_profile_document(MachineFacts()))
    assert set(p.components) == {"cpu0", "memory"}
    assert set(p.components["cpu0"].unknown) >= {"clock", "cores"}


def _sig(kernels):
    return Signature({"name": "t", "cpu_model": "x"}, {}, "2026-01-01", kernels)


def _pt(value, **params):
    return Point(params, Result.from_repetitions("B/s", [value * 0.98, value, value * 1.01]))


def test_memory_rate_from_stream_takes_the_largest_working_set():
    sig = _sig({"stream": KernelRun(None, (
        _pt(30e9, op="copy", working_set_bytes=3 * 8 * 1024),  # in cache: not memory
        _pt(11e9, op="copy", working_set_bytes=402653184),
        _pt(12e9, op="triad", working_set_bytes=402653184)))})
    rate, source = memory_rate_from_signature(sig, file="s.json")
    # the best of the repetitions [0.98, 1, 1.01] x 12 GB/s (STREAM's "Best Rate")
    assert rate == pytest.approx(12.12e9) and "STREAM" in source and "triad" in source and "s.json" in source
    assert "best of 3 repetitions" in source and "median 12 GB/s" in source and "spread max/min 1.03" in source


def test_memory_rate_takes_the_highest_of_stream_and_multithreaded_maps():
    # the quick plan on the 2-core VM: STREAM (1 thread) 27.6 GB/s, MAPS load on 2 threads 28.5 GB/s
    sig = _sig({"stream": KernelRun(None, (_pt(27.6e9, op="scale", working_set_bytes=402653184),)),
                "maps": KernelRun(None, (
                    _pt(14.5e9, op="load", pattern="stride1", threads=1, working_set_bytes=134217728),
                    _pt(28.5e9, op="load", pattern="stride1", threads=2, working_set_bytes=134217728),
                    _pt(0.05e9, op="load", pattern="random", threads=1, working_set_bytes=134217728)))})
    rate, source = memory_rate_from_signature(sig)
    assert rate == pytest.approx(28.5e9 * 1.01) and "MAPS" in source and "threads=2" in source


def test_memory_rate_needs_bandwidth_points():
    with pytest.raises(InputError, match="no STREAM"):
        memory_rate_from_signature(_sig({"peak": KernelRun(None, ())}))
