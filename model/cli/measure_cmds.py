"""``pinchpoint measure`` and ``pinchpoint signature show|plot``."""

from __future__ import annotations

import argparse

from .output import IMAGE_SUFFIXES, output_path


def add_parser(subparsers) -> None:
    m = subparsers.add_parser("measure", help="run the bundled kernels and write a signature",
                              description="Compile and run the bundled C kernels (MAPS, STREAM, "
                              "PEAK, ping, effbw, iobench, netstream) and write a signature.")
    mode = m.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="mode", action="store_const", const="quick",
                      help="fewer sizes and repetitions (the default; under a minute)")
    mode.add_argument("--full", dest="mode", action="store_const", const="full",
                      help="every size step, 11 repetitions")
    m.add_argument("--only", metavar="K1,K2", help="run only these kernels (e.g. maps,peak)")
    output_path(m, "-o", "--output", suffixes=(".json",), required=True, metavar="FILE", help="signature JSON to write")
    m.add_argument("--cc", help="C compiler command (default: $CC, else cc)")
    m.add_argument("--cflags", help="optimisation flags (default: '-O3 -march=native', plus "
                   "'-mprefer-vector-width=256' on x86-64 where the compiler takes it)")
    m.add_argument("--io-dir", help="directory for iobench's temporary files (default: $TMPDIR)")
    m.add_argument("--no-progress", action="store_true", help="no progress bar")
    m.set_defaults(run=run_measure, mode="quick")

    s = subparsers.add_parser("signature", help="show or plot a signature file")
    ssub = s.add_subparsers(dest="signature_command", metavar="ACTION")
    ssub.required = True
    show = ssub.add_parser("show", help="print a signature (file or bundled short name)")
    show.add_argument("file", help="signature JSON, or a bundled name such as p690")
    show.add_argument("--json", action="store_true", help="print the validated JSON")
    show.set_defaults(run=run_show)
    plot = ssub.add_parser("plot", help="plot the MAPS staircase with the cache sizes marked")
    plot.add_argument("file", help="signature JSON, or a bundled name")
    output_path(plot, "-o", "--output", suffixes=IMAGE_SUFFIXES, required=True, help="image file (.svg, .png, .pdf)")
    plot.add_argument("--threads", type=int, default=1)
    plot.set_defaults(run=run_plot)


def _load(name: str):
    from pathlib import Path

    from ..paths import exists
    from ..signature import find_bundled, load_signature

    path = Path(name)
    if exists(path) or path.suffix == ".json" or "/" in name:
        return load_signature(path)
    return load_signature(find_bundled(name))


def run_measure(args: argparse.Namespace) -> int:
    import shlex
    import sys
    from pathlib import Path

    from ..errors import InputError
    from ..measure import measure, parse_only
    from ..signature import dump_signature

    out = Path(args.output)
    if not out.parent.is_dir():  # fail now, not after a minute of measuring
        raise InputError(f"the folder {out.parent} does not exist", key="-o")
    only = parse_only(args.only)
    flags = shlex.split(args.cflags) if args.cflags else None
    sig = measure(args.mode, only, cc=args.cc, flags=flags,
                  progress=not args.no_progress and sys.stderr.isatty(), io_dir=args.io_dir)
    dump_signature(sig, out)
    n = sum(len(k.points) for k in sig.kernels.values())
    print(f"wrote {out}: {n} points from {', '.join(sig.kernels)}")
    return 0


def _result_text(point) -> str:
    from ..units import format_quantity, format_rate

    r = point.result
    if r.unit == "B/s":
        fmt = lambda v: format_rate(v, "memory")  # noqa: E731
    else:
        dim = {"s": "time", "flop/s": "flop_rate"}[r.unit]
        fmt = lambda v: format_quantity(v, dim)  # noqa: E731
    return f"{fmt(r.median)}  [{fmt(r.min)} .. {fmt(r.max)}]  n={len(r.repetitions)}"


def run_show(args: argparse.Namespace) -> int:
    from .output import print_json, table

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
    from ..plots import maps_staircase, save

    sig = _load(args.file)
    ax = maps_staircase(sig, threads=args.threads)
    save(ax, args.output)
    print(f"wrote {args.output}")
    return 0
