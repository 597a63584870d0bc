"""``pinchpoint plan``: requirements and candidates in, the cheapest machine that meets them out."""

from __future__ import annotations

from pinchpoint.cli.common import add_json, add_profile
from pinchpoint.cli.output import IMAGE_SUFFIXES, output_path


def add_parser(sub) -> None:
    p = sub.add_parser(
        "plan", help="capacity planning: which candidate meets every need at the lowest price",
        description="Read needs (flows with rates, scenarios, workloads with deadlines) and candidates "
                    "(profiles with prices, and option sets around a base profile) from a plan file; print "
                    "each candidate's margin on each need, what binds a failing need and the smallest change "
                    "that makes it pass, the cheapest candidate that meets everything and the "
                    "cost-versus-headroom Pareto front.")
    p.add_argument("plan", help="the plan file (TOML: [[needs]], [[candidates]], [base] and [options])")
    add_profile(p, many=True)  # more candidates, without a price
    add_json(p)
    output_path(p, "--plot", suffixes=IMAGE_SUFFIXES, metavar="FILE",
                help="draw cost versus headroom with the Pareto front to FILE (.png, .svg, .pdf)")
    output_path(p, "--html", suffixes=(".html", ".htm"), metavar="FILE",
                help="write the plan as a self-contained HTML page")
    p.add_argument("--no-fixes", action="store_true",
                   help="skip the search for the smallest change that makes a failing need pass")
    p.set_defaults(run=run_plan)


def run_plan(args) -> int:
    from pinchpoint.cli.output import info, print_json, table
    from pinchpoint.planner.plan import plan
    from pinchpoint.report import plan_view

    result = plan(args.plan, args.profiles, fixes=not args.no_fixes)
    if args.plot:
        info(f"wrote {plan_view.plot_front(result, args.plot)}")
    if args.html:
        info(f"wrote {plan_view.write_html(result, args.html)}")
    if args.json:
        print_json(result.to_dict(), command="plan")
        return 0
    header, rows = plan_view.rows(result)
    print(f"plan {result.name}: {len(result.rows)} candidates x {len(result.needs)} needs "
          f"(each cell: the need's figure and its margin)\n")
    print(table(rows, header, align="lr" + "r" * (len(header) - 3) + "l"))
    lines = plan_view.failures(result)
    if lines:
        print("\nneeds not met:")
        print("\n".join(f"  {x}" for x in lines))
    probs = plan_view.probabilities(result)
    if probs:
        print("\nwith the profiles' value ranges:")
        print("\n".join(f"  {x}" for x in probs))
    if result.front:
        print(f"\nPareto front (price vs headroom): {', '.join(result.front)}")
    print(f"\nanswer: {result.verdict()}")
    return 0
