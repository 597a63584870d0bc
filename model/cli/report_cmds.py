"""``pinchpoint report``: one self-contained HTML page with the graph, the ceilings, the verdict.

Examples::

    pinchpoint report powermac-g5 -o g5.html
    pinchpoint report powermac-g5 --measured "3.5 Gbit/s" --flow nic-rx --mtu 9000 --streams 16 \\
        --mmrbc 4096 -o g5-tcp.html
    pinchpoint report powermac-g5 --signature powermac-g5-xbench -o g5-memory.html
    pinchpoint report my-host --probe probe.json -o my-host.html

With ``--probe`` (a file ``pinchpoint probe --json`` wrote) the page also shows that probe run: the
host's facts with their sources, the run's figures, the TCP_INFO limits, the ceilings and the verdict.

The measurement flags are those of ``pinchpoint diagnose`` (same names, same meaning: the
inputs are gathered by :func:`pinchpoint.cli.diagnose_cmds.gather`).
"""

from __future__ import annotations

import argparse
import sys

from pinchpoint.cli.common import SIGNATURE_HELP, add_profile, load_profile_arg, load_signature_arg
from pinchpoint.cli.diagnose_cmds import add_measurement_arguments
from pinchpoint.cli import output
from pinchpoint.cli.output import output_path

#: Flags that only make sense with a measured figure.
_MEASUREMENT_ONLY = ("protocol", "side", "streams", "link", "mtu", "mss", "rtt", "window", "rcvbuf",
                     "so_rcvbuf", "loss", "clock", "cores", "mmrbc")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "report", help="an HTML report: link graph, ceilings with formulas, ladder, verdict and advice",
        description="Write one self-contained HTML page (plots as inline SVG, no network access) for a "
                    "profile: the link graph with the binding link, every flow's ceiling with its formula, "
                    "a ceiling ladder and, with --measured (flags as for 'pinchpoint diagnose'), the verdict "
                    "and the advice; with --signature, the measured figures beside the theoretical ones.")
    add_profile(p)
    output_path(p, "-o", "--output", suffixes=(".html", ".htm"), required=True, metavar="FILE.html", help="the page to write (atomically)")
    p.add_argument("--signature", metavar="S", help=SIGNATURE_HELP)
    p.add_argument("--flow", help="the flow in focus (and the flow a measured figure took)")
    p.add_argument("--title", help="page title (default: the profile name)")
    p.add_argument("--probe", metavar="PROBE.json", help="a probe run to show beside the model (the JSON "
                                                         "'pinchpoint probe --json' printed)")
    add_measurement_arguments(p.add_argument_group("a measurement to judge (as in pinchpoint diagnose)"),
                              ("measured", "iperf3") + _MEASUREMENT_ONLY)
    p.set_defaults(run=run_report)  # diagnose flags the report lacks keep DiagnoseInputs' defaults


def _verdict(args, profile):
    from pinchpoint.diagnose import DiagnoseInputs, diagnose
    from pinchpoint.errors import InputError
    from pinchpoint.cli.diagnose_cmds import FLAGS, gather

    if args.measured is None and args.iperf3 is None:
        given = [f"--{n.replace('_', '-')}" for n in _MEASUREMENT_ONLY if getattr(args, n) is not None]
        if given:
            raise InputError(f"{', '.join(given)} describe a measurement: give the measured rate too "
                             "(--measured '3.5 Gbit/s' or --iperf3 FILE)", key="--measured")
        return None
    if args.flow is None:
        raise InputError(f"a measured figure needs the flow it took through profile {profile.name!r} "
                         f"(--flow; flows: {', '.join(profile.flows) or 'none'})", key="--flow")
    fields = gather(args, profile)
    flag_fields = {k for k, flag in FLAGS.items() if getattr(args, flag[2:].replace("-", "_"), None) is not None}
    try:
        return diagnose(DiagnoseInputs(**fields))
    except InputError as exc:
        if exc.key in FLAGS and (exc.key in flag_fields or exc.file is None):
            raise InputError(exc.message, key=FLAGS[exc.key]) from None
        raise


def run_report(args: argparse.Namespace) -> int:
    from pinchpoint.errors import InputError
    from pinchpoint.inputs.probe_record import read_probe_record
    from pinchpoint.report.page import build_report, write_report

    out = args.output
    if not out.lower().endswith((".html", ".htm")):
        raise InputError(f"the report is an HTML page: the file name must end in .html, got {out!r}", key="-o")
    probe = read_probe_record(args.probe) if args.probe else None
    profile = load_profile_arg(args.profile)
    if args.flow is not None and args.flow not in profile.flows:
        raise InputError(f"no flow {args.flow!r} in profile {profile.name!r} "
                         f"(flows: {', '.join(profile.flows) or 'none'})", key="--flow")
    verdict = _verdict(args, profile)
    signature = load_signature_arg(args.signature) if args.signature else None
    if signature is not None:
        from pinchpoint.inputs.host_match import mismatch_warnings
        from pinchpoint.solve.measured_ceilings import measured_ceilings
        from pinchpoint.cli.output import warn

        for w in mismatch_warnings(profile, signature, measured_ceilings(profile, signature)):
            warn(w)
    text = build_report(profile, verdict=verdict, flow=args.flow, signature=signature,
                        signature_name=args.signature, title=args.title, probe=probe,
                        progress=sys.stderr.isatty() and output.VERBOSITY >= 0)
    path = write_report(text, out)
    what = (f"verdict {verdict.verdict}" if verdict is not None
            else f"theory and signature {args.signature}" if signature is not None else "theory only")
    if probe is not None:
        what += f"; probe {args.probe}"
    print(f"wrote {path} ({len(text) / 1024:.0f} KiB; {what})")
    return 0
