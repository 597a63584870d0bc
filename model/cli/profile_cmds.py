"""``pinchpoint profiles | ceilings | explain | solve``: the profile-and-ceilings commands."""

from __future__ import annotations

import argparse

from pinchpoint.cli.common import add_json, add_profile, check_flows, load_profile_arg, load_signature_arg
from pinchpoint.graph.resource_ids import convention


def add_parser(sub) -> None:
    p = sub.add_parser("profiles", help="list the bundled machine profiles")
    add_json(p)
    p.set_defaults(run=run_profiles)

    p = sub.add_parser("ceilings", help="every link capacity and flow ceiling of a profile",
                       description="Every link capacity and every flow ceiling, binding links marked with *.")
    add_profile(p)
    p.add_argument("--flow", action="append", help="only this flow (repeatable)")
    add_json(p)
    p.add_argument("--signature", metavar="S", help="also show this signature's measured ceilings and efficiencies")
    p.set_defaults(run=run_ceilings)

    p = sub.add_parser("explain", help="the formula, values and sources behind a link or flow")
    add_profile(p)
    p.add_argument("target", help="a link id or a flow name")
    add_json(p)
    p.set_defaults(run=run_explain)

    p = sub.add_parser("solve", help="which value of one parameter makes a flow reach a target",
                       description="Solve for LINK.PARAM so that FLOW reaches TARGET, e.g. "
                                   "--flow nic-rx --target '10 Gbit/s' --vary pcix.clock")
    add_profile(p)
    p.add_argument("--flow", required=True, help="the flow whose ceiling must reach --target")
    p.add_argument("--target", required=True, help="a rate such as '10 Gbit/s' or '3 GB/s'")
    p.add_argument("--vary", required=True, metavar="LINK.PARAM",
                   help="the parameter to solve for, e.g. pcix.clock")
    add_json(p)
    p.set_defaults(run=run_solve)


def run_profiles(args: argparse.Namespace) -> int:
    from pinchpoint.cli.output import print_listing
    from pinchpoint.inputs.profile_io import bundled_descriptions

    print_listing([list(item) for item in bundled_descriptions().items()], "profile", args.json)
    return 0


def run_ceilings(args: argparse.Namespace) -> int:
    from pinchpoint.api import profile_ceilings
    from pinchpoint.cli.output import print_json, table
    from pinchpoint.report import tables as reporting

    profile = load_profile_arg(args.profile)
    check_flows(profile, args.flow)
    ceilings, scenarios, gaps = profile_ceilings(profile, args.flow)
    if gaps and not getattr(args, "signature", None):  # nothing to tabulate: say why, what to add
        if args.json:
            print_json({**reporting.ceilings_json(profile, ceilings, scenarios), "gaps": list(gaps)})
            return 0
        print(f"{profile.name}: {profile.description}")
        print()
        print("no ceilings:")
        for g in gaps:
            print(f"  - {g}")
        return 0
    if args.json:
        doc = reporting.ceilings_json(profile, ceilings, scenarios)
        if gaps:
            doc["gaps"] = list(gaps)
        if getattr(args, "signature", None):  # measured beside theoretical
            doc["measured"] = measured_ceilings_report(profile, args.signature, True)
        print_json(doc)
        return 0
    binding = {b for c in ceilings for b in c.binding}
    print(f"{profile.name}: {profile.description}")
    print()
    print(table(reporting.link_rows(profile, binding),
                ["link", "kind", "between", "duplex", "capacity", "effective", "formula"],
                align="lllllrr"[:5] + "rl"))
    print()
    print(table(reporting.flow_rows(profile, ceilings + scenarios),
                ["flow", "ceiling", "effective", "binding", "to move it", "path"]))
    print()
    print("* binds at least one flow. capacity: raw (per direction when full duplex, shared when half);"
          " effective: after protocol overhead. 'to move it': growth of the binding link(s) before"
          " the next link binds.")
    if getattr(args, "signature", None):
        measured_ceilings_report(profile, args.signature, False)
    return 0


def run_explain(args: argparse.Namespace) -> int:
    from pinchpoint.api import unknown_target_error
    from pinchpoint.cli.output import print_json
    from pinchpoint.physics.readable import rate
    from pinchpoint.solve.symbolic import explain

    profile = load_profile_arg(args.profile)
    error = unknown_target_error(profile, args.target, key="TARGET")
    if error is not None:
        raise error
    e = explain(profile, args.target)
    if args.json:
        print_json(e.to_dict())
        return 0
    print(f"{e.target}: {e.description}")
    label = "ceiling" if e.kind == "flow" else "capacity"
    print(f"  {label} = {e.formula}")
    print(f"  {' ' * len(label)} = {e.substituted}")
    print(f"  {' ' * len(label)} = {rate(e.result_bytes_per_s, convention(e.network))}")
    if e.effective_bytes_per_s is not None:
        extra = f"{e.effective_formula}" if e.effective_formula else "after protocol overhead"
        print(f"  effective = {extra} = {rate(e.effective_bytes_per_s, convention(e.network))}")
    if e.binding:
        print(f"  binding: {', '.join(e.binding)}")
    for t in e.terms:
        print(f"    {t.name} = {t.text}" + (f"    [{t.source}]" if t.source else ""))
    for w in e.warnings:
        print(f"  warning: {w}")
    return 0


def run_solve(args: argparse.Namespace) -> int:
    from pinchpoint.api import unknown_parameter_error
    from pinchpoint.cli.output import parse_flag, print_json
    from pinchpoint.physics import units
    from pinchpoint.solve.symbolic import solve

    profile = load_profile_arg(args.profile)
    check_flows(profile, [args.flow])
    error = unknown_parameter_error(profile, args.vary, key="--vary")
    if error is not None:
        raise error
    target = parse_flag(args.target, "bandwidth", "--target")
    s = solve(profile, args.flow, target, args.vary)
    if args.json:
        print_json(s.to_dict())
        return 0
    value = units.format_quantity(s.value_si, s.dimension, digits=7)
    conv = convention(s.network)
    target = units.format_rate(s.target_bytes_per_s, conv)
    reached = units.format_rate(s.ceiling_after_bytes_per_s, conv)
    if s.reachable:
        print(f"{s.link}.{s.param} = {value} gives {s.flow} {reached} after protocol overhead "
              f"(target {target}), bound by {', '.join(s.binding_after)}")
    else:
        print(f"no value of {s.link}.{s.param} alone gives {s.flow} {target}: at {value} it reaches "
              f"{reached}, bound by {', '.join(s.binding_after)}")
    print(f"  link equation: {s.equation}")
    if s.reachable and s.raw_value_si is not None and s.raw_value_si != s.value_si:
        print(f"  on raw capacity alone {s.param} = "
              f"{units.format_quantity(s.raw_value_si, s.dimension, digits=7)} would do; protocol overhead "
              f"(the effective capacity) needs the value above")
    if s.note and s.reachable:  # an unreachable answer said it all above
        print(f"  note: {s.note}")
    return 0 if s.reachable else 1


# ---- ceilings --signature: measured beside theoretical ---------------------------------------

def measured_ceilings_report(profile, signature_arg: str, as_json: bool):
    """``ceilings PROFILE --signature S``: the JSON list, or print the table (returns None)."""
    from pinchpoint.cli.output import table, warn
    from pinchpoint.inputs.host_match import above_theory, mismatch_warnings
    from pinchpoint.physics import units
    from pinchpoint.solve.measured_ceilings import measured_ceilings

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
