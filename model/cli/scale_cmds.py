"""``pinchpoint scale``: throughput against concurrent clients (universal scalability law fit,
retrograde verdict) and, with service demands, a closed queueing network solved by MVA.

Thin: parse the flags, call :func:`pinchpoint.api.fit_scaling`, print.  Models are imported
inside :func:`run_scale` so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse

from pinchpoint.cli.common import add_json
from pinchpoint.cli.output import IMAGE_SUFFIXES, output_path


def add_parser(sub) -> None:
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
    add_json(p)
    output_path(p, "--plot", suffixes=IMAGE_SUFFIXES, metavar="FILE", help="draw data, fits and MVA to FILE")
    p.set_defaults(run=run_scale)


def _pairs(values: list[str], flag: str, dimension: str) -> list[tuple[str, float]]:
    """``NAME=VALUE[,NAME=VALUE]`` flags -> [(name, SI value)]."""
    from pinchpoint.cli.output import parse_flag
    from pinchpoint.errors import InputError

    out = []
    for item in values:
        for part in item.split(","):
            name, sep, text = part.partition("=")
            if not sep or not name.strip() or not text.strip():
                raise InputError(f"expected NAME=VALUE, got {part!r}", key=flag)
            out.append((name.strip(), parse_flag(text.strip(), dimension, f"{flag} {name.strip()}")))
    return out


def _fixed(items: list[str]) -> dict[str, float]:
    """``--fix alpha=0`` flags -> {"alpha": 0.0}."""
    from pinchpoint.errors import InputError

    fixed = {}
    for item in items:
        name, sep, text = item.partition("=")
        try:
            if not sep:
                raise ValueError
            fixed[name.strip()] = float(text)
        except ValueError:
            raise InputError(f"expected PARAM=NUMBER (e.g. alpha=0), got {item!r}", key="--fix") from None
    return fixed


def _fraction(text: str | None, flag: str) -> float | None:
    from pinchpoint.errors import InputError

    if text is None:
        return None
    t = text.strip()
    try:
        return float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise InputError(f"expected a fraction such as 5% or 0.05, got {text!r}", key=flag) from None


def run_scale(args: argparse.Namespace) -> int:
    from pinchpoint.api import fit_scaling
    from pinchpoint.cli.output import parse_flag, print_json
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin
    from pinchpoint.inputs.concurrency_io import parse_series

    data = parse_series(read_stdin("DATA"), STDIN_NAME) if is_stdin(args.data) else args.data
    result = fit_scaling(data, series=args.series, fixed=_fixed(args.fix), noise=_fraction(args.noise, "--noise"),
                         queues=_pairs(args.demands, "--demands", "time"),
                         delays=_pairs(args.delay, "--delay", "time"),
                         think_s=parse_flag(args.think, "time", "--think"), clients=args.clients)
    if args.plot:
        from pinchpoint.report.plots_planning import plot_scale

        plot_scale(result.fits, args.plot, result.data.unit, result.mva)
    if args.json:
        print_json(result.to_dict())
        return 0
    print(f"{result.data.path} [{result.data.unit}]")
    for f in result.fits:
        _print_fit(f, result.data.unit)
    if result.mva is not None:
        _print_mva(result.mva)
    if args.plot:
        print(f"plot: {args.plot}")
    return 0


def _print_fit(f, unit: str) -> None:
    import math

    from pinchpoint.physics import usl

    print()
    print(f"{f.series}: " + ", ".join(f"N={n:g}: {x:g}" for n, x in zip(f.clients, f.throughput)))
    if f.fitted:
        for p in usl.PARAMS:
            e = getattr(f, p)
            high = "beyond the float range" if e.high is None else f"{e.high:.4g}"
            ci = (f"  {f.level:.0%} CI {e.low:.4g} .. {high}" if e.low is not None
                  else ("  (fixed)" if e.fixed else ""))
            print(f"  {p:5s} = {e.value:.4g}{ci}")
        pk = f.peak_clients
        if pk is not None and math.isfinite(pk):
            print(f"  peak at N = {pk:.3g}: {f.peak_throughput:.4g} {unit}")
    if f.amdahl is not None:
        g, a = f.amdahl
        print(f"  beta = 0 (Amdahl) fit: gamma = {g:.4g}, alpha = {a:.4g}")
    if f.tested:  # only where the points can test beta (no p-value from an assumed noise alone)
        t = f.test
        print(f"  beta test ({t.method}): statistic {t.statistic:.3g}, p = {t.p_value:.3g}")
    print(f"  verdict: {f.verdict}")
    for note in f.notes:
        print(f"  note: {note}")


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
