"""diagnose on a live run: the probe's host facts and a peer run (iperf3 + TCP_INFO) -> a verdict.

The line rate is the interface's speed (ethtool), the MTU the interface's, a tbf shaper's rate
a ceiling, the live tcp_rmem/tcp_wmem/rmem_max and kernel the OS's buffers, the running
congestion control the loss model, the TCP_INFO limit times the direct evidence of which
ceiling bound, and the host path that of ``detect``'s profile (its ``nic-tx`` flow) where it
finds one.  An MTU mismatch shows in TCP_INFO: the MSS this side sends (``mss``: the peer's
advertised MSS or the path's) far below what it advertises itself (``advmss``: its own MTU).
"""

from __future__ import annotations

from dataclasses import replace

from pinchpoint.diagnose.chain import diagnose
from pinchpoint.diagnose.inputs import DiagnoseInputs
from pinchpoint.diagnose.loss_models import model_for
from pinchpoint.diagnose.os_defaults import kernel_version, linux_defaults
from pinchpoint.importers.iperf3 import parse_iperf3
from pinchpoint.measure.probe import HostProbe, read_sysctls

#: TCP timestamps take 12 B of every segment; more than this between what this side advertises
#: and what it may send means the two ends' MTUs differ.
_MSS_SLACK = 12 + 28


def live_buffer_defaults(probe):
    """Linux's buffer settings as read on this host (None where tcp_rmem could not be read)."""
    rmem, wmem = probe.get("net.ipv4.tcp_rmem"), probe.get("net.ipv4.tcp_wmem")
    if not (isinstance(rmem, list) and len(rmem) == 3):
        return None
    kernel = kernel_version(probe.get("kernel"))
    base = linux_defaults(kernel)
    scale = probe.get("net.ipv4.tcp_adv_win_scale")
    share = base.window_share
    if kernel is not None and kernel < (6, 6) and isinstance(scale, int) and scale > 0:
        share = 1 - 2.0 ** (-scale)
    return replace(base, tcp_rmem=tuple(rmem), tcp_wmem=tuple(wmem) if isinstance(wmem, list) and len(wmem) == 3
                   else base.tcp_wmem, rmem_max=probe.get("net.core.rmem_max", base.rmem_max),
                   wmem_max=probe.get("net.core.wmem_max", base.wmem_max), window_share=share,
                   kernels=probe.get("kernel") or base.kernels, source="read on this host")


def host_buffer_defaults():
    """This host's live TCP buffer settings (``diagnose --os host``); None where /proc has none."""
    probe = HostProbe()
    read_sysctls(probe)
    import os

    probe.add("kernel", os.uname().release, "uname -r")
    return live_buffer_defaults(probe)


def mtu_mismatch(probe, tcp_info) -> str | None:
    """A sentence when TCP_INFO shows the peer's MTU below this interface's, else None."""
    if not tcp_info:
        return None
    mss, advmss = tcp_info.get("mss"), tcp_info.get("advmss")
    mtu = probe.get("mtu_bytes")
    if not mss or not advmss or advmss - mss <= _MSS_SLACK:
        return None
    return (f"MTU mismatch: this side advertises an MSS of {advmss:.0f} B (interface MTU "
            f"{mtu if mtu else advmss + 40:.0f} B) but sends segments of {mss:.0f} B: the peer's MTU (or a hop's) "
            f"is about {mss + 52:.0f} B; jumbo frames are not used end to end (set the same MTU on both ends)")


def probe_inputs(probe, run, profile=None, flow=None) -> DiagnoseInputs:
    """The inputs of diagnose for a peer run on this host."""
    result = parse_iperf3(run.iperf3_json, file="iperf3 -c (live run)")
    fields = result.diagnose_fields()
    fields["origin"] = None
    speed = probe.get("speed_bits_per_s")
    notes = list(fields.get("notes", ()))
    if speed and probe.get("virtual_interface"):
        # a veth's 10 Gbit/s is a constant of its driver, not a line: loopback runs pass it
        notes.append(f"the interface is virtual (no device in sysfs): its speed {speed / 1e6:.0f} Mb/s from "
                     "ethtool is nominal, not a line rate, so no line ceiling is set")
    elif speed:
        fields["line_bytes_per_s"] = speed / 8
    mtu = probe.get("mtu_bytes")
    if mtu:
        fields["mtu_bytes"] = float(mtu)
        fields.pop("mss_bytes", None)  # the MTU's MSS; the segment size TCP_INFO saw is noted apart
    shaper = probe.get("shaper_bytes_per_s")
    if shaper:
        fields["shaper_bytes_per_s"] = float(shaper)
        fields["shaper_from"] = probe.facts["shaper_bytes_per_s"].source
    defaults = live_buffer_defaults(probe)
    if defaults is not None and "window_bytes" not in fields and "buffer_bytes" not in fields:
        fields["buffer_defaults"] = defaults
    cc = (run.tcp_info or {}).get("congestion_control") or probe.get("net.ipv4.tcp_congestion_control")
    fields["loss_model"] = model_for(cc)
    fields["tcp_info"] = run.tcp_info
    mismatch = mtu_mismatch(probe, run.tcp_info)
    if mismatch:
        notes.append(mismatch)
    fields["notes"] = tuple(notes)
    if profile is not None and flow is not None:
        fields["profile"], fields["flow"] = profile, flow
    return DiagnoseInputs(**fields)


def probe_verdict(probe, run, profile=None, flow=None):
    """diagnose's verdict of a live run (None when the run gave no report)."""
    if run is None or run.iperf3_json is None:
        return None
    return diagnose(probe_inputs(probe, run, profile, flow))
