"""The ``pinchpoint`` command: a thin layer that parses arguments, calls the models and formats.

Each subcommand lives in its own module with an ``add_parser(subparsers)`` function that
registers it and sets ``run`` as the parser default.  Command modules import only argparse at
module level; the models (and pint, networkx, scipy, sympy behind them) are imported inside
``run`` so that ``pinchpoint --version`` and ``--help`` start fast.

Every :class:`~pinchpoint.errors.PinchpointError` becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

from pinchpoint import __version__
from pinchpoint.errors import PinchpointError
from pinchpoint.cli.output import check_outputs

#: Subcommand modules, in the order ``--help`` lists them.  Add a module here to add commands.
COMMAND_MODULES = [
    "pinchpoint.cli.profile_cmds",
    "pinchpoint.cli.measure_cmds",
    "pinchpoint.cli.planning_cmds",
    "pinchpoint.cli.scale_cmds",
    "pinchpoint.cli.detect_cmds",
    "pinchpoint.cli.predict_cmds",
    "pinchpoint.cli.diagnose_cmds",
    "pinchpoint.cli.probe_cmds",
    "pinchpoint.cli.report_cmds",
    "pinchpoint.cli.trace_cmds",
    "pinchpoint.cli.plan_cmds",
]


#: Command -> the module that registers it, so that a run builds only its own module's parsers
#: (all of them for --help or an unknown command).  tests/cli/test_lazy_parser.py checks this
#: against what the modules register.
COMMANDS = {
    "profiles": "pinchpoint.cli.profile_cmds", "ceilings": "pinchpoint.cli.profile_cmds",
    "explain": "pinchpoint.cli.profile_cmds", "solve": "pinchpoint.cli.profile_cmds",
    "measure": "pinchpoint.cli.measure_cmds", "signatures": "pinchpoint.cli.measure_cmds",
    "signature": "pinchpoint.cli.measure_cmds",
    "sweep": "pinchpoint.cli.planning_cmds", "uncertainty": "pinchpoint.cli.planning_cmds",
    "compare": "pinchpoint.cli.planning_cmds", "scale": "pinchpoint.cli.scale_cmds",
    "detect": "pinchpoint.cli.detect_cmds", "import": "pinchpoint.cli.detect_cmds",
    "predict": "pinchpoint.cli.predict_cmds", "workloads": "pinchpoint.cli.predict_cmds",
    "classify": "pinchpoint.cli.predict_cmds",
    "diagnose": "pinchpoint.cli.diagnose_cmds", "probe": "pinchpoint.cli.probe_cmds",
    "report": "pinchpoint.cli.report_cmds",
    "trace": "pinchpoint.cli.trace_cmds",
    "plan": "pinchpoint.cli.plan_cmds",
}


def command_of(argv: list[str]) -> str | None:
    """The subcommand an argument list names: its first word that is not an option (the
    top-level options -h, --version, -q and -v take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``command``, only the parsers of the module that registers it."""
    parser = argparse.ArgumentParser(
        prog="pinchpoint",
        description="Analytical performance modelling and bottleneck prediction.",
    )
    parser.add_argument("--version", action="version", version=f"pinchpoint {__version__}")
    _add_verbosity(parser, 0)
    _add_units(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in [COMMANDS[command]] if command in COMMANDS else COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    for leaf in _leaf_parsers(sub):  # -q/-v/--units also after the subcommand, like iperf3 and likwid
        _add_verbosity(leaf, argparse.SUPPRESS)
        _add_units(leaf, argparse.SUPPRESS)
    return parser


def _add_verbosity(p: argparse.ArgumentParser, default) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=-1, default=default,
                   help="no warnings, notes or progress on stderr (errors still print)")
    g.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const=1, default=default,
                   help="more detail on stderr (the version, the file behind each bundled name)")


#: --units: the choices of :func:`pinchpoint.physics.units.rate_units` (spelled here so that
#: building the parser does not import the units module).
RATE_UNITS = ("bits", "bytes")


def _add_units(p: argparse.ArgumentParser, default) -> None:
    p.add_argument("--units", choices=RATE_UNITS, default=default,
                   help="every rate in bit/s (bits) or B/s (bytes); default: network rates in bit/s, "
                        "memory, bus and host paths in B/s (as iperf3 -f and kerncraft --unit choose)")


def _say_inputs(args: argparse.Namespace) -> None:
    """With -v: the version and which file each named input resolves to (a bundled name or a
    file of the same name in the working directory)."""
    from pinchpoint.cli.output import VERBOSITY, info

    if VERBOSITY <= 0:
        return
    info(f"{__version__} on Python {sys.version.split()[0]} ({sys.executable})")
    from pinchpoint.cli.stdin import is_stdin

    from pinchpoint.paths import exists

    def named(value) -> list[str]:  # bundled names only: files, '-' and outputs speak for themselves
        values = value if isinstance(value, list) else [value] if isinstance(value, str) else []
        return [v for v in values if not is_stdin(v) and not exists(v) and "/" not in v]

    profiles = getattr(args, "profiles", None) or getattr(args, "profile", None)
    if named(profiles):
        from pinchpoint.inputs.profile_io import bundled_profiles
        for n in named(profiles):
            info(f"profile {n}: {bundled_profiles().get(n, 'no bundled profile of that name')}")
    if named(getattr(args, "signature", None)):
        from pinchpoint.inputs.signature import bundled_signatures
        for s in named(args.signature):
            info(f"signature {s}: {bundled_signatures().get(s, 'no bundled signature of that name')}")
    if named(getattr(args, "workload", None)):
        from pinchpoint.inputs.workload import bundled_workloads
        for w in named(args.workload):
            info(f"workload {w}: {bundled_workloads().get(w, 'no bundled workload of that name')}")


def _leaf_parsers(sub: argparse._SubParsersAction):
    for p in sub.choices.values():
        nested = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            for n in nested:
                yield from _leaf_parsers(n)
        else:
            yield p


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs (temporary folders removed,
    kernels stopped, no partial files): without it SIGTERM left /tmp/pinchpoint-measure-*/
    and iobench's data file behind)."""


#: Set when SIGTERM arrived: an exception that follows is its consequence (the signal landed
#: inside a library's write and left a closed file behind), not a bug to show as a traceback.
_terminating: list[int] = []


def _on_sigterm(signum, frame):
    _terminating.append(signum)
    raise Terminated()


def _quiet_terminated(hook):
    """An unraisable-exception hook that drops our Terminated: raised inside a weakref callback
    or a finaliser, Python can only print it ("Exception ignored in ...") and goes on."""
    def quiet(info):
        if not isinstance(info.exc_value, Terminated):
            hook(info)
    return quiet


# long: one try with an except clause per way a command can end (error, signal, broken pipe, full disk), each a few lines
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # the fast path: no subcommand modules imported
        print(f"pinchpoint {__version__}")
        return 0
    parser = build_parser(command_of(argv))
    args = parser.parse_args(argv)
    from pinchpoint.cli.output import set_verbosity

    set_verbosity(getattr(args, "verbosity", 0))
    from pinchpoint.cli import stdin
    from pinchpoint.cli.output import StdoutError, guard_stdio, quiet_broken_pipe

    stdin.reset()
    _terminating.clear()
    if threading.current_thread() is threading.main_thread():  # signal handlers live there only
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    else:
        previous = None
    restore = guard_stdio()
    unraisable, sys.unraisablehook = sys.unraisablehook, _quiet_terminated(sys.unraisablehook)
    try:
        check_outputs(args)  # before any work: a bad -o must not cost a minute of measuring
        stdin.check_once(args)
        _say_inputs(args)
        from pinchpoint.physics.units import rate_units

        with rate_units(getattr(args, "units", None)):
            code = int(args.run(args) or 0)
        sys.stdout.flush()  # a full disk shows here, not after we said we were done
        return code
    except PinchpointError as exc:
        from pinchpoint.cli.flags import as_flag, flags_of, leaf_parser

        # models name parameters ("flow"); the user typed a flag ("--flow")
        exc = as_flag(exc, flags_of(leaf_parser(parser, getattr(args, "run", None))))
        print(f"pinchpoint: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print("pinchpoint: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("pinchpoint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `pinchpoint ... | head`, or stdout closed: quiet, as SIGPIPE would end us
        quiet_broken_pipe()
        return 128 + signal.SIGPIPE
    except StdoutError as exc:  # stdout on a full disk, /dev/full
        quiet_broken_pipe()  # what is buffered cannot be written either
        print(f"pinchpoint: error: cannot write standard output: {exc.strerror}", file=sys.stderr)
        return 2
    except Exception:
        if not _terminating:
            raise
        print("pinchpoint: terminated", file=sys.stderr)  # e.g. a ValueError from the file it closed
        return 128 + signal.SIGTERM
    finally:
        restore()
        sys.unraisablehook = unraisable
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
