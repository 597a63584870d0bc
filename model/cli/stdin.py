"""``-`` as an input file: read it from standard input (``iperf3 -J ... | pinchpoint diagnose
--iperf3 -``), as iperf3, jq and most Unix tools do.  Standard input can be read once, so only
one argument of a command may be ``-``."""

from __future__ import annotations

import sys

STDIN = "-"
#: How an input read from stdin is named in error messages.
STDIN_NAME = "<stdin>"

_consumed_by: list[str] = []


def is_stdin(arg) -> bool:
    return arg == STDIN


def read_stdin(flag: str) -> str:
    """All of standard input as text, under the cap of input files (read in chunks, so a signal
    stops it); an error when another argument already read it, it is a terminal (nothing piped
    in), or it is longer than any real input."""
    from pinchpoint.errors import InputError
    from pinchpoint.inputs.input_text import read_capped

    if _consumed_by:
        raise InputError(f"standard input ('-') was already read for {_consumed_by[0]}: only one "
                         f"input can come from it", key=flag)
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError("'-' reads standard input, but nothing is piped in", key=flag)
    _consumed_by.append(flag)
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream without bytes (tests replace sys.stdin by a StringIO)
        from pinchpoint.inputs.input_text import MAX_BYTES

        text = sys.stdin.read(MAX_BYTES + 1)
        if len(text) > MAX_BYTES:
            raise InputError(f"cannot read: more than {MAX_BYTES:,} characters, more than any real input",
                             file=STDIN_NAME, key=flag)
        return text
    try:
        return read_capped(stream, InputError, file=STDIN_NAME, key=flag)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=STDIN_NAME, key=flag) from None


def check_once(args) -> None:
    """An error when more than one argument of ``args`` (a Namespace) is '-'."""
    from pinchpoint.errors import InputError

    named = [name for name, value in vars(args).items()
             for v in (value if isinstance(value, list) else [value]) if v == STDIN]
    if len(named) > 1:
        raise InputError(f"'-' (standard input) given for {len(named)} inputs ({', '.join(named)}): "
                         f"stdin can be read once, give files for the others", key=named[1])


def reset() -> None:
    """Forget that stdin was read (one CLI run ends; tests call main() several times)."""
    _consumed_by.clear()
