"""``pinchpoint sweep | uncertainty | compare | scale``: capacity-planning commands.

Thin: parse arguments, call :mod:`pinchpoint.solve.sweep`, :mod:`pinchpoint.solve.uncertainty`,
:mod:`pinchpoint.solve.compare`, :mod:`pinchpoint.physics.usl` and :mod:`pinchpoint.physics.queueing`, format the
result.  Models are imported inside the ``run_*`` functions so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse

from pinchpoint.graph.resource_ids import convention
from pinchpoint.cli.output import IMAGE_SUFFIXES, output_path


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep", help="what-if: a flow's ceiling and binding link over ranges of link parameters",
        description="Vary link parameters over ranges (several --vary make a grid) and report the flow's "
                    "ceiling and binding link at every point, e.g. "
                    "--flow nic-rx --vary pcix.clock=66MHz..266MHz:41 --vary pcix.width=32bit..64bit:2")
    p.add_argument("profile", help="bundled profile name or path to a .toml (or .json) file")
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
    p.add_argument("profile", help="bundled profile name or .toml path")
    p.add_argument("--flow", required=True, help="the flow whose ceiling is sampled")
    p.add_argument("--uncertain", action="append", default=[], metavar="LINK.PARAM=SPREAD",
                   help="add or override a spread, e.g. mem.clock='200 MHz +- 5 %%' (repeatable)")
    p.add_argument("--samples", type=int, default=100_000, help="Monte Carlo samples (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0: repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(run=run_uncertainty)

    p = sub.add_parser("compare", help="machines side by side: every flow's ceiling per profile, binding link marked",
                       description="Every flow's ceiling on each profile, the binding link of each, and the "
                                   "best machine per flow marked with *.")
    add_compare_arguments(p)
    p.set_defaults(run=run_compare)

    p = sub.add_parser(
        "scale", help="throughput vs clients: USL fit, retrograde verdict, optional MVA",
        description="Fit the Universal Scalability Law to measured throughput vs concurrent clients (CSV with "
                    "columns [series,]clients,throughput) and say whether throughput is retrograde (beta > 0: "
                    "contention in software).  With --demands, also solve the closed queueing network by exact "
                    "MVA and print its asymptotic bounds and N*.")
    p.add_argument("data", help="CSV file, a bundled series name such as mysql-g5-anandtech-2005-09-01, "
                                "or '-' (stdin)")
    p.add_argument("--series", action="append", help="only this series (repeatable)")
    p.add_argument("--fix", action="append", default=[], metavar="PARAM=VALUE",
                   help="hold gamma or alpha at a value instead of fitting it")
    p.add_argument("--noise", default=None, metavar="PCT",
                   help="relative measurement noise assumed when the data cannot estimate it (default 5%%)")
    p.add_argument("--demands", action="append", default=[], metavar="NAME=TIME",
                   help="service demand of a queueing station, e.g. cpu='4 ms' (repeatable or comma-separated)")
    p.add_argument("--delay", action="append", default=[], metavar="NAME=TIME",
                   help="demand at a delay (infinite-server) station")
    p.add_argument("--think", default="0 s", help="think time Z (default 0 s)")
    p.add_argument("--clients", type=int, default=None, help="MVA up to this many clients (default: the data's maximum)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    output_path(p, "--plot", suffixes=IMAGE_SUFFIXES, metavar="FILE", help="draw data, fits and MVA to FILE")
    p.set_defaults(run=run_scale)


def add_compare_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``compare``; other commands' options (workloads, signatures) can be added here."""
    p.add_argument("profiles", nargs="*", metavar="PROFILE", help="bundled profile names or .toml paths")
    p.add_argument("--flow", action="append", help="only this flow (repeatable)")
    p.add_argument("--workload", metavar="W", help="instead: predict workload W on each --signature side by side")
    p.add_argument("--signature", nargs="+", action="extend", metavar="S",
                   help="signatures for --workload (files or bundled names; repeat or list several)")
    p.add_argument("--extrapolate", action="store_true", help="with --workload: allow working sets outside the measured range")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
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


def run_sweep(args: argparse.Namespace) -> int:
    from pinchpoint.physics import units
    from pinchpoint.errors import InputError
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.sweep import SweepSummary, parse_vary, plan_sweep
    from pinchpoint.cli.output import print_json, table

    profile = load_profile(args.profile)
    axes = [parse_vary(v, profile) for v in args.vary]
    plan = plan_sweep(profile, args.flow, axes)
    if args.json and plan.size > MAX_JSON_POINTS:
        raise InputError(f"the grid has {plan.size:,} points: --json prints at most {MAX_JSON_POINTS:,}; "
                         "write them with --csv FILE (streamed) instead", key="--json")
    # Grids of millions of points are streamed chunk by chunk (flat memory); the whole grid is
    # held only where it is wanted at once: JSON, a plot, a table of every point.
    table_rows = len(axes) == 1 and plan.size <= 60
    result = plan.result() if (args.json or args.plot or table_rows) else None
    source = result if result is not None else plan
    summary = SweepSummary(plan.links, changes=len(axes) == 1)
    if args.csv:
        write_sweep_csv(source, args.csv, each=summary.add)
    else:
        for chunk in source.chunks():
            summary.add(chunk)
    if args.plot:
        from pinchpoint.report.plots_planning import plot_sweep

        plot_sweep(result, args.plot)
    if args.json:
        print_json(result.to_dict())
        return 0
    conv = convention(plan.network)
    fmt = lambda v: units.format_rate(float(v), conv)  # noqa: E731
    print(f"{profile.name}: {args.flow} over {' x '.join(f'{a.name} ({a.values.size} {a.spacing})' for a in axes)}"
          f" = {summary.points} points")
    print(f"  at the profile's values: {fmt(plan.nominal_bytes_per_s)}")
    print(f"  ceiling ranges {fmt(summary.low)} .. {fmt(summary.high)}")
    # the binding link users read is the one that binds after protocol overhead
    print("  binds (after overhead): " + ", ".join(f"{k} {v:.1%}"
                                                   for k, v in summary.binding_share(effective=True).items()))
    print("  binds (raw): " + ", ".join(f"{k} {v:.1%}" for k, v in summary.binding_share().items()))
    if table_rows:
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
    for note in plan.notes:
        print(f"  note: {note}")
    if args.csv:
        print(f"  wrote {args.csv}")
    if args.plot:
        print(f"  plot: {args.plot}")
    return 0


# --- uncertainty ---------------------------------------------------------------------------------

def run_uncertainty(args: argparse.Namespace) -> int:
    import dataclasses

    from pinchpoint.physics import units
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.uncertainty import monte_carlo, parse_uncertain
    from pinchpoint.cli.output import print_json, table

    profile = load_profile(args.profile)
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

def run_compare(args: argparse.Namespace) -> int:
    from pinchpoint.physics import units
    from pinchpoint.solve.compare import compare
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.cli.output import print_json, table

    if args.workload or args.signature:  # predictions side by side (pinchpoint.cli.predict_cmds)
        from pinchpoint.cli.predict_cmds import run_compare_predictions
        return run_compare_predictions(args)
    profiles = [load_profile(p) for p in args.profiles]
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
            conv = convention(cell.network)
            mark = "*" if m in best and len(c.machines) > 1 else ""
            row.append(f"{mark}{units.format_rate(cell.ceiling.ceiling_bytes_per_s, conv)} "
                       f"[{','.join(cell.ceiling.binding)}]")
        rows.append(row)
    print(table(rows, ["flow"] + list(c.machines), align="l" + "r" * len(c.machines)))
    print()
    print("[link]: the binding link on that machine; *: the highest ceiling for the flow; -: no such flow.")
    if args.plot:
        print(f"plot: {args.plot}")
    return 0


# --- scale ---------------------------------------------------------------------------------------

def _pairs(values: list[str], flag: str, dimension: str) -> list[tuple[str, float]]:
    from pinchpoint.errors import InputError
    from pinchpoint.cli.output import parse_flag

    out = []
    for item in values:
        for part in item.split(","):
            name, sep, text = part.partition("=")
            if not sep or not name.strip() or not text.strip():
                raise InputError(f"expected NAME=VALUE, got {part!r}", key=flag)
            value = parse_flag(text.strip(), dimension, f"{flag} {name.strip()}")
            out.append((name.strip(), value))
    return out


def _fraction(text: str | None, flag: str) -> float | None:
    from pinchpoint.errors import InputError

    if text is None:
        return None
    t = text.strip()
    try:
        return float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise InputError(f"expected a fraction such as 5% or 0.05, got {text!r}", key=flag) from None


def _print_fit(f, unit: str) -> None:
    """One series' fit as text: what the points support, nothing more."""
    import math

    from pinchpoint.physics import usl

    print()
    print(f"{f.series}: " + ", ".join(f"N={n:g}: {x:g}" for n, x in zip(f.clients, f.throughput)))
    if f.fitted:
        for p in usl.PARAMS:
            e = getattr(f, p)
            ci = (f"  {f.level:.0%} CI {e.low:.4g} .. {e.high:.4g}" if e.low is not None
                  else ("  (fixed)" if e.fixed else ""))
            print(f"  {p:5s} = {e.value:.4g}{ci}")
        pk = f.peak_clients
        if pk is not None and math.isfinite(pk):
            print(f"  peak at N = {pk:.3g}: {f.peak_throughput:.4g} {unit}")
    if f.amdahl is not None:
        g, a = f.amdahl
        print(f"  beta = 0 (Amdahl) fit: gamma = {g:.4g}, alpha = {a:.4g}")
    if f.tested:
        t = f.test
        print(f"  beta test ({t.method}): statistic {t.statistic:.3g}, p = {t.p_value:.3g}")
    print(f"  verdict: {f.verdict}")
    for note in f.notes:
        print(f"  note: {note}")


def _scale_fits(args, data) -> list:
    """The USL fit of each chosen series, with --series, --fix and --noise applied."""
    from pinchpoint.errors import InputError
    from pinchpoint.physics import usl

    series = list(data.series)
    if args.series:
        names = [s.name for s in series]
        for want in args.series:
            if want not in names:
                raise InputError(f"no series {want!r} in the file (series: {', '.join(names)})", key="--series")
        series = [s for s in series if s.name in args.series]
    fixed = {}
    for item in args.fix:
        name, sep, text = item.partition("=")
        try:
            fixed[name.strip()] = float(text)
        except ValueError:
            raise InputError(f"expected PARAM=NUMBER (e.g. alpha=0), got {item!r}", key="--fix") from None
        if not sep:
            raise InputError(f"expected PARAM=NUMBER, got {item!r}", key="--fix")
    noise = _fraction(args.noise, "--noise")
    fits = []
    for s in series:
        try:
            fits.append(usl.fit(s.clients, s.throughput, series=s.name, fixed=fixed, noise=noise))
        except InputError as exc:
            raise InputError(exc.message, file=data.path, key=exc.key) from None
    return fits


def _scale_mva(args, fits):
    """MVA of the --demands and --delay stations (None without them)."""
    from pinchpoint.errors import InputError
    from pinchpoint.physics import queueing, units

    queues = _pairs(args.demands, "--demands", "time")
    delays = _pairs(args.delay, "--delay", "time")
    if not (queues or delays):
        if args.clients is not None:
            raise InputError("--clients needs --demands (it sets the MVA population)", key="--clients")
        return None
    try:
        think = units.parse(args.think, "time", key="--think")
    except Exception as exc:  # UnitError
        raise InputError(getattr(exc, "message", str(exc)), key="--think") from None
    top = args.clients or int(max(float(f.clients.max()) for f in fits))
    return queueing.mva([d for _, d in queues + delays], top, think_time=think,
                        kinds=["queue"] * len(queues) + ["delay"] * len(delays),
                        names=[n for n, _ in queues + delays])


def _print_mva(mva) -> None:
    from pinchpoint.cli.output import table
    from pinchpoint.physics import queueing

    print()
    if mva.method != "exact":
        print(f"MVA: {mva.clients[-1]:,} clients is past exact MVA's {queueing.MAX_EXACT:,}: {mva.method}, "
              f"at {mva.clients.size} populations (within a few per cent near N*, exact as N grows)")
    print(f"MVA: bottleneck {mva.bottleneck} (D_max = {mva.max_demand:g} s), D = {mva.total_demand:g} s, "
          f"Z = {mva.think_time:g} s, N* = {mva.n_star:.3g}, X <= {1 / mva.max_demand:.4g} /s")
    bound = queueing.throughput_bound(mva.clients, mva.total_demand, mva.max_demand, mva.think_time)
    rows = [[str(n), f"{x:.4g}", f"{b:.4g}", f"{r:.4g}"]
            for n, x, b, r in zip(mva.clients, mva.throughput, bound, mva.response_time)]
    print(table(rows, ["N", "X [1/s]", "bound", "R [s]"], align="rrrr"))


def run_scale(args: argparse.Namespace) -> int:
    from pinchpoint.cli.output import print_json
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin
    from pinchpoint.inputs.concurrency_io import parse_series, read_series

    data = parse_series(read_stdin("DATA"), STDIN_NAME) if is_stdin(args.data) else read_series(args.data)
    fits = _scale_fits(args, data)
    mva = _scale_mva(args, fits)
    if args.plot:
        from pinchpoint.report.plots_planning import plot_scale

        plot_scale(fits, args.plot, data.unit, mva)
    if args.json:
        print_json({"file": data.path, "unit": data.unit, "source": list(data.comments),
                    "fits": [f.to_dict() for f in fits], "mva": mva.to_dict() if mva else None})
        return 0
    print(f"{data.path} [{data.unit}]")
    for f in fits:
        _print_fit(f, data.unit)
    if mva is not None:
        _print_mva(mva)
    if args.plot:
        print(f"plot: {args.plot}")
    return 0
