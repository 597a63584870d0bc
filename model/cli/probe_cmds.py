"""``pinchpoint probe``: what decides a network figure on this host, and with ``--peer`` a live verdict.

Examples::

    pinchpoint probe
    pinchpoint probe --peer 192.0.2.10 --time 5 --json
    pinchpoint probe --peer 192.0.2.10 --json --html probe.html > probe.json

Exit 0 when something was gathered (warnings on stderr say what was skipped), 2 when nothing
could be measured.
"""

from __future__ import annotations

import argparse

from pinchpoint.cli.output import output_path
from pinchpoint.report.probe_view import shown


def add_parser(sub) -> None:
    p = sub.add_parser(
        "probe", help="gather this host's network facts (ethtool, sysfs, sysctls); with --peer, a live verdict",
        description="Gather what decides a network figure on this host, each with its source: the interface's "
                    "speed, MTU, driver, rings, offloads and coalescing (ethtool), its PCIe link (negotiated and "
                    "capable) and NUMA node (sysfs), TCP sysctls, congestion control, default qdisc and a "
                    "shaper's rate (tc), the CPU governor and clock.  With --peer HOST (an iperf3 server), run "
                    "iperf3 while sampling TCP_INFO (ss -ti) and give diagnose's verdict.")
    p.add_argument("--peer", metavar="HOST", help="an iperf3 server to run against (iperf3 -s on it)")
    p.add_argument("--port", type=int, default=5201, metavar="N", help="the peer's iperf3 port (default 5201)")
    p.add_argument("--time", type=float, default=5.0, metavar="S", help="seconds of the run (default 5)")
    p.add_argument("--congestion", metavar="ALGO", help="the run's TCP congestion control (iperf3 -C: cubic, "
                                                        "bbr, reno ...; default: the host's)")
    p.add_argument("--interface", metavar="IF", help="the interface (default: the route to the peer, else the "
                                                     "default route's)")
    p.add_argument("--no-detect", action="store_true", help="leave out the host path of pinchpoint detect")
    p.add_argument("--json", action="store_true", help="print one JSON object (pinchpoint report --probe reads it)")
    output_path(p, "--html", suffixes=(".html", ".htm"), metavar="FILE",
                help="also write everything --json holds as a self-contained HTML page (atomically)")
    p.set_defaults(run=run_probe)


def run_probe(args: argparse.Namespace) -> int:
    import re
    import sys

    from pinchpoint.errors import InputError
    from pinchpoint.cli.output import print_json
    from pinchpoint.measure import probe as probe_mod

    if not 0 < args.time <= 3600:
        raise InputError(f"expected 0 < seconds <= 3600, got {args.time!r}", key="--time")
    if not 0 < args.port < 65536:
        raise InputError(f"expected a port 1..65535, got {args.port!r}", key="--port")
    if args.congestion is not None and not re.fullmatch(r"[a-z][a-z0-9_]{0,15}", args.congestion):
        raise InputError(f"expected the name of a congestion control (cubic, bbr, reno ...), got "
                         f"{args.congestion!r}", key="--congestion")
    host = probe_mod.gather(args.peer, args.interface)
    run = verdict = None
    if args.peer:
        from pinchpoint.measure.probe_tcpinfo import run_peer

        run = run_peer(args.peer, port=args.port, seconds=args.time,
                       extra=("-C", args.congestion) if args.congestion else ())
        host.warnings += run.warnings
        verdict = _verdict(host, run, args)
    for w in host.warnings:
        print(f"pinchpoint probe: warning: {w}", file=sys.stderr)
    if not set(host.facts) - {"kernel"} and verdict is None:
        print("pinchpoint probe: error: nothing could be measured", file=sys.stderr)
        return 2
    record = probe_record(host, run, verdict)
    if args.html:
        from pinchpoint.cli.output import output_meta
        from pinchpoint.report.probe_view import write_html

        path = write_html({"pinchpoint": output_meta("probe"), **record}, args.html)
        print(f"pinchpoint probe: wrote {path}", file=sys.stderr)
    if args.json:
        print_json(record, command="probe")
        return 0
    print(render(host, run, verdict))
    return 0


def probe_record(host, run, verdict) -> dict:
    """What --json prints and --html shows: the host's facts, the run, TCP_INFO and the verdict."""
    from pinchpoint.diagnose.evidence import TCP_INFO_LIMITS, tcp_info_bound

    bound = tcp_info_bound(run.tcp_info) if run is not None else None
    return {"host": host.to_dict(), "tcp_info": run.tcp_info if run else None,
            "tcp_info_bound": {"limit": bound[0], "share": bound[1], "what": TCP_INFO_LIMITS[bound[0]][0]}
            if bound else None,
            "iperf3_command": run.command if run else None, "run": _run_figures(run),
            "verdict": verdict.to_dict() if verdict is not None else None}


def _run_figures(run) -> dict | None:
    """iperf3's own figures of the run (rates, retransmits, mean RTT); None without a report."""
    from pinchpoint.errors import PinchpointError
    from pinchpoint.importers.iperf3 import parse_iperf3

    if run is None or run.iperf3_json is None:
        return None
    try:
        return parse_iperf3(run.iperf3_json, file="iperf3 -c (live run)").to_dict()
    except PinchpointError:
        return None  # the verdict step words what is wrong with the report


def _verdict(host, run, args):
    """diagnose's verdict of the run, with detect's host path where it finds a NIC flow."""
    from pinchpoint.diagnose.live import probe_verdict
    from pinchpoint.errors import PinchpointError

    profile = flow = None
    if not args.no_detect:
        profile, flow = _detected_path(host)
    try:
        return probe_verdict(host, run, profile, flow)
    except PinchpointError as exc:
        host.warnings.append(f"skipped the verdict: {exc}")
        return None


def _detected_path(host):
    from pinchpoint.errors import PinchpointError
    from pinchpoint.inputs.profile import profile_from_document
    from pinchpoint.measure.detect import detect, facts_to_profile_document

    try:
        profile = profile_from_document(facts_to_profile_document(detect()), file="<detected>")
    except (PinchpointError, OSError) as exc:
        host.warnings.append(f"skipped the host path: detect failed ({exc})")
        return None, None
    if "nic-tx" not in profile.flows:
        host.warnings.append("skipped the host path: detect found no NIC flow on this host (a virtual NIC has "
                             "no speed or PCIe link in sysfs)")
        return None, None
    return profile, "nic-tx"


def render(host, run, verdict) -> str:
    from pinchpoint.cli.output import table
    from pinchpoint.cli.common import render_verdict

    rows = [[f.name, shown(f.value), f.source] for f in host.facts.values()]
    lines = [f"interface: {host.interface or 'unknown'}", "", table(rows, ["fact", "value", "source"], align="lll")]
    if host.findings:
        lines += ["", "findings:"] + [f"  - {f}" for f in host.findings]
    if run is not None and run.tcp_info:
        info = run.tcp_info
        lines += ["", "TCP_INFO of the data socket (ss -ti), last sample:"]
        lines += [f"  {k}: {shown(v)}" for k, v in info.items() if v is not None]
    if verdict is not None:
        lines += ["", render_verdict(verdict)]
    return "\n".join(lines)
