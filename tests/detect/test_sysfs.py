"""read_sysfs and flags against the hand-assembled tree (detect_paths.SYSFS), and bad trees."""

from __future__ import annotations

import pytest
from detect_paths import HWLOC_XML, SYSFS

from pinchpoint.measure.detect import (combine, flags, parse_cpu_list, parse_hwloc_xml, parse_link_speed,
                               pcie_generation, read_sysfs, unchecked)
from pinchpoint.measure.detect import facts_to_profile_document
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile import profile_from_document


@pytest.fixture(scope="module")
def facts():
    return read_sysfs(SYSFS)


def test_cpu(facts):
    assert facts.cpu_model == "Intel(R) Xeon(R) CPU X5460 @ 3.16GHz"  # whitespace runs collapsed
    assert (facts.sockets, facts.cores, facts.threads) == (1, 4, 4)
    # AARNet, "New 10G offerings" talk (2008), "New Faster Servers": 3.16 GHz X5460s "reported only running @ 2.0 GHz".
    assert facts.nominal_clock == pytest.approx(3.16e9)  # the model name wins over cpuinfo_max_freq (3.166 GHz)
    assert facts.current_clock == pytest.approx(2.0e9)  # scaling_cur_freq 2000000 kHz
    assert facts.governor == "powersave"
    assert facts.memory_bytes == 4045524 * 1024


def test_caches(facts):
    got = [(c.level, c.type, c.size_bytes, c.line_bytes, c.associativity, c.shared_by) for c in facts.caches]
    assert got == [(1, "data", 32 * 1024, 64, 8, 1), (1, "instruction", 32 * 1024, 64, 8, 1),
                   (2, "unified", 6 * 1024 * 1024, 64, 24, 2)]


def test_devices(facts):
    pci = {d.address: d for d in facts.pci}
    assert set(pci) == {"0000:00:01.0", "0000:00:03.0", "0000:01:00.0", "0000:02:00.0"}
    nic = pci["0000:01:00.0"]
    assert (nic.current_speed, nic.current_width, nic.max_speed, nic.max_width) == (8e9, 4, 16e9, 16)
    assert nic.downgraded and not pci["0000:02:00.0"].downgraded
    assert [(n.name, n.speed_bytes_per_s, n.mtu, n.pci_address) for n in facts.nics] == [
        ("eth0", 100e9 / 8, 1500, "0000:01:00.0")]  # lo has no device: left out
    assert [(d.name, d.size_bytes, d.rotational, d.pci_address) for d in facts.disks] == [
        ("nvme0n1", 1000215216 * 512, False, "0000:02:00.0")]  # loop0 left out


def test_flags_fire(facts):
    got = {(f.kind, f.subject) for f in flags(facts)}
    assert got == {("pcie-downgraded", "0000:01:00.0"),  # the bridge above it is not flagged twice
                   ("cpu-throttled", "cpu0"), ("cpu-governor", "cpu0"), ("mtu", "eth0")}
    pcie = next(f for f in flags(facts) if f.kind == "pcie-downgraded")
    assert "8 GT/s x4 but supports 16 GT/s x16" in pcie.message and "wider link" in pcie.message
    # 8 GT/s x4 at 128b/130b: 3.938 GB/s; 16 GT/s x16: 31.51 GB/s (per direction)
    assert "3.938 GB/s of 31.51 GB/s" in pcie.message


def test_no_flags_on_a_healthy_tree(sysfs_copy):
    dev = sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    (dev / "current_link_speed").write_text("16.0 GT/s PCIe\n")
    (dev / "current_link_width").write_text("16\n")
    (dev / "net/eth0/mtu").write_text("9000\n")
    freq = sysfs_copy / "sys/devices/system/cpu/cpu0/cpufreq"
    (freq / "scaling_cur_freq").write_text("3166000\n")
    (freq / "scaling_governor").write_text("performance\n")
    assert flags(read_sysfs(sysfs_copy)) == []


def test_slightly_low_clock_is_not_throttled(sysfs_copy):
    freq = sysfs_copy / "sys/devices/system/cpu/cpu0/cpufreq"
    (freq / "scaling_cur_freq").write_text("2900000\n")  # 0.92 of 3.16 GHz: idle dithering
    (freq / "scaling_governor").write_text("schedutil\n")
    assert [f.kind for f in flags(read_sysfs(sysfs_copy)) if f.kind.startswith("cpu")] == []


@pytest.mark.parametrize("rel, text, expected", [
    ("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_speed", "very fast", "PCIe link speed"),
    ("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width", "sixteen", "link width"),
    ("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2.0GHz", "frequency in kHz"),
    ("sys/devices/system/cpu/cpu0/cache/index2/size", "six megs", "cache size"),
    ("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0/speed", "\x00\x01garbage", "Mbit/s"),
    ("proc/meminfo", "MemTotal: lots\n", "MemTotal"),
])
def test_garbage_in_a_sysfs_file(sysfs_copy, rel, text, expected):
    (sysfs_copy / rel).write_text(text)
    with pytest.raises(InputError) as err:
        read_sysfs(sysfs_copy)
    msg = str(err.value)
    assert rel.split("/")[-1] in msg and expected in msg


@pytest.mark.parametrize("speed", ["-1", "65535", "4294967295", "0"])
def test_speed_unknown_sentinels(sysfs_copy, speed):
    (sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0/speed").write_text(speed + "\n")
    f = read_sysfs(sysfs_copy)
    assert f.nics[0].speed_bytes_per_s is None and [x for x in flags(f) if x.kind == "mtu"] == []


def test_slow_but_full_width_link(sysfs_copy):
    dev = sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    (dev / "current_link_width").write_text("16\n")
    (dev / "max_link_width").write_text("\n")  # empty: unknown
    (msg,) = [x.message for x in flags(read_sysfs(sysfs_copy)) if x.kind == "pcie-downgraded"]
    assert "8 GT/s x16 but supports 16 GT/s" in msg and "lower speed" in msg and "None" not in msg


def test_untrained_link_is_unknown_not_downgraded(sysfs_copy):
    (sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_speed").write_text("0.0 GT/s PCIe\n")
    (sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/current_link_width").write_text("16\n")
    assert [x for x in flags(read_sysfs(sysfs_copy)) if x.kind == "pcie-downgraded"] == []


def test_zero_cache_size_is_unknown(sysfs_copy):
    (sysfs_copy / "sys/devices/system/cpu/cpu0/cache/index2/size").write_text("0K\n")
    f = read_sysfs(sysfs_copy)
    assert [c.level for c in f.caches] == [1, 1]
    profile_from_document(facts_to_profile_document(f))


@pytest.mark.parametrize("rel, text", [
    ("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "-5"),
    ("sys/devices/system/cpu/cpu0/cache/index0/ways_of_associativity", "-1"),
    ("sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", "0"),
    ("sys/devices/pci0000:00/0000:00:03.0/0000:02:00.0/nvme/nvme0/nvme0n1/size", "-1"),
    ("proc/meminfo", "MemTotal: 0 kB"),
])
def test_non_positive_numbers_are_unknown(sysfs_copy, rel, text):
    """Found by fuzzing: these became profile values that do not validate."""
    (sysfs_copy / rel).write_text(text + "\n")
    profile_from_document(facts_to_profile_document(read_sysfs(sysfs_copy)))


def test_unknown_values_stay_unknown(sysfs_copy):
    dev = sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    (dev / "current_link_speed").write_text("Unknown\n")  # link down
    (dev / "current_link_width").write_text("0\n")
    (dev / "net/eth0/speed").write_text("-1\n")  # no carrier
    f = read_sysfs(sysfs_copy)
    nic = next(d for d in f.pci if d.address == "0000:01:00.0")
    assert nic.current_speed is None and nic.current_width is None
    assert f.nics[0].speed_bytes_per_s is None


def test_a_bare_vm_degrades_to_unknown(tmp_path):
    """No cpufreq, no PCIe link files, no NIC: everything unknown, nothing crashes."""
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/cpuinfo").write_text("processor\t: 0\nmodel name\t: Some CPU\n\nprocessor\t: 1\n")
    f = read_sysfs(tmp_path)
    assert (f.cpu_model, f.threads, f.cores, f.nominal_clock, f.current_clock) == ("Some CPU", 2, None, None, None)
    assert f.caches == () and f.pci == () and f.nics == () and flags(f) == []
    assert len(unchecked(f)) == 3  # clock, governor, PCIe: "no flags" would otherwise mislead
    assert unchecked(read_sysfs(SYSFS)) == []
    empty = read_sysfs(tmp_path / "nothing-here")
    assert empty.cpu_model is None and empty.threads is None


def test_combine_prefers_hwloc_topology_and_sysfs_details():
    hw = parse_hwloc_xml(HWLOC_XML.read_text())
    sy = read_sysfs(SYSFS)
    both = combine(hw, sy)
    assert both.caches == hw.caches and both.cores == hw.cores  # topology from hwloc
    assert both.current_clock == sy.current_clock and both.governor == "powersave"  # clocks from sysfs
    assert both.memory_bytes == sy.memory_bytes  # MemTotal over hwloc's NUMA nodes
    assert dict(both.sources)["caches"].startswith("hwloc")
    assert dict(both.sources)["current_clock"].startswith("sysfs")


@pytest.mark.parametrize("text, gts", [("8.0 GT/s PCIe", 8e9), ("2.5 GT/s", 2.5e9), ("16.0 GT/s PCIe", 16e9),
                                       ("5 GT/s", 5e9), ("Unknown", None), ("Unknown speed", None)])
def test_parse_link_speed(text, gts):
    assert parse_link_speed(text) == gts


def test_generations():
    # PCIe base specifications: 2.5, 5, 8, 16, 32, 64 GT/s are generations 1..6
    assert [pcie_generation(x * 1e9) for x in (2.5, 5, 8, 16, 32, 64)] == [1, 2, 3, 4, 5, 6]
    assert pcie_generation(10e9) is None


def test_cpu_list():
    assert parse_cpu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    with pytest.raises(InputError):
        parse_cpu_list("0-3;8")


def _hybrid_tree(root):
    """A trimmed Intel hybrid tree: one P-core with two threads (cpu0-1: 48 KiB L1d, 2 MiB L2)
    and two E-cores (cpu2, cpu3: 32 KiB L1d each, one 4 MiB L2 shared by both), one L3 for all.
    The layout of /sys/devices/system/cpu/cpuN/cache and /sys/devices/cpu_{core,atom}/cpus as
    Linux writes them on Alder/Raptor Lake."""
    cpu = root / "sys/devices/system/cpu"
    (root / "proc").mkdir(parents=True)
    (root / "proc/cpuinfo").write_text("processor\t: 0\nmodel name\t: Hybrid\n")
    (cpu).mkdir(parents=True)
    (cpu / "online").write_text("0-3\n")
    core_ids = {0: 0, 1: 0, 2: 8, 3: 9}
    caches = {  # cpu -> [(level, type, size, shared_cpu_list)]
        0: [(1, "Data", "48K", "0-1"), (2, "Unified", "2048K", "0-1"), (3, "Unified", "24576K", "0-3")],
        2: [(1, "Data", "32K", "2"), (2, "Unified", "4096K", "2-3"), (3, "Unified", "24576K", "0-3")],
        3: [(1, "Data", "32K", "3"), (2, "Unified", "4096K", "2-3"), (3, "Unified", "24576K", "0-3")]}
    caches[1] = caches[0]
    for n, core in core_ids.items():
        topo = cpu / f"cpu{n}/topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text("0\n")
        (topo / "core_id").write_text(f"{core}\n")
        for i, (level, kind, size, shared) in enumerate(caches[n]):
            d = cpu / f"cpu{n}/cache/index{i}"
            d.mkdir(parents=True)
            for name, text in (("level", level), ("type", kind), ("size", size),
                               ("shared_cpu_list", shared), ("coherency_line_size", 64)):
                (d / name).write_text(f"{text}\n")
    for pmu, cpus in (("cpu_core", "0-1"), ("cpu_atom", "2-3")):
        (root / "sys/devices" / pmu).mkdir(parents=True)
        (root / "sys/devices" / pmu / "cpus").write_text(cpus + "\n")


def test_hybrid_caches_from_every_cpu(tmp_path):
    """Issue 12 item 7 on the sysfs path: every distinct cache is kept, with its count and core
    type, and shared_by counts cores (the P-core's two threads count once), not threads."""
    _hybrid_tree(tmp_path)
    f = read_sysfs(tmp_path)
    got = sorted((c.level, c.size_bytes // 1024, c.shared_by, c.instances, c.cpu_kind)
                 for c in f.caches)
    assert got == [(1, 32, 1, 2, "IntelAtom"), (1, 48, 1, 1, "IntelCore"),
                   (2, 2048, 1, 1, "IntelCore"), (2, 4096, 2, 1, "IntelAtom"),
                   (3, 24576, 3, 1, None)]  # the L3 serves both kinds: 3 cores, not 4 threads
    doc = facts_to_profile_document(f)
    profile_from_document(doc)  # a valid profile with every distinct cache
    sizes = sorted(c["size"] for comp in doc["components"].values() for c in comp.get("caches", []))
    assert len(sizes) == 5
