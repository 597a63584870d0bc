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

from .. import __version__
from ..errors import PinchpointError
from .output import check_outputs

#: Subcommand modules, in the order ``--help`` lists them.  Add a module here to add commands.
COMMAND_MODULES = [
    "pinchpoint.cli.profile_cmds",
    "pinchpoint.cli.measure_cmds",
    "pinchpoint.cli.planning_cmds",
    "pinchpoint.cli.detect_cmds",
    "pinchpoint.cli.predict_cmds",
    "pinchpoint.cli.diagnose_cmds",
    "pinchpoint.cli.report_cmds",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinchpoint",
        description="Analytical performance modelling and bottleneck prediction.",
    )
    parser.add_argument("--version", action="version", version=f"pinchpoint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs (temporary folders removed,
    kernels stopped, no partial files): without it SIGTERM left /tmp/pinchpoint-measure-*/
    and iobench's data file behind (issue 19)."""


def _on_sigterm(signum, frame):
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # the fast path: no subcommand modules imported
        print(f"pinchpoint {__version__}")
        return 0
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():  # signal handlers live there only
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    else:
        previous = None
    try:
        check_outputs(args)  # before any work: a bad -o must not cost a minute of measuring
        return int(args.run(args) or 0)
    except PinchpointError as exc:
        print(f"pinchpoint: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print("pinchpoint: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("pinchpoint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `pinchpoint ... | head`
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
