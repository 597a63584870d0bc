"""``pinchpoint predict | workloads | classify``: the convolution commands.

Thin: parse arguments, call :mod:`pinchpoint.api` and :mod:`pinchpoint.solve.measured_ceilings`,
format.  Models are imported inside the functions so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse

from pinchpoint.cli.common import (SIGNATURE_HELP, WORKLOAD_HELP, add_json, add_profile, check_flows,
                                   load_profile_arg, load_signature_arg, load_workload_arg, print_prediction)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "predict", help="predict a workload's time from a signature (PMaC convolution), binding resource",
        description="Convolve a workload (TOML: memory, flops, messages, I/O, network per phase) with a "
                    "machine signature (measured or published): the time of each resource, the range "
                    "[overlapped = max, serial = sum] and the binding resource.")
    p.add_argument("--signature", required=True, metavar="S", help=SIGNATURE_HELP)
    p.add_argument("--workload", required=True, metavar="W", help=WORKLOAD_HELP)
    p.add_argument("--profile", metavar="P", help="machine profile for network traffic over named flows")
    p.add_argument("--stat", choices=("median", "best"), default="median",
                   help="signature statistic: median (default) or best (fastest repetition)")
    p.add_argument("--extrapolate", action="store_true",
                   help="use the nearest measured value for working sets outside the measured range "
                        "(default: refuse); the result lists every such use")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run_predict)

    p = sub.add_parser("workloads", help="list the bundled workloads")
    add_json(p)
    p.set_defaults(run=run_workloads)

    p = sub.add_parser(
        "classify", help="is a measured rate at a ceiling (hardware) or far below all (software)?",
        description="Compare a measured rate of a flow with the flow's theoretical and effective ceilings "
                    "and, with --signature, the measured ceilings, in diagnose's words: at-ceiling from "
                    "--near (default 0.9) of the lowest, below-ceiling from 0.5, far-below-all below.")
    add_profile(p)
    p.add_argument("--flow", required=True, help="the flow the measured rate belongs to")
    p.add_argument("--measured", required=True, help="the achieved rate, e.g. '3.5 Gbit/s'")
    p.add_argument("--signature", metavar="S", help="add this signature's measured ceilings")
    p.add_argument("--near", type=float, default=None, help="at-ceiling threshold (default 0.9, as diagnose)")
    add_json(p)
    p.set_defaults(run=run_classify)


def run_predict(args: argparse.Namespace) -> int:
    from pinchpoint.api import predict
    from pinchpoint.cli.output import print_json, warn
    from pinchpoint.inputs.host_match import mismatch_warnings

    sig = load_signature_arg(args.signature)
    wl = load_workload_arg(args.workload)
    profile = load_profile_arg(args.profile) if args.profile else None
    warnings = mismatch_warnings(profile, sig) if profile is not None else ()
    for w in warnings:
        warn(w)
    pred = predict(sig, wl, profile=profile, stat=args.stat, extrapolate=args.extrapolate)
    if args.json:
        print_json({**pred.to_dict(), "warnings": list(warnings)})
    else:
        print_prediction(pred)
    return 0


def run_workloads(args: argparse.Namespace) -> int:
    from pinchpoint.api import load_workload
    from pinchpoint.cli.output import print_listing
    from pinchpoint.inputs.workload import bundled_workloads

    rows = [[name, load_workload(name).description] for name in bundled_workloads()]
    print_listing(rows, "workload", args.json)
    return 0


def run_classify(args: argparse.Namespace) -> int:
    from pinchpoint.cli.output import parse_flag, print_json, table
    from pinchpoint.physics import units
    from pinchpoint.solve.measured_ceilings import classify, flow_ceilings_for

    profile = load_profile_arg(args.profile)
    check_flows(profile, [args.flow])
    measured = parse_flag(args.measured, "bandwidth", "--measured")
    sig = load_signature_arg(args.signature) if args.signature else None
    c = classify(measured, flow_ceilings_for(profile, args.flow, sig), near=args.near)
    if args.json:
        print_json({"profile": profile.name, "flow": args.flow, **c.to_dict()})
        return 0
    network = units.format_rate
    print(f"{profile.name}: {args.flow} measured {network(measured)}: {c.verdict} "
          f"({c.ratio:.0%} of {c.nearest})")
    if c.verdict == "above-ceiling":
        print(f"  a figure above a ceiling was not measured under it: the figure, the flow ({args.flow}) or "
              f"profile {profile.name}'s link values must be wrong (a different machine, NIC or bus?)")
    rows = [[n, network(v), f"{measured / v:.0%}"] for n, v in c.ceilings]
    print(table(rows, ["ceiling", "rate", "measured/ceiling"], align="lrr"))
    print(c.legend)
    return 0
