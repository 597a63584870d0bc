"""What the command modules share: argument definitions (declared once, with one help text),
the loaders that turn an argument into a profile, signature or workload (a file, a bundled
name, or ``-`` for standard input), the printing of a prediction and of a diagnosis verdict
(``diagnose`` and ``probe`` both print one).

Only argparse is imported at module level: the models are imported inside the functions so that
``pinchpoint --help`` does not pay for pint, networkx, scipy or sympy (about 0.5 s; see
tests/cli/test_lazy_parser.py).
"""

from __future__ import annotations

import argparse

PROFILE_HELP = "bundled profile name (`pinchpoint profiles` lists them) or a .toml or .json file"
SIGNATURE_HELP = "signature JSON file, bundled name (p690, powermac-g5-xbench ...) or '-' (stdin)"
WORKLOAD_HELP = "workload .toml file, bundled name (`pinchpoint workloads`) or '-' (stdin)"


def add_profile(parser: argparse.ArgumentParser, *, many: bool = False) -> None:
    """The positional PROFILE argument (``many``: zero or more of them, as ``profiles``)."""
    if many:
        parser.add_argument("profiles", nargs="*", metavar="PROFILE", help=PROFILE_HELP)
    else:
        parser.add_argument("profile", metavar="PROFILE", help=PROFILE_HELP)


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")


# ---- loaders: one rule each ------------------------------------------------------------------

def load_profile_arg(text: str):
    """A profile from a bundled name or a file (``extends`` resolved, checked)."""
    from pinchpoint.inputs.profile_io import load_profile

    return load_profile(text)


def load_signature_arg(text: str, flag: str = "--signature"):
    """A signature from '-' (standard input), a file or a bundled name: the rule of
    :func:`pinchpoint.api.load_signature`; an unknown bundled name is an error on ``flag``."""
    from pinchpoint.api import load_signature
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin
    from pinchpoint.errors import SignatureError
    from pinchpoint.inputs.signature import loads_signature

    if is_stdin(text):
        return loads_signature(read_stdin(flag), file=STDIN_NAME)
    try:
        return load_signature(text)
    except SignatureError as exc:
        if exc.file is None and exc.key is None:  # a bundled name that does not exist
            raise SignatureError(exc.message, key=flag) from None
        raise


def load_workload_arg(text: str, flag: str = "--workload"):
    """A workload from '-' (standard input), a .toml file or a bundled name."""
    from pinchpoint.api import load_workload
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin
    from pinchpoint.inputs.workload import loads_workload

    if is_stdin(text):
        return loads_workload(read_stdin(flag), file=STDIN_NAME, default_name="stdin")
    return load_workload(text)


def check_flows(profile, flows, flag: str = "--flow") -> None:
    """An error naming ``flag`` for a flow the profile lacks, with the closest names.  Names with
    a '/' (a scenario's flows, ``bidirectional/nic-rx``) are left to the model."""
    from pinchpoint.api import unknown_flow_error

    for f in [f for f in flows or () if "/" not in f]:
        error = unknown_flow_error(profile, f, key=flag)
        if error is not None:
            raise error


def show_progress(no_progress: bool = False) -> bool:
    """Whether a command draws a progress bar (tqdm, on stderr): only on a terminal, never under
    ``-q`` or ``--no-progress`` (a log file or a pipe gets no carriage-return noise)."""
    import sys

    from pinchpoint.cli.output import VERBOSITY

    return not no_progress and VERBOSITY >= 0 and sys.stderr is not None and sys.stderr.isatty()


# ---- printing shared by predict, compare --workload and trace ----------------------------------

def seconds(s: float) -> str:
    from pinchpoint.physics.readable import seconds as readable_seconds

    return readable_seconds(s)


def print_prediction(pred) -> None:
    """A :class:`~pinchpoint.prediction.convolve.Prediction` as the ``predict`` command shows it."""
    from pinchpoint.cli.output import table

    print(f"{pred.workload} on {pred.signature}" + (f" with profile {pred.profile}" if pred.profile else "")
          + f" (signature {pred.stat})")
    print(f"  estimate  {seconds(pred.estimate_s)}")
    print(f"  range     {seconds(pred.low_s)} (overlapped) .. {seconds(pred.high_s)} (serial)")
    print(f"  estimate rule: {pred.estimate_rule}")
    print(f"  binding: {pred.binding or 'nothing (no work)'}")
    print()
    rows = [[r.name, seconds(r.seconds), f"{r.share:.1%}", r.detail] for r in pred.resources if r.seconds > 0]
    print(table(rows, ["resource", "time", "share", "rates read"], align="lrrl"))
    if len(pred.phases) > 1:
        print()
        rows = [[ph.name, seconds(ph.low_s), seconds(ph.high_s), ph.binding or "-"] for ph in pred.phases]
        print(table(rows, ["phase", "overlapped", "serial", "binding"], align="lrrl"))
    for note in pred.notes:
        print(f"  note: {note}")
    for e in pred.extrapolations:
        print(f"  EXTRAPOLATED: {e}")


def render_verdict(v) -> str:
    """The verdict as text: the ceilings from the binding one up, with formulas and numbers, then
    efficiency, advice, hypotheses (with their legend) and notes (where set-aside estimates go)."""
    from pinchpoint.physics.units import format_rate

    net = lambda x: format_rate(x, "network")  # noqa: E731
    side = f" ({v.protocol.upper()}, {v.side}'s figure)" if v.side else f" ({v.protocol.upper()})"
    lines = [f"measured: {net(v.measured_bytes_per_s)}{side}", ""]
    lines += _ceiling_lines(v, net)
    lines.append("")
    lines.append(f"binding: {v.binding.name} ({v.binding.kind}) at {net(v.binding.ceiling_bytes_per_s)}")
    lines.append(f"efficiency: {_percent(v.efficiency, 1)} (measured / binding)")
    lines.append(f"verdict: {v.verdict}; limited by {v.limited_by}")
    lines += [f"  - {c}" for c in v.causes]
    if v.advice:
        lines.append("advice:")
        lines += [f"  - {a}" for a in v.advice]
    if v.hypotheses:
        lines.append("hypotheses (inputs missing; what would explain the figure; + fits a common default or "
                     "lies in the model's validity range):")
        lines += [f"  {'+' if h.fits else ' '} {h.text}" for h in v.hypotheses]
    if v.notes:
        lines.append("notes:")
        lines += [f"  - {n}" for n in v.notes]
    return "\n".join(lines)


def _ceiling_lines(v, net) -> list[str]:
    """The verdict's table of ceilings (the binding one starred) and their formulas."""
    from pinchpoint.cli.output import table

    lines = []
    with_raw = any(c.raw_ceiling_bytes_per_s is not None for c in v.ceilings)
    rows = []
    for c in v.ceilings:
        row = ["*" + c.name if c is v.binding else c.name, c.kind, net(c.ceiling_bytes_per_s)]
        if with_raw:
            row.append(net(c.raw_ceiling_bytes_per_s) if c.raw_ceiling_bytes_per_s is not None else "")
        share = v.measured_bytes_per_s / c.ceiling_bytes_per_s if c.ceiling_bytes_per_s else 0.0
        rows.append(row + [_percent(share)])
    headers = ["ceiling", "kind", "payload rate"] + (["raw"] if with_raw else []) + ["measured/ceiling"]
    if rows:
        lines.append(table(rows, headers, align="llr" + ("r" if with_raw else "") + "r"))
        lines.append("(* binds)")
        lines.append("")
        lines.append("formulas:")
    for c in v.ceilings:
        lines.append(f"  {c.name}: {c.formula}")
        if c.note:
            lines.append(f"      {c.note}")
    return lines


def _percent(share: float, digits: int = 0) -> str:
    """A share as a percentage; a thousandfold or more as a factor ("2.6e+54x"), not 55 digits."""
    return f"{share:.{digits}%}" if share < 1000 else f"{share:.3g}x"
