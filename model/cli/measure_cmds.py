"""``pinchpoint measure`` and ``pinchpoint signature show|plot``."""

from __future__ import annotations

import argparse

from pinchpoint.cli.output import IMAGE_SUFFIXES, output_path


def add_parser(subparsers) -> None:
    m = subparsers.add_parser("measure", help="run the bundled kernels and write a signature",
                              description="Compile and run the bundled C kernels (MAPS, STREAM, "
                              "PEAK, core, ping, effbw, iobench, netstream) and write a signature.")
    mode = m.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="mode", action="store_const", const="quick",
                      help="fewer sizes and repetitions (the default; under a minute)")
    mode.add_argument("--full", dest="mode", action="store_const", const="full",
                      help="every size step, 11 repetitions")
    m.add_argument("--only", metavar="K1,K2", help="run only these kernels (e.g. maps,peak)")
    output_path(m, "-o", "--output", suffixes=(".json",), required=True, metavar="FILE", help="signature JSON to write")
    m.add_argument("--cc", help="C compiler command (default: $CC, else cc)")
    m.add_argument("--cflags", help="optimisation flags (default: '-O3 -march=native', plus "
                   "'-mprefer-vector-width=256' on x86-64 where the compiler takes it); a value that "
                   "starts with '-' takes '=': --cflags=-O2 (the flags of a distribution's packages, to "
                   "predict its binaries)")
    m.add_argument("--io-dir", help="directory for iobench's temporary files (default: $TMPDIR)")
    m.add_argument("--no-progress", action="store_true", help="no progress bar")
    m.add_argument("--cpus", metavar="LIST",
                   help="CPUs to run on, a list as taskset and likwid-pin take it (4 is CPU 4; 0-3, "
                        "0,2,4); default: the CPUs this process may use (its affinity mask)")
    m.add_argument("--threads", type=int, metavar="N",
                   help="most MAPS threads (default: one per CPU of --cpus)")
    m.add_argument("--no-pin", action="store_true",
                   help="do not pin MAPS threads to CPUs (default: thread t on the t-th CPU of --cpus)")
    m.add_argument("--sizes", metavar="S1,S2,...",
                   help="MAPS working sets instead of the staircase, e.g. '16 KiB,1 MiB,256 MiB'")
    m.add_argument("--reps", type=int, metavar="N",
                   help="repetitions per point (default 5 quick, 11 full)")
    m.add_argument("--noise-limit", type=float, default=None, metavar="RATIO",
                   help="warn about points whose repetitions spread more than this max/min (default 1.2)")
    m.set_defaults(run=run_measure, mode="quick")

    ls = subparsers.add_parser("signatures", help="list the bundled (published) signatures",
                               description="The signatures shipped with pinchpoint, by the short name "
                               "that --signature, signature show and signature plot take.")
    ls.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    ls.set_defaults(run=run_signatures)

    s = subparsers.add_parser("signature", help="show or plot a signature file")
    ssub = s.add_subparsers(dest="signature_command", metavar="ACTION")
    ssub.required = True
    show = ssub.add_parser("show", help="print a signature (file or bundled short name)")
    show.add_argument("file", help="signature JSON, a bundled name such as p690, or '-' (stdin)")
    show.add_argument("--json", action="store_true", help="print the validated JSON")
    show.set_defaults(run=run_show)
    plot = ssub.add_parser("plot", help="plot a signature: the MAPS staircase with the cache sizes "
                           "marked, else every figure it has (PEAK, STREAM ...) as bars")
    plot.add_argument("file", help="signature JSON, a bundled name, or '-' (stdin)")
    output_path(plot, "-o", "--output", suffixes=IMAGE_SUFFIXES, required=True,
                help="image file (.svg, .png, .pdf)")
    plot.add_argument("--threads", type=int, default=1,
                      help="draw the MAPS points measured with this many threads (default 1)")
    plot.set_defaults(run=run_plot)


def run_signatures(args: argparse.Namespace) -> int:
    from pinchpoint.inputs.signature import bundled_signatures, load_signature
    from pinchpoint.cli.output import print_listing

    rows = []
    for name, path in bundled_signatures().items():
        sig = load_signature(path)
        kernels = ", ".join(sig.kernels)
        rows.append([name, f"{sig.host.get('cpu_model', '?')}: {kernels}"])
    print_listing(rows, "signature", args.json)
    return 0


def _load(name: str):
    from pinchpoint.cli.common import load_signature_arg

    return load_signature_arg(name, "FILE")


def run_measure(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from pinchpoint.errors import InputError
    from pinchpoint.measure.session import measure, parse_only
    from pinchpoint.inputs.signature import dump_signature

    out = Path(args.output)
    if not out.parent.is_dir():  # fail now, not after a minute of measuring
        raise InputError(f"the folder {out.parent} does not exist", key="-o")
    from pinchpoint.measure.hostinfo import usable_cpus
    from pinchpoint.measure.session import parse_cpus, parse_sizes, parse_threads
    from pinchpoint.measure.noise import noise_summary, noisy_points
    from pinchpoint.cli.common import show_progress
    from pinchpoint.cli.output import warn

    only = parse_only(args.only)
    flags = shlex.split(args.cflags) if args.cflags else None
    from pinchpoint.measure.noise import NOISE_LIMIT

    cpus, sizes = parse_cpus(args.cpus), parse_sizes(args.sizes)
    threads = parse_threads(args.threads, cpus or tuple(sorted(usable_cpus())))
    limit = NOISE_LIMIT if args.noise_limit is None else args.noise_limit
    noisy_points(None, limit)  # a bad limit fails now, not after a minute of measuring
    sig = measure(args.mode, only, cc=args.cc, flags=flags,
                  progress=show_progress(args.no_progress),
                  io_dir=args.io_dir, cpus=cpus, pin=not args.no_pin, sizes=sizes, reps=args.reps,
                  noise_limit=limit, threads=threads)
    dump_signature(sig, out)
    n = sum(len(k.points) for k in sig.kernels.values())
    print(f"wrote {out}: {n} points from {', '.join(sig.kernels)} ({sig.host['run']['pinning']})")
    noisy = noisy_points(sig, limit)
    if noisy:
        warn(noise_summary(noisy, limit))
    return 0


def _result_text(point) -> str:
    from pinchpoint.physics.units import format_quantity, format_rate

    r = point.result
    if r.unit == "B/s":
        fmt = lambda v: format_rate(v, "memory")  # noqa: E731
    elif r.unit in ("s", "flop/s"):
        dim = {"s": "time", "flop/s": "flop_rate"}[r.unit]
        fmt = lambda v: format_quantity(v, dim)  # noqa: E731
    else:  # counted rates (instruction/s, branch/s, taken-branch/s), in giga
        fmt = lambda v: f"{v / 1e9:.4g} G{r.unit}"  # noqa: E731
    return f"{fmt(r.median)}  [{fmt(r.min)} .. {fmt(r.max)}]  n={len(r.repetitions)}"


def run_show(args: argparse.Namespace) -> int:
    from pinchpoint.cli.output import print_json, table

    sig = _load(args.file)
    if args.json:
        print_json(sig.to_dict())
        return 0
    h = sig.host
    print(f"host: {h.get('name', '?')}  cpu: {h.get('cpu_model')}  cores: {h.get('cores', '?')}"
          f"  os: {h.get('os', '?')}")
    if h.get("source"):
        print(f"source: {h['source']}")
    c = sig.compiler
    print(f"compiler: {c.get('name')} ({c.get('version')}) {' '.join(c.get('flags') or [])}")
    print(f"created: {sig.created}")
    for name, run in sig.kernels.items():
        print(f"\n{name}  ({len(run.points)} points, source {(run.source_sha256 or 'published')[:12]})")
        keys = []
        for p in run.points:
            for k in p.params:
                if k not in keys:
                    keys.append(k)
        rows = [[str(p.params.get(k, "")) for k in keys] + [_result_text(p)] for p in run.points]
        print(table(rows, keys + ["median [min .. max]"]))
    return 0


def run_plot(args: argparse.Namespace) -> int:
    from pinchpoint.report.plots_signature import plot_signature, save

    sig = _load(args.file)
    ax = plot_signature(sig, threads=args.threads)
    save(ax, args.output)
    print(f"wrote {args.output}")
    return 0
