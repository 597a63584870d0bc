"""``pinchpoint sweep | uncertainty | compare``: capacity-planning commands.

Thin: parse arguments, call :mod:`pinchpoint.solve.sweep`, :mod:`pinchpoint.solve.uncertainty`,
:mod:`pinchpoint.solve.compare` or :mod:`pinchpoint.api`, format the result.  Models are imported
inside the ``run_*`` functions so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse

from pinchpoint.cli.common import (WORKLOAD_HELP, add_json, add_profile, check_flows,
                                   load_profile_arg, load_signature_arg, load_workload_arg, seconds)
from pinchpoint.cli.output import IMAGE_SUFFIXES, output_path
from pinchpoint.graph.resource_ids import convention


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep", help="what-if: a flow's ceiling and binding link over ranges of link parameters",
        description="Vary link parameters over ranges (several --vary make a grid) and report the flow's "
                    "ceiling and binding link at every point, e.g. "
                    "--flow nic-rx --vary pcix.clock=66MHz..266MHz:41 --vary pcix.width=32bit..64bit:2")
    add_profile(p)
    p.add_argument("--flow", required=True, help="the flow to sweep")
    p.add_argument("--vary", action="append", required=True, metavar="LINK.PARAM=LO..HI:N[:log]",
                   help="a parameter range with units, N points, linear (default) or :log spacing; repeat for a grid")
    output_path(p, "--csv", suffixes=(".csv",), metavar="FILE", help="write every grid point to FILE (CSV, written atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object with every grid point (at most 1,000,000; use --csv for more)")
    output_path(p, "--plot", suffixes=IMAGE_SUFFIXES, metavar="FILE", help="draw the sweep to FILE (.png, .svg, .pdf; needs matplotlib)")
    p.set_defaults(run=run_sweep)

    p = sub.add_parser(
        "uncertainty", help="a flow's ceiling when profile values are ranges or distributions (Monte Carlo)",
        description="Profile values written as '6.4 GB/s +- 10 %', '0.7 us .. 1.0 us' or 'normal(6.4 GB/s, 2 %)' "
                    "(or given with --uncertain) are sampled; the ceiling comes back as percentiles and an "
                    "interval, with how often each link binds.")
    add_profile(p)
    p.add_argument("--flow", required=True, help="the flow whose ceiling is sampled")
    p.add_argument("--uncertain", action="append", default=[], metavar="LINK.PARAM=SPREAD",
                   help="add or override a spread, e.g. mem.clock='200 MHz +- 5 %%' (repeatable)")
    p.add_argument("--samples", type=int, default=100_000, help="Monte Carlo samples (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0: repeatable)")
    add_json(p)
    p.set_defaults(run=run_uncertainty)

    p = sub.add_parser("compare", help="machines side by side: every flow's ceiling per profile, binding link marked",
                       description="Every flow's ceiling on each profile, the binding link of each, and the "
                                   "best machine per flow marked with *.")
    add_compare_arguments(p)
    p.set_defaults(run=run_compare)


def add_compare_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``compare``; other commands' options (workloads, signatures) can be added here."""
    add_profile(p, many=True)
    p.add_argument("--flow", action="append", help="only this flow (repeatable)")
    p.add_argument("--workload", metavar="W", help="instead: predict workload W on each --signature side by side: "
                                                   + WORKLOAD_HELP)
    p.add_argument("--signature", nargs="+", action="extend", metavar="S",
                   help="signatures for --workload (files or bundled names; repeat or list several)")
    p.add_argument("--extrapolate", action="store_true", help="with --workload: allow working sets outside the measured range")
    add_json(p)
    output_path(p, "--plot", suffixes=IMAGE_SUFFIXES, metavar="FILE",
                help="bar chart to FILE (.png, .svg, .pdf): ceilings, or with --workload the predicted times")


# --- sweep -------------------------------------------------------------------------------------

#: Most grid points --json prints: each point is a JSON object, a 1e6-point grid is already
#: about 200 MB of text; larger grids go to --csv, which streams.
MAX_JSON_POINTS = 1_000_000


def write_sweep_csv(source, path, *, each=None) -> None:
    """Every grid point as a CSV row, written atomically, one chunk at a time.

    ``source`` is a :class:`~pinchpoint.solve.sweep.SweepResult` or a :class:`~pinchpoint.solve.sweep.SweepPlan`
    (anything with ``axes``, ``links`` and ``chunks()``); ``each(chunk)`` sees every chunk (the
    summary is gathered in the same pass).  The text is what ``csv.writer`` writes for the
    rows (floats as ``str(float)``, names quoted where needed), built a column at a time: the
    axis values and link names are formatted once and indexed, the ceilings with one ``map``.
    """
    import csv
    import io

    import numpy as np

    from pinchpoint.paths import atomic_write

    def csv_text(fields) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(fields)
        return out.getvalue()

    names = [f"{a.name}_{a.unit}" for a in source.axes] + [
        "ceiling_bytes_per_s", "binding", "effective_ceiling_bytes_per_s", "effective_binding"]
    axis_text = [np.array([csv_text([v])[:-1] for v in a.values.tolist()], dtype=object) for a in source.axes]
    link_text = np.array([csv_text([l])[:-1] for l in source.links], dtype=object)
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(csv_text(names))
        for chunk in source.chunks():
            if each is not None:
                each(chunk)
            if not chunk.size:
                continue
            cols = [t[i].tolist() for t, i in zip(axis_text, chunk.index)]
            cols += [list(map(str, chunk.ceiling.tolist())), link_text[chunk.binding].tolist(),
                     list(map(str, chunk.effective.tolist())), link_text[chunk.effective_binding].tolist()]
            fh.write("\n".join(map(",".join, zip(*cols))))
            fh.write("\n")


def _print_sweep(profile, args, plan, summary, result) -> None:
    """The sweep's summary: ranges, binding shares, and every point (one short axis) or where the
    binding link changes."""
    from pinchpoint.physics import units
    from pinchpoint.cli.output import table

    axes = plan.axes
    conv = convention(plan.network)
    fmt = lambda v: units.format_rate(float(v), conv)  # noqa: E731
    print(f"{profile.name}: {args.flow} over {' x '.join(f'{a.name} ({a.values.size} {a.spacing})' for a in axes)}"
          f" = {summary.points} points")
    print(f"  at the profile's values: {fmt(plan.nominal_bytes_per_s)}")
    print(f"  effective ceiling ranges {fmt(summary.effective_low)} .. {fmt(summary.effective_high)}"
          f" (raw {fmt(summary.low)} .. {fmt(summary.high)})")
    # the binding link users read first is the one that binds after protocol overhead
    print("  binds (after overhead): " + ", ".join(f"{k} {v:.1%}"
                                                   for k, v in summary.binding_share(effective=True).items()))
    print("  binds (raw): " + ", ".join(f"{k} {v:.1%}" for k, v in summary.binding_share().items()))
    if result is not None:
        a = axes[0]
        rows = [[units.format_quantity(float(v), a.dimension), fmt(c), b, fmt(e), eb]
                for v, c, b, e, eb in zip(a.values, result.ceiling, result.binding_links(), result.effective,
                                          result.binding_links(effective=True))]
        print()
        print(table(rows, [a.name, "raw ceiling", "raw binding", "effective", "binding"], align="lrlrl"))
    elif len(axes) == 1:
        a = axes[0]
        for i, before, after in summary.changes:
            print(f"  {before} -> {after} between {units.format_quantity(float(a.values[i]), a.dimension)}"
                  f" and {units.format_quantity(float(a.values[i + 1]), a.dimension)}")


#: Grid points from which a sweep shows a progress bar (a 1e6-point grid takes about 5 s).
PROGRESS_POINTS = 200_000


def _progress(plan):
    """A tqdm bar on stderr for sweeps that take seconds (large grids, points solved one by
    one): only on a terminal, never under -q."""
    import sys

    from tqdm import tqdm

    from pinchpoint.cli import output

    show = (plan.size >= PROGRESS_POINTS or plan.resolves) and sys.stderr.isatty() and output.VERBOSITY >= 0
    return tqdm(total=plan.size, disable=not show, unit="point", unit_scale=True, desc="sweep", leave=False)


def run_sweep(args: argparse.Namespace) -> int:
    from pinchpoint.solve.sweep import SweepSummary
    from pinchpoint.cli.output import print_json

    profile = load_profile_arg(args.profile)
    axes, plan = _plan(profile, args)
    # Grids of millions of points are streamed chunk by chunk (flat memory); the whole grid is
    # held only where it is wanted at once: JSON, a plot, a table of every point.
    table_rows = len(axes) == 1 and plan.size <= 60
    bar = _progress(plan)
    result = plan.result(bar.update) if (args.json or args.plot or table_rows) else None
    source = result if result is not None else plan
    summary = SweepSummary(plan.links, changes=len(axes) == 1)

    def add(chunk):
        summary.add(chunk)
        if result is None:  # a held result counted its points as it was computed
            bar.update(chunk.size)

    if args.csv:
        write_sweep_csv(source, args.csv, each=add)
    else:
        for chunk in source.chunks():
            add(chunk)
    bar.close()
    if args.plot:
        from pinchpoint.report.plots_planning import plot_sweep

        plot_sweep(result, args.plot)
    if args.json:
        print_json(result.to_dict())
        return 0
    _print_sweep(profile, args, plan, summary, result if table_rows else None)
    for note in plan.notes:
        print(f"  note: {note}")
    if args.csv:
        print(f"  wrote {args.csv}")
    if args.plot:
        print(f"  plot: {args.plot}")
    return 0


def _plan(profile, args):
    """The axes and the :class:`~pinchpoint.solve.sweep.SweepPlan` of ``--flow`` and ``--vary``."""
    from pinchpoint.api import unknown_parameter_error
    from pinchpoint.errors import InputError
    from pinchpoint.solve.sweep import parse_vary, plan_sweep

    check_flows(profile, [args.flow])
    for v in args.vary:
        error = unknown_parameter_error(profile, v, key="--vary")
        if error is not None:
            raise error
    axes = [parse_vary(v, profile) for v in args.vary]
    plan = plan_sweep(profile, args.flow, axes)
    if args.json and plan.size > MAX_JSON_POINTS:
        raise InputError(f"the grid has {plan.size:,} points: --json prints at most {MAX_JSON_POINTS:,}; "
                         "write them with --csv FILE (streamed) instead", key="--json")
    return axes, plan


# --- uncertainty ---------------------------------------------------------------------------------

def run_uncertainty(args: argparse.Namespace) -> int:
    import dataclasses

    from pinchpoint.cli.output import print_json, table
    from pinchpoint.physics import units
    from pinchpoint.solve.uncertainty import monte_carlo, parse_uncertain

    profile = load_profile_arg(args.profile)
    check_flows(profile, [args.flow])
    # the model names its parameter ("uncertain"); output says where a spread came from: the flag
    extra = [dataclasses.replace(parse_uncertain(u, profile), origin="--uncertain") for u in args.uncertain]
    r = monte_carlo(profile, args.flow, extra, samples=args.samples, seed=args.seed)
    if args.json:
        print_json(r.to_dict())
        return 0
    conv = convention(r.network)
    fmt = lambda v: units.format_rate(float(v), conv)  # noqa: E731
    print(f"{profile.name}: {r.flow}, {r.samples} samples (seed {r.seed})")
    for u in r.inputs:
        print(f"  {u.name} = {u.text} ({u.spread[0]}, from {u.origin})")
    lo, hi = r.interval(90.0)
    print(f"  nominal {fmt(r.nominal_bytes_per_s)}; mean {fmt(r.mean_bytes_per_s)}, sd {fmt(r.sd_bytes_per_s)}")
    print(f"  90 % interval {fmt(lo)} .. {fmt(hi)}; observed {fmt(r.low_bytes_per_s)} .. {fmt(r.high_bytes_per_s)}")
    print()
    print(table([[f"p{p:g}", fmt(v), fmt(r.effective_percentiles[p])] for p, v in r.percentiles.items()],
                ["percentile", "ceiling", "effective"], align="lrr"))
    print()
    print("binds in: " + ", ".join(f"{k} {v:.1%}" for k, v in r.binding_share.items()))
    return 0


# --- compare -------------------------------------------------------------------------------------

def _compare_cell(cell, best: bool) -> str:
    from pinchpoint.physics import units

    conv = convention(cell.network)
    text = ("*" if best else "") + units.format_rate(cell.effective, conv)
    raw = cell.ceiling.ceiling_bytes_per_s
    if abs(raw - cell.effective) > 1e-9 * raw:
        text += f" (raw {units.format_rate(raw, conv)})"
    text += f" [{','.join(cell.ceiling.binding)}]"
    if cell.name != cell.flow or cell.alike > 1:
        text += f" ({cell.name}" + (f", 1 of {cell.alike}" if cell.alike > 1 else "") + ")"
    return text


def run_compare(args: argparse.Namespace) -> int:
    from pinchpoint.cli.output import print_json, table
    from pinchpoint.solve.compare import compare

    if args.workload or args.signature:  # predictions side by side
        return run_compare_predictions(args)
    profiles = [load_profile_arg(p) for p in args.profiles]
    c = compare(profiles, args.flow)
    if args.plot:
        from pinchpoint.report.plots_planning import plot_compare

        plot_compare(c, args.plot)
    if args.json:
        print_json(c.to_dict())
        return 0
    for m, d in zip(c.machines, c.descriptions):
        print(f"{m}: {d}")
    print()
    rows = []
    for f in c.flows:
        best = set(c.best(f))
        row = [f]
        for m in c.machines:
            cell = c.cell(f, m)
            if cell is None:
                row.append("-")
                continue
            row.append(_compare_cell(cell, m in best and len(c.machines) > 1))
        rows.append(row)
    print(table(rows, ["flow"] + list(c.machines), align="l" + "r" * len(c.machines)))
    print()
    print("Effective ceilings (after protocol overhead; raw in brackets where it differs). [link]: the binding "
          "link on that machine; *: the highest for the flow; (name, 1 of n): that machine's flow of the role "
          "and how many alike it has; -: no such flow.")
    if args.plot:
        print(f"plot: {args.plot}")
    return 0


def run_compare_predictions(args: argparse.Namespace) -> int:
    """``compare --workload W --signature S1 S2 ...``: one workload on several signatures."""
    from pinchpoint.cli.output import print_json

    wl, preds = _predictions(args)
    fastest = min(p.low_s for p in preds)
    if getattr(args, "plot", None):
        from pinchpoint.report.plots_planning import plot_predictions

        plot_predictions(preds, args.plot)
    if args.json:
        print_json({"workload": wl.name, "predictions": [p.to_dict() for p in preds],
                    "fastest": [p.signature for p in preds if p.low_s <= fastest * (1 + 1e-9)]})
        return 0
    _print_predictions(wl, preds, fastest)
    if getattr(args, "plot", None):
        print(f"plot: {args.plot}")
    return 0


def _predictions(args: argparse.Namespace):
    """The workload and its prediction on each ``--signature`` (with one profile for all, or one each)."""
    from pinchpoint.api import predict
    from pinchpoint.cli.output import warn
    from pinchpoint.errors import InputError
    from pinchpoint.inputs.host_match import mismatch_warnings

    if not args.workload:
        raise InputError("--signature needs --workload W (the workload to predict)", key="--workload")
    if not args.signature:
        raise InputError("--workload needs --signature S [S ...] (the machines to compare)", key="--signature")
    wl = load_workload_arg(args.workload)
    sigs = [load_signature_arg(s) for s in args.signature]
    profiles = [load_profile_arg(p) for p in (args.profiles or [])]
    if len(profiles) not in (0, 1, len(sigs)):
        raise InputError(f"give one profile for all signatures or one per signature ({len(sigs)}), "
                         f"not {len(profiles)}", key="PROFILE")
    preds = []
    for i, s in enumerate(sigs):
        prof = profiles[i] if len(profiles) == len(sigs) else (profiles[0] if profiles else None)
        for w in mismatch_warnings(prof, s) if prof is not None else ():
            warn(w)
        preds.append(predict(s, wl, profile=prof, stat=getattr(args, "stat", "median"),
                             extrapolate=getattr(args, "extrapolate", False)))
    return wl, preds


def _print_predictions(wl, preds, fastest: float) -> None:
    from pinchpoint.cli.output import table

    print(f"{wl.name}: {wl.description}")
    print()
    rows = []
    for p in preds:
        mark = "*" if p.low_s <= fastest * (1 + 1e-9) and len(preds) > 1 else ""
        rows.append([f"{mark}{p.signature}", seconds(p.low_s), seconds(p.high_s), p.binding or "-",
                     "  ".join(f"{r.name} {r.share:.0%}" for r in p.resources if r.seconds > 0),
                     "yes" if p.extrapolated else ""])
    print(table(rows, ["signature", "overlapped", "serial", "binding", "shares", "extrapolated"],
                align="lrrlll"))
    print()
    print("*: the fastest (overlapped) prediction.")
