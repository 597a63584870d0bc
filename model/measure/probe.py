"""``pinchpoint probe``: what decides a network figure on this host, each fact with where it came from.

Gathered (Linux):

* the interface (the route to the peer, else the default route): speed and duplex, driver, ring
  sizes, offloads and interrupt coalescing (``ethtool``, ``-i``, ``-g``, ``-k``, ``-c``), MTU
  (``/sys/class/net/IF/mtu``), its root qdisc and a tbf shaper's rate (``tc -j qdisc``);
* the NIC's PCIe link, negotiated against capable width and speed, and its NUMA node
  (``/sys/class/net/IF/device/current_link_*``, ``max_link_*``, ``numa_node``);
* TCP sysctls (``/proc/sys/net/ipv4/tcp_rmem`` ...), the congestion control and default qdisc;
* the CPU governor and frequency (``/sys/devices/system/cpu/cpu0/cpufreq``), the kernel release.

A missing tool or an unreadable file is one warning line and the probe goes on.  Commands run as
argument lists, never through a shell, each bounded to a few seconds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

#: TCP and core sysctls read, as /proc/sys paths.
SYSCTLS = ("net/ipv4/tcp_rmem", "net/ipv4/tcp_wmem", "net/core/rmem_max", "net/core/wmem_max",
           "net/ipv4/tcp_congestion_control", "net/ipv4/tcp_available_congestion_control",
           "net/core/default_qdisc", "net/ipv4/tcp_adv_win_scale", "net/ipv4/tcp_window_scaling",
           "net/ipv4/tcp_timestamps", "net/ipv4/tcp_sack", "net/ipv4/tcp_mtu_probing", "net/ipv4/tcp_moderate_rcvbuf")


@dataclass(frozen=True)
class Fact:
    """One thing the probe found: its value and where it came from."""

    name: str
    value: object
    source: str

    def to_dict(self) -> dict:
        return {"name": self.name, "value": self.value, "source": self.source}


@dataclass
class HostProbe:
    """Everything gathered: facts by name, warnings for what was skipped."""

    interface: str | None = None
    facts: dict[str, Fact] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)  # what in the facts may cost throughput

    def add(self, name: str, value, source: str) -> None:
        if value is not None and value != "":
            self.facts[name] = Fact(name, value, source)

    def get(self, name: str, default=None):
        f = self.facts.get(name)
        return f.value if f is not None else default

    def to_dict(self) -> dict:
        return {"interface": self.interface, "facts": [f.to_dict() for f in self.facts.values()],
                "findings": list(self.findings), "warnings": list(self.warnings)}


class Tools:
    """Runs the probe's commands, remembering which are missing (one warning each)."""

    def __init__(self, probe: HostProbe, timeout: float = 5.0):
        self.probe, self.timeout, self.missing = probe, timeout, set()

    def run(self, argv: list[str]) -> str | None:
        tool = argv[0]
        if tool in self.missing:
            return None
        if shutil.which(tool) is None:
            self.missing.add(tool)
            self.probe.warnings.append(f"skipped what {tool} tells: {tool} is not installed")
            return None
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.probe.warnings.append(f"skipped {' '.join(argv)}: {getattr(exc, 'strerror', None) or exc}")
            return None
        if res.returncode != 0:
            why = (res.stderr.strip().splitlines() or ["exit code %d" % res.returncode])[-1]
            self.probe.warnings.append(f"skipped {' '.join(argv)}: {why}")
            return None
        return res.stdout


def read_text(probe: HostProbe, path: Path, what: str) -> str | None:
    try:
        return path.read_text().strip()
    except PermissionError:
        probe.warnings.append(f"skipped {what}: no permission to read {path}")
    except OSError:
        pass  # absent on this host (a virtual NIC has no PCIe link): nothing to say
    return None


def route_interface(tools: Tools, peer: str | None) -> str | None:
    """The interface traffic to ``peer`` leaves by (else the default route's)."""
    text = tools.run(["ip", "-j", "route", "get", peer]) if peer else tools.run(["ip", "-j", "route", "show",
                                                                                 "default"])
    try:
        routes = json.loads(text) if text else []
    except json.JSONDecodeError:
        return None
    return next((r.get("dev") for r in routes if isinstance(r, dict) and r.get("dev")), None)


def gather(peer: str | None = None, interface: str | None = None, *, sys_root: str = "/sys",
           proc_root: str = "/proc") -> HostProbe:
    """Everything the probe can find on this host (none of it needs root, ethtool's rings may)."""
    probe = HostProbe()
    tools = Tools(probe)
    probe.interface = interface or route_interface(tools, peer)
    if probe.interface is None:
        probe.warnings.append("skipped the interface facts: no route found (give --interface)")
    else:
        _interface_facts(probe, tools, Path(sys_root), probe.interface)
    read_sysctls(probe, proc_root)
    _cpu_facts(probe, Path(sys_root))
    probe.add("kernel", os.uname().release, "uname -r")
    probe.findings += findings(probe)
    return probe


def _gts(text) -> float | None:
    m = re.match(r"([\d.]+)\s*GT/s", str(text or ""))
    return float(m.group(1)) if m else None


def findings(probe: HostProbe) -> list[str]:
    """What in the facts may cost throughput: a PCIe link below what both ends can do, a CPU
    governor that lowers the clock, a shaper on the interface."""
    out = []
    cur_s, max_s = _gts(probe.get("pcie_current_link_speed")), _gts(probe.get("pcie_max_link_speed"))
    cur_w, max_w = probe.get("pcie_current_link_width"), probe.get("pcie_max_link_width")
    if cur_s and max_s and cur_s < max_s or (str(cur_w).isdigit() and str(max_w).isdigit() and int(cur_w) < int(max_w)):
        out.append(f"the NIC's PCIe link runs at {probe.get('pcie_current_link_speed')} x{cur_w} of "
                   f"{probe.get('pcie_max_link_speed')} x{max_w} it is capable of (a slot or riser that "
                   "negotiates less)")
    governor = probe.get("cpu_governor")
    if governor in ("powersave", "conservative", "ondemand"):
        out.append(f"the CPU governor is {governor}: the clock drops when idle and ramps up late "
                   "(cpupower frequency-set -g performance for tests)")
    if probe.get("shaper_bytes_per_s"):
        out.append(f"a tbf shaper on {probe.interface} limits it to "
                   f"{probe.get('shaper_bytes_per_s') * 8 / 1e6:.4g} Mbit/s")
    return out


def _interface_facts(probe, tools, sys_root, dev) -> None:
    base = sys_root / "class" / "net" / dev
    mtu = read_text(probe, base / "mtu", "the MTU")
    probe.add("mtu_bytes", int(mtu) if mtu and mtu.isdigit() else None, f"{base}/mtu")
    if base.is_dir() and not (base / "device").exists():
        # veth, bridges, tun: no device behind them; the speed ethtool gives (veth: 10000Mb/s) is nominal
        probe.add("virtual_interface", True, f"{base}/device absent")
    _ethtool(probe, tools, dev)
    pci = base / "device"
    for key in ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width", "numa_node"):
        probe.add(f"pcie_{key}" if key != "numa_node" else "numa_node", read_text(probe, pci / key, key),
                  f"{pci}/{key}")
    _qdisc(probe, tools, dev)


def _ethtool(probe, tools, dev) -> None:
    text = tools.run(["ethtool", dev])
    if text:
        speed = re.search(r"Speed:\s*(\d+)Mb/s", text)
        probe.add("speed_bits_per_s", int(speed.group(1)) * 1e6 if speed else None, f"ethtool {dev}")
        duplex = re.search(r"Duplex:\s*(\w+)", text)
        probe.add("duplex", duplex.group(1).lower() if duplex else None, f"ethtool {dev}")
    info = tools.run(["ethtool", "-i", dev])
    if info:
        fields = dict(line.split(": ", 1) for line in info.splitlines() if ": " in line)
        probe.add("driver", fields.get("driver"), f"ethtool -i {dev}")
        probe.add("bus_info", fields.get("bus-info"), f"ethtool -i {dev}")
    for flag, name in (("-g", "rings"), ("-k", "offloads"), ("-c", "coalescing")):
        out = tools.run(["ethtool", flag, dev])
        if out:
            probe.add(name, _ethtool_pairs(out, flag), f"ethtool {flag} {dev}")


def _ethtool_pairs(text, flag) -> dict:
    """key: value lines; for rings, the current settings (after "Current hardware settings")."""
    if flag == "-g" and "Current hardware settings" in text:
        text = text.split("Current hardware settings", 1)[1]
    keep = ("tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload",
            "large-receive-offload", "rx-checksumming", "tx-checksumming", "scatter-gather")
    out = {}
    for line in text.splitlines():
        key, sep, value = line.strip().partition(":")
        if not sep or not value.strip() or value.strip() == "n/a":
            continue
        if flag == "-k" and key not in keep:
            continue
        out[key.strip()] = value.strip().split()[0]
    return out


def _qdisc(probe, tools, dev) -> None:
    text = tools.run(["tc", "-j", "qdisc", "show", "dev", dev])
    try:
        qdiscs = json.loads(text) if text else []
    except json.JSONDecodeError:
        return
    root = next((q for q in qdiscs if isinstance(q, dict) and q.get("root")), None)
    if root is None:
        return
    probe.add("qdisc", root.get("kind"), f"tc qdisc show dev {dev}")
    opts = root.get("options") or {}
    if root.get("kind") == "tbf" and isinstance(opts.get("rate"), (int, float)):
        probe.add("shaper_bytes_per_s", float(opts["rate"]), f"tc qdisc show dev {dev} (tbf rate)")


def read_sysctls(probe, proc_root: str = "/proc") -> None:
    """The TCP and core sysctls of :data:`SYSCTLS` as facts of ``probe``."""
    for name in SYSCTLS:
        path = Path(proc_root) / "sys" / name
        text = read_text(probe, path, name.replace("/", "."))
        if text is None:
            continue
        parts = text.split()
        value = [int(p) for p in parts] if all(p.isdigit() for p in parts) and len(parts) > 1 else (
            int(text) if text.isdigit() else text)
        probe.add(name.replace("/", "."), value, str(path))


def _cpu_facts(probe, sys_root) -> None:
    base = sys_root / "devices" / "system" / "cpu" / "cpu0" / "cpufreq"
    probe.add("cpu_governor", read_text(probe, base / "scaling_governor", "the CPU governor"),
              f"{base}/scaling_governor")
    for key, name in (("scaling_cur_freq", "cpu_frequency_hz"), ("cpuinfo_max_freq", "cpu_max_frequency_hz")):
        text = read_text(probe, base / key, key)
        probe.add(name, int(text) * 1e3 if text and text.isdigit() else None, f"{base}/{key} (kHz)")
