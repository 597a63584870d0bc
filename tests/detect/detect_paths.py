"""Paths of the detect and importer test fixtures (imported by the tests as a plain module)."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
#: `lstopo --of xml -` (hwloc 2.9.0) of the 2-core AMD EPYC KVM guest the suite was written on.
HWLOC_XML = FIXTURES / "hwloc" / "vm-amd-epyc-2core-lstopo-2.9.0.xml"
#: A sysfs/procfs tree assembled by hand: the AARNet 10G talk's (2008) Xeon X5460 (3.16 GHz) running at 2.0 GHz
#: under the powersave governor, a 16 GT/s x16 NIC in an 8 GT/s x4 link, 100 GbE at MTU 1500.
SYSFS = FIXTURES / "sysfs" / "x5460-throttled-pcie-x4"
KERNCRAFT = FIXTURES / "kerncraft" / "zen-epyc-7451-small-0.8.3.yml"
LIKWID = FIXTURES / "likwid"
FIO = FIXTURES / "fio"
