"""Properties of detection: whatever a machine reveals, the profile document loads; the small
sysfs parsers invert their formatting."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pinchpoint.measure.detect import (CacheFact, DiskFact, MachineFacts, NicFact, PciDevice,
                               facts_to_profile_document, flags, parse_cache_size, parse_cpu_list,
                               parse_hwloc_xml, parse_link_speed, pcie_generation, read_sysfs)
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.physics.linkkinds import PCIE_GENERATIONS


caches = st.lists(st.builds(
    CacheFact, level=st.integers(1, 4), type=st.sampled_from(["data", "instruction", "unified"]),
    size_bytes=st.integers(1, 2 ** 30), line_bytes=st.none() | st.sampled_from([32, 64, 128]),
    associativity=st.none() | st.integers(0, 32), shared_by=st.none() | st.integers(1, 64)), max_size=5)
speeds = st.none() | st.sampled_from([g.lane_rate for g in PCIE_GENERATIONS.values()])
widths = st.none() | st.sampled_from([1, 2, 4, 8, 16])
addresses = st.sampled_from(["0000:01:00.0", "0000:02:00.0", "0000:81:00.1"])
pci = st.lists(st.builds(PciDevice, address=addresses, class_code=st.none() | st.just("0x020000"),
                         current_speed=speeds, current_width=widths, max_speed=speeds, max_width=widths,
                         link_bytes_per_s=st.none() | st.floats(1e6, 1e11),
                         numa_node=st.none() | st.integers(0, 3)),
               max_size=3, unique_by=lambda d: d.address)
nics = st.lists(st.builds(NicFact, name=st.sampled_from(["eth0", "ens1f0", "ib0", "enp65s0"]),
                          speed_bytes_per_s=st.none() | st.sampled_from([1e9 / 8, 10e9 / 8, 100e9 / 8]),
                          mtu=st.none() | st.sampled_from([1500, 9000]), pci_address=st.none() | addresses),
                max_size=3, unique_by=lambda n: n.name)
disks = st.lists(st.builds(DiskFact, name=st.sampled_from(["sda", "nvme0n1", "vda"]),
                           size_bytes=st.none() | st.integers(1, 2 ** 44), rotational=st.none() | st.booleans(),
                           pci_address=st.none() | addresses), max_size=2, unique_by=lambda d: d.name)
facts = st.builds(
    MachineFacts, cpu_model=st.none() | st.text(min_size=1, max_size=30), sockets=st.none() | st.integers(1, 4),
    cores=st.none() | st.integers(1, 256), threads=st.none() | st.integers(1, 512),
    nominal_clock=st.none() | st.floats(1e8, 6e9), current_clock=st.none() | st.floats(1e8, 6e9),
    governor=st.none() | st.sampled_from(["powersave", "performance", "schedutil"]),
    caches=caches.map(tuple), memory_bytes=st.none() | st.integers(1, 2 ** 42),
    pci=pci.map(tuple), nics=nics.map(tuple), disks=disks.map(tuple),
    hostname=st.none() | st.sampled_from(["host", "9lives", "a b"]))


#: Two ports of one PCI function at different speeds (hypothesis found it): the card states
#: no line rate of its own, each port's wire its own rate.
TWO_SPEEDS = MachineFacts(
    cpu_model=None, sockets=None, cores=None, threads=None, nominal_clock=None, current_clock=None,
    governor=None, caches=(), memory_bytes=None, pci=(), disks=(), hostname=None,
    nics=(NicFact(name="eth0", speed_bytes_per_s=1.25e9, mtu=None, pci_address="0000:02:00.0"),
          NicFact(name="ens1f0", speed_bytes_per_s=1.25e8, mtu=None, pci_address="0000:02:00.0")))


@settings(max_examples=60, deadline=None)
@given(facts, st.none() | st.floats(1e8, 1e12))
@example(TWO_SPEEDS, None)
def test_any_facts_give_a_loadable_profile(f, memory_rate):
    doc = facts_to_profile_document(f, memory_rate=memory_rate)
    p = profile_from_document(doc)
    for link in p.links.values():
        assert link.capacity_bytes_per_s > 0
    assert ("mem-copy" in p.flows) == bool(memory_rate)
    for fl in flags(f):
        assert fl.message


@given(st.integers(1, 10 ** 6), st.sampled_from(["", "K", "M", "G"]))
def test_cache_size(n, suffix):
    assert parse_cache_size(f"{n}{suffix}") == n * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[suffix]


@given(st.sampled_from(sorted(PCIE_GENERATIONS)), st.booleans())
def test_link_speed_and_generation(gen, suffix):
    rate = PCIE_GENERATIONS[gen].lane_rate
    text = f"{rate / 1e9:.1f} GT/s" + (" PCIe" if suffix else "")
    assert pcie_generation(parse_link_speed(text)) == gen


@given(st.sets(st.integers(0, 300), max_size=40))
def test_cpu_list_round_trip(cpus):
    runs, ordered = [], sorted(cpus)
    for c in ordered:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    text = ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in runs)
    assert parse_cpu_list(text) == ordered


# --- bad input never escapes as anything but InputError ---------------------------------------

_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_SYSFS = _FIXTURES / "sysfs" / "x5460-throttled-pcie-x4"
_SYSFS_FILES = sorted(str(p.relative_to(_SYSFS)) for p in _SYSFS.rglob("*") if p.is_file() and not p.is_symlink())
_XML = (_FIXTURES / "hwloc" / "vm-amd-epyc-2core-lstopo-2.9.0.xml").read_text()


_TREE = tempfile.TemporaryDirectory(prefix="pinchpoint-sysfs-")  # one copy, restored after each example
_ROOT = Path(_TREE.name) / "root"
shutil.copytree(_SYSFS, _ROOT, symlinks=True)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_SYSFS_FILES),
       st.text(max_size=20) | st.sampled_from(["0", "0K", "-1", "255", "7", "0.0 GT/s", "Unknown", "",
                                               "4294967295", "0x0", "99999999999"]))
def test_any_garbage_in_one_sysfs_file_is_facts_or_input_error(rel, garbage):
    target = _ROOT / rel
    original = target.read_bytes()
    target.write_text(garbage, encoding="utf-8", errors="surrogatepass")
    try:
        facts = read_sysfs(_ROOT)
    except InputError as exc:
        assert rel.split("/")[-1] in str(exc)
    else:
        profile_from_document(facts_to_profile_document(facts))
        flags(facts)
    finally:
        target.write_bytes(original)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, len(_XML)), st.text(max_size=10))
def test_any_cut_or_spliced_hwloc_xml_is_facts_or_input_error(cut, splice):
    try:
        facts = parse_hwloc_xml(_XML[:cut] + splice + _XML[cut:], file="t.xml")
    except InputError as exc:
        assert "t.xml" in str(exc)
    else:
        profile_from_document(facts_to_profile_document(facts))


_KERNCRAFT = (_FIXTURES / "kerncraft" / "zen-epyc-7451-small-0.8.3.yml").read_text()


@settings(max_examples=80, deadline=None)
@given(st.integers(0, len(_KERNCRAFT)), st.integers(0, 40),
       st.sampled_from(["", "x", "0", " - ", ": ", "[", "GB/s", "\n  ", "-1", "null", "{}", "1e999", "true"]))
def test_any_damaged_kerncraft_file_is_a_profile_or_input_error(at, drop, splice):
    from pinchpoint.importers import kerncraft

    text = _KERNCRAFT[:at] + splice + _KERNCRAFT[at + drop:]
    try:
        machine = kerncraft.load_machine(text, file="k.yml")
        profile_from_document(kerncraft.to_profile_document(machine, file="k.yml"))
        kerncraft.to_signature(machine, file="k.yml")
    except InputError as exc:
        assert "k.yml" in str(exc)


_ATTRS = [(m.start(1), m.end(1)) for m in re.finditer(r'\w+="([^"]*)"', _XML)]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_ATTRS),
       st.sampled_from(["0", "-1", "-5", "1e999", "nan", "inf", "", "x", "99999999999999999999", "0.5", "6"]))
def test_any_hwloc_attribute_value_is_facts_or_input_error(span, value):
    text = _XML[:span[0]] + value + _XML[span[1]:]
    try:
        facts = parse_hwloc_xml(text, file="t.xml")
    except InputError as exc:
        assert "t.xml" in str(exc)
    else:
        profile_from_document(facts_to_profile_document(facts))
        flags(facts)
