"""Every validation rule of the detect and importer edge makes its error fire, naming the file
and the key (DESIGN.md, "Errors")."""

from __future__ import annotations

import copy

import pytest
from detect_paths import KERNCRAFT

from pinchpoint.measure.detect import parse_hwloc_xml, read_sysfs
from pinchpoint.errors import InputError
from pinchpoint.importers import fio, kerncraft, likwid


@pytest.fixture(scope="module")
def machine():
    return kerncraft.load_machine(KERNCRAFT.read_text(), file="m.yml")


def _mutate(machine, path, value):
    m = copy.deepcopy(machine)
    target = m
    for k in path[:-1]:
        target = target[k]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return m


_DELETE = object()
MEM = ("benchmarks", "measurements", "MEM", 1)


@pytest.mark.parametrize("path, value, key, words", [
    (("cores per socket",), 0, "cores per socket", "whole number >= 1"),
    (("sockets",), "two", "sockets", "whole number >= 1"),
    (("memory hierarchy", 0, "level"), "L9", "memory hierarchy[0].level", "L1 .. L5 or MEM"),
    (("memory hierarchy", 1), "L2", "memory hierarchy[1]", "expected a mapping"),
    (("memory hierarchy", 0), {"level": "L1", "cores per group": 1}, "memory hierarchy[0]", "sets, ways, cl_size"),
    (("memory hierarchy", 0, "cache per group", "ways"), -4, "cache per group.ways", "whole number"),
    (("FLOPs per cycle",), {"DP": {"total": "eight"}}, "FLOPs per cycle.DP.total", "positive number"),
    (("clock",), 2.3, "clock", "has no unit"),
    (MEM, {"cores": [1], "results": {"copy": ["1 GB/s"]}}, "MEM.1", "'total size' or 'size per thread'"),
    (MEM + ("cores",), "1-2", "MEM.1.cores", "expected a list"),
    (MEM + ("cores",), [1, "2x"], "MEM.1.cores[1]", "whole number >= 1"),
    (MEM + ("threads",), [1, 0], "MEM.1.threads[1]", "whole number >= 1"),
    (MEM + ("total size",), ["1e999 MB", "1 MB"], "MEM.1.total size[0]", "not finite"),
    # kerncraft's PrefixedUnit.PREFIXES reads T as 1e13: refuse rather than guess
    (("benchmarks", "measurements", "L1", 1, "results", "copy"), ["9.50 TB/s", "1 GB/s"],
     "L1.1.results.copy[0]", "ambiguous"),
    (MEM + ("results",), ["copy"], "MEM.1.results", "mappings"),
    # the profile reads the figure at the chip's core count (the last of two here) first
    (MEM + ("results", "copy"), ["14 GB", "22 GB"], "MEM.1.results.copy[1]", "bandwidth"),
    (MEM + ("results", "copy"), ["-14 GB/s", "22 GB/s"], "MEM.1.results.copy[0]", "must not be negative"),
    (MEM + ("results", "copy"), ["14 GB/s -", "22 GB/s"], "MEM.1.results.copy[0]", "not a quantity"),
    (("benchmarks",), "none", "benchmarks", "expected a mapping"),
    (("benchmarks", "measurements", "MEM"), [1, 2], "measurements.MEM", "threads per core"),
])
def test_kerncraft_rules(machine, path, value, key, words):
    bad = _mutate(machine, path, value)
    with pytest.raises(InputError) as err:
        kerncraft.to_profile_document(bad, file="m.yml")
        kerncraft.to_signature(bad, file="m.yml")
    msg = str(err.value)
    assert msg.startswith("m.yml: ") and key in msg and words in msg, msg


@pytest.mark.parametrize("text, words", [
    ("- a list\n", "a YAML mapping"),
    ("kerncraft version: 0.8.3\nclock: 2 GHz\ncores per socket: 2\nmemory hierarchy: []\nmodel name: x\n",
     "memory hierarchy: expected a list of levels"),
    ("kerncraft version: 0.8.3\nclock: 2 GHz\nmemory hierarchy: [1]\nmodel name: x\n", "cores per socket: missing"),
])
def test_kerncraft_file_rules(text, words):
    with pytest.raises(InputError, match="f.yml") as err:
        kerncraft.load_machine(text, file="f.yml")
    assert words in str(err.value)


def test_kerncraft_without_measurements(machine):
    bare = _mutate(machine, ("benchmarks",), _DELETE)
    doc = kerncraft.to_profile_document(bare, file="m.yml")
    assert "links" not in doc and "flows" not in doc  # no measured memory bandwidth: no link
    with pytest.raises(InputError, match="no likwid-bench measurements"):
        kerncraft.to_signature(bare, file="m.yml")


@pytest.mark.parametrize("text, words", [
    ("LIKWID MICRO BENCHMARK\nTest: co py\n", "kernel name"),
    ("LIKWID MICRO BENCHMARK\nTest: copy\nSize (Byte): 8\nMByte/s: -5\n", "negative"),
    ("LIKWID MICRO BENCHMARK\nTest: copy\nSize (Byte): eight\nMByte/s: 5\n", "Size (Byte)"),
])
def test_likwid_rules(text, words):
    with pytest.raises(InputError, match="o.txt") as err:
        likwid.parse_likwid_bench(text, file="o.txt")
    assert words in str(err.value)


@pytest.mark.parametrize("job, words", [
    ('{"jobname": "j", "job options": {"iodepth": "deep"}, "read": {"io_bytes": 1, "bw_bytes": 1}}', "iodepth"),
    ('{"jobname": "j", "job options": {}, "read": {"io_bytes": 1, "bw_bytes": "fast"}}', "bw_bytes"),
    ('"just a string"', "expected an object"),
])
def test_fio_rules(job, words):
    with pytest.raises(InputError, match="f.json") as err:
        fio.parse_fio_json('{"jobs": [' + job + ']}', file="f.json")
    assert words in str(err.value)


def test_fio_global_options_rule():
    with pytest.raises(InputError, match="global options"):
        fio.parse_fio_json('{"global options": [], "jobs": []}', file="f.json")


def test_hwloc_float_attribute_rule():
    xml = '<topology><object type="PCIDev" pci_busid="0000:01:00.0" pci_link_speed="fast"/></topology>'
    with pytest.raises(InputError, match="pci_link_speed='fast'"):
        parse_hwloc_xml(xml, file="t.xml")


@pytest.mark.parametrize("rel, text, words", [
    ("sys/devices/system/cpu/online", "0-3;7", "CPU list"),
    ("sys/devices/system/cpu/cpu0/cache/index0/type", "Sideways", "'Data', 'Instruction' or 'Unified'"),
    ("sys/devices/system/cpu/cpu0/cache/index2/shared_cpu_list", "all", "CPU list"),
    ("sys/devices/system/cpu/cpu1/topology/core_id", "one", "core number"),
    ("sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/numa_node", "north", "NUMA node"),
    ("sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/nvme/nvme0/nvme0n1/size", "big", "512-byte sectors"),
    ("sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/nvme/nvme0/nvme0n1/queue/rotational", "no", "0 or 1"),
    ("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0/mtu", "jumbo", "MTU"),
])
def test_sysfs_rules(sysfs_copy, rel, text, words):
    (sysfs_copy / rel).write_text(text + "\n")
    with pytest.raises(InputError) as err:
        read_sysfs(sysfs_copy)
    assert rel.split("/")[-1] in str(err.value) and words in str(err.value)


def test_cpuinfo_mhz_rule(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/cpuinfo").write_text("processor\t: 0\ncpu MHz\t\t: lots\n")
    with pytest.raises(InputError, match="cpu MHz"):
        read_sysfs(tmp_path)
