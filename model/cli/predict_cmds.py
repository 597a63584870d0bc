"""``pinchpoint predict | workloads | classify``: the convolution commands, and the hooks that
``ceilings --signature`` and ``compare --workload`` call.

Thin: parse arguments, call :mod:`pinchpoint.prediction.convolve` and :mod:`pinchpoint.solve.measured_ceilings`,
format.  Models are imported inside the functions so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse

from pinchpoint.graph.resource_ids import convention


def add_parser(sub) -> None:
    p = sub.add_parser(
        "predict", help="predict a workload's time from a signature (PMaC convolution), binding resource",
        description="Convolve a workload (TOML: memory, flops, messages, I/O, network per phase) with a "
                    "machine signature (measured or published): the time of each resource, the range "
                    "[overlapped = max, serial = sum] and the binding resource.")
    p.add_argument("--signature", required=True, metavar="S",
                   help="signature JSON file, bundled name (p690, p650, p655-1.3 ...) or '-' (stdin)")
    p.add_argument("--workload", required=True, metavar="W", help="workload .toml file, bundled name or '-' (stdin)")
    p.add_argument("--profile", metavar="P", help="machine profile for network traffic over named flows")
    p.add_argument("--stat", choices=("median", "best"), default="median",
                   help="signature statistic: median (default) or best (fastest repetition)")
    p.add_argument("--extrapolate", action="store_true",
                   help="use the nearest measured value for working sets outside the measured range "
                        "(default: refuse); the result lists every such use")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run_predict)

    p = sub.add_parser("workloads", help="list the bundled workloads")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(run=run_workloads)

    p = sub.add_parser(
        "classify", help="is a measured rate at a ceiling (hardware) or far below all (software)?",
        description="Compare a measured rate of a flow with the flow's theoretical and effective ceilings "
                    "and, with --signature, the measured ceilings, in diagnose's words: at-ceiling from "
                    "--near (default 0.9) of the lowest, below-ceiling from 0.5, far-below-all below.")
    p.add_argument("profile", help="bundled profile name or .toml path")
    p.add_argument("--flow", required=True, help="the flow the measured rate belongs to")
    p.add_argument("--measured", required=True, help="the achieved rate, e.g. '3.5 Gbit/s'")
    p.add_argument("--signature", metavar="S", help="add this signature's measured ceilings")
    p.add_argument("--near", type=float, default=None, help="at-ceiling threshold (default 0.9, as diagnose)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(run=run_classify)


def load_signature_arg(text: str, flag: str = "--signature"):
    """A signature from a file path or a bundled short name."""
    from pathlib import Path

    from pinchpoint.errors import SignatureError
    from pinchpoint.inputs.signature import find_bundled, load_signature, loads_signature
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin

    from pinchpoint.paths import exists

    if is_stdin(text):
        return loads_signature(read_stdin(flag), file=STDIN_NAME)
    path = Path(text)
    if exists(path) or path.suffix == ".json":
        return load_signature(path)
    try:
        return load_signature(find_bundled(text))
    except SignatureError as exc:
        raise SignatureError(exc.message, key=flag) from None


def load_workload_arg(text: str, flag: str = "--workload"):
    """A workload from a .toml path, a bundled name, or '-' (standard input)."""
    from pinchpoint.inputs.workload import load_workload, loads_workload
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin

    if is_stdin(text):
        return loads_workload(read_stdin(flag), file=STDIN_NAME, default_name="stdin")
    return load_workload(text)


def _seconds(s: float) -> str:
    from pinchpoint.physics import units
    return units.format_quantity(s, "time")


def print_prediction(pred) -> None:
    from pinchpoint.cli.output import table

    print(f"{pred.workload} on {pred.signature}" + (f" with profile {pred.profile}" if pred.profile else "")
          + f" (signature {pred.stat})")
    print(f"  estimate  {_seconds(pred.estimate_s)}")
    print(f"  range     {_seconds(pred.low_s)} (overlapped) .. {_seconds(pred.high_s)} (serial)")
    print(f"  estimate rule: {pred.estimate_rule}")
    print(f"  binding: {pred.binding or 'nothing (no work)'}")
    print()
    rows = [[r.name, _seconds(r.seconds), f"{r.share:.1%}", r.detail] for r in pred.resources if r.seconds > 0]
    print(table(rows, ["resource", "time", "share", "rates read"], align="lrrl"))
    if len(pred.phases) > 1:
        print()
        rows = [[ph.name, _seconds(ph.low_s), _seconds(ph.high_s), ph.binding or "-"] for ph in pred.phases]
        print(table(rows, ["phase", "overlapped", "serial", "binding"], align="lrrl"))
    for note in pred.notes:
        print(f"  note: {note}")
    for e in pred.extrapolations:
        print(f"  EXTRAPOLATED: {e}")


def run_predict(args: argparse.Namespace) -> int:
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.inputs.workload import load_workload
    from pinchpoint.cli.output import print_json

    from pinchpoint.inputs.host_match import mismatch_warnings
    from pinchpoint.cli.output import warn

    sig = load_signature_arg(args.signature)
    wl = load_workload_arg(args.workload)
    profile = load_profile(args.profile) if args.profile else None
    warnings = mismatch_warnings(profile, sig) if profile is not None else ()
    for w in warnings:
        warn(w)
    pred = convolve(sig, wl, profile=profile, stat=args.stat, extrapolate=args.extrapolate)
    if args.json:
        print_json({**pred.to_dict(), "warnings": list(warnings)})
    else:
        print_prediction(pred)
    return 0


def run_workloads(args: argparse.Namespace) -> int:
    from pinchpoint.inputs.workload import bundled_workloads, load_workload
    from pinchpoint.cli.output import print_listing

    rows = []
    for name in bundled_workloads():
        w = load_workload(name)
        rows.append([name, w.description])
    print_listing(rows, "workload", args.json)
    return 0


def run_classify(args: argparse.Namespace) -> int:
    from pinchpoint.physics import units
    from pinchpoint.solve.measured_ceilings import classify, flow_ceilings_for
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.cli.output import parse_flag, print_json, table

    profile = load_profile(args.profile)
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


# ---- hooks for other commands ---------------------------------------------------------------------

def measured_ceilings_report(profile, signature_arg: str, as_json: bool):
    """``ceilings PROFILE --signature S``: the JSON list, or print the table (returns None)."""
    from pinchpoint.physics import units
    from pinchpoint.inputs.host_match import above_theory, mismatch_warnings
    from pinchpoint.solve.measured_ceilings import measured_ceilings
    from pinchpoint.cli.output import table, warn

    sig = load_signature_arg(signature_arg)
    rows = measured_ceilings(profile, sig)
    warnings = mismatch_warnings(profile, sig, rows)
    for w in warnings:
        warn(w)
    if as_json:
        return {"signature": sig.name, "measured": [m.to_dict() for m in rows], "warnings": list(warnings)}
    print()
    if not rows:
        print(f"signature {sig.name}: no figure that stands for a link or flow of {profile.name}")
        return None
    conv = lambda m: convention(m.network)  # noqa: E731

    def efficiency(m) -> str:
        if m.efficiency is None:
            return "-"
        if above_theory(m.name, m.measured_bytes_per_s, m.theoretical_bytes_per_s):
            return f"invalid ({m.efficiency:.1f} x)"  # see the warning: not an efficiency
        return f"{m.efficiency:.0%}"

    print(table([[m.name, m.kind,
                  units.format_rate(m.theoretical_bytes_per_s, conv(m)) if m.theoretical_bytes_per_s else "-",
                  units.format_rate(m.measured_bytes_per_s, conv(m)),
                  efficiency(m), m.source] for m in rows],
                ["measured on", "kind", "theoretical", f"measured ({sig.name})", "efficiency", "figure"],
                align="llrrrl"))
    print("efficiency = measured / theoretical."
          + (" invalid: above the theoretical capacity (see the warning)." if any(
              above_theory(m.name, m.measured_bytes_per_s, m.theoretical_bytes_per_s) for m in rows) else ""))
    return None


def run_compare_predictions(args: argparse.Namespace) -> int:
    """``compare --workload W --signature S1 S2 ...``: one workload on several signatures."""
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.errors import InputError
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.inputs.workload import load_workload
    from pinchpoint.cli.output import print_json, table

    if not args.workload:
        raise InputError("--signature needs --workload W (the workload to predict)", key="--workload")
    if not args.signature:
        raise InputError("--workload needs --signature S [S ...] (the machines to compare)", key="--signature")
    wl = load_workload_arg(args.workload)
    sigs = [load_signature_arg(s) for s in args.signature]
    profiles = [load_profile(p) for p in (args.profiles or [])]
    if len(profiles) not in (0, 1, len(sigs)):
        raise InputError(f"give one profile for all signatures or one per signature ({len(sigs)}), "
                         f"not {len(profiles)}", key="PROFILE")
    from pinchpoint.inputs.host_match import mismatch_warnings
    from pinchpoint.cli.output import warn

    preds = []
    for i, s in enumerate(sigs):
        prof = profiles[i] if len(profiles) == len(sigs) else (profiles[0] if profiles else None)
        for w in mismatch_warnings(prof, s) if prof is not None else ():
            warn(w)
        preds.append(convolve(s, wl, profile=prof, stat=getattr(args, "stat", "median"),
                              extrapolate=getattr(args, "extrapolate", False)))
    fastest = min(p.low_s for p in preds)
    if getattr(args, "plot", None):
        from pinchpoint.report.plots_planning import plot_predictions

        plot_predictions(preds, args.plot)
    if args.json:
        print_json({"workload": wl.name, "predictions": [p.to_dict() for p in preds],
                    "fastest": [p.signature for p in preds if p.low_s <= fastest * (1 + 1e-9)]})
        return 0
    print(f"{wl.name}: {wl.description}")
    print()
    rows = []
    for p in preds:
        mark = "*" if p.low_s <= fastest * (1 + 1e-9) and len(preds) > 1 else ""
        rows.append([f"{mark}{p.signature}", _seconds(p.low_s), _seconds(p.high_s), p.binding or "-",
                     "  ".join(f"{r.name} {r.share:.0%}" for r in p.resources if r.seconds > 0),
                     "yes" if p.extrapolated else ""])
    print(table(rows, ["signature", "overlapped", "serial", "binding", "shares", "extrapolated"],
                align="lrrlll"))
    print()
    print("*: the fastest (overlapped) prediction.")
    if getattr(args, "plot", None):
        print(f"plot: {args.plot}")
    return 0
