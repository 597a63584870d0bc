"""``pinchpoint profiles | ceilings | explain | solve``: the profile-and-ceilings commands."""

from __future__ import annotations

import argparse

from pinchpoint.graph.resource_ids import convention


def add_parser(sub) -> None:
    p = sub.add_parser("profiles", help="list the bundled machine profiles")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run_profiles)

    p = sub.add_parser("ceilings", help="every link capacity and flow ceiling of a profile",
                       description="Every link capacity and every flow ceiling, binding links marked with *.")
    p.add_argument("profile", help="bundled profile name or path to a .toml (or .json) file")
    p.add_argument("--flow", action="append", help="only this flow (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--signature", metavar="S", help="also show this signature's measured ceilings and efficiencies")
    p.set_defaults(run=run_ceilings)

    p = sub.add_parser("explain", help="the formula, values and sources behind a link or flow")
    p.add_argument("profile", help="bundled profile name or .toml path")
    p.add_argument("target", help="a link id or a flow name")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(run=run_explain)

    p = sub.add_parser("solve", help="which value of one parameter makes a flow reach a target",
                       description="Solve for LINK.PARAM so that FLOW reaches TARGET, e.g. "
                                   "--flow nic-rx --target '10 Gbit/s' --vary pcix.clock")
    p.add_argument("profile", help="bundled profile name or .toml path")
    p.add_argument("--flow", required=True, help="the flow whose ceiling must reach --target")
    p.add_argument("--target", required=True, help="a rate such as '10 Gbit/s' or '3 GB/s'")
    p.add_argument("--vary", required=True, metavar="LINK.PARAM",
                   help="the parameter to solve for, e.g. pcix.clock")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(run=run_solve)


def run_profiles(args: argparse.Namespace) -> int:
    import tomllib

    from pinchpoint.inputs.profile_io import bundled_profiles
    from pinchpoint.cli.output import print_listing

    rows = []
    for name, path in bundled_profiles().items():
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
        rows.append([name, doc.get("description", "") or f"(extends {doc.get('extends', '?')})"])
    print_listing(rows, "profile", args.json)
    return 0


def run_ceilings(args: argparse.Namespace) -> int:
    from pinchpoint.report import tables as reporting
    from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.cli.output import print_json, table

    profile = load_profile(args.profile)
    flows = args.flow
    for f in flows or ():
        profile.flow(f)  # a clear error for an unknown flow
    from pinchpoint.solve.ceiling_gaps import ceiling_gaps

    ceilings = all_ceilings(profile, flows)
    scenarios = [] if flows else [c for name in profile.scenarios for c in scenario_ceilings(profile, name)]
    gaps = ceiling_gaps(profile)
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
        if getattr(args, "signature", None):  # measured beside theoretical (pinchpoint.cli.predict_cmds)
            from pinchpoint.cli.predict_cmds import measured_ceilings_report
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
        from pinchpoint.cli.predict_cmds import measured_ceilings_report
        measured_ceilings_report(profile, args.signature, False)
    return 0


def run_explain(args: argparse.Namespace) -> int:
    from pinchpoint.report import tables as reporting
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.symbolic import explain
    from pinchpoint.cli.output import print_json

    profile = load_profile(args.profile)
    e = explain(profile, args.target)
    if args.json:
        print_json(e.to_dict())
        return 0
    print(f"{e.target}: {e.description}")
    label = "ceiling" if e.kind == "flow" else "capacity"
    print(f"  {label} = {e.formula}")
    print(f"  {' ' * len(label)} = {e.substituted}")
    print(f"  {' ' * len(label)} = {reporting.both(e.result_bytes_per_s)}")
    if e.effective_bytes_per_s is not None:
        extra = f"{e.effective_formula}" if e.effective_formula else "after protocol overhead"
        print(f"  effective = {extra} = {reporting.both(e.effective_bytes_per_s)}")
    if e.binding:
        print(f"  binding: {', '.join(e.binding)}")
    for t in e.terms:
        print(f"    {t.name} = {t.text}" + (f"    [{t.source}]" if t.source else ""))
    for w in e.warnings:
        print(f"  warning: {w}")
    return 0


def run_solve(args: argparse.Namespace) -> int:
    from pinchpoint.physics import units
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.symbolic import solve
    from pinchpoint.cli.output import parse_flag, print_json

    profile = load_profile(args.profile)
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
