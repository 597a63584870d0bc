"""Shared output helpers for the CLI: JSON printing and plain-text tables."""

from __future__ import annotations

import json
import math
import sys

#: Version of the JSON output's layout: raise it when a key is renamed or removed (adding is free).
JSON_SCHEMA_VERSION = 1

def _finite(obj):
    """``obj`` with NaN and infinities as None: JSON has no such numbers (Python would write
    the non-standard ``NaN``/``Infinity``, which other tools refuse), and null says "no finite
    value")."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def to_json(obj, indent: int | None = 2) -> str:
    """Standard JSON text of an object (usually a ``to_dict()``): never NaN or infinity."""
    return json.dumps(_finite(obj), indent=indent, allow_nan=False)


#: The key of the block that says which tool wrote an object (like iperf3's ``start`` block).
META_KEY = "pinchpoint"


def output_meta(command: str | None = None) -> dict:
    """Tool version, output schema version and UTC timestamp (ISO 8601) of one JSON answer."""
    from datetime import datetime, timezone

    from pinchpoint import __version__

    meta = {"version": __version__, "schema_version": JSON_SCHEMA_VERSION,
            "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if command:
        meta["command"] = command
    return meta


#: -q sets this to -1 (no warnings or notes), -v to 1 (more detail); 0 is the default.
VERBOSITY = 0


def set_verbosity(level: int) -> None:
    global VERBOSITY
    VERBOSITY = level


def warn(message: str) -> None:
    """One warning line on stderr (silenced by -q): inputs that look wrong but still give an answer."""
    if VERBOSITY >= 0:
        print(f"pinchpoint: warning: {message}", file=sys.stderr)


def info(message: str) -> None:
    """A detail line on stderr shown only with -v."""
    if VERBOSITY > 0:
        print(f"pinchpoint: {message}", file=sys.stderr)


def print_json(obj, *, command: str | None = None) -> None:
    """Print an object (usually a ``to_dict()``) as indented JSON on stdout.

    An object (dict) gets a ``pinchpoint`` block first: tool version, schema version, timestamp;
    its own keys stay as they are.  A list (the listings) is printed as it is.
    """
    if isinstance(obj, dict) and META_KEY not in obj:
        obj = {META_KEY: output_meta(command), **obj}
    sys.stdout.write(to_json(obj) + "\n")


def table(rows: list[list[str]], header: list[str], *, align: str | None = None) -> str:
    """Render rows as a fixed-width text table; ``align`` holds 'l' or 'r' per column."""
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    align = align or "l" * len(header)

    def line(row):
        return "  ".join(c.rjust(w) if a == "r" else c.ljust(w)
                         for c, w, a in zip(row, widths, align)).rstrip()

    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def parse_flag(text: str, dimension: str, flag: str) -> float:
    """Parse a command-line quantity; a bad one is an InputError naming the flag."""
    from pinchpoint.physics import units
    from pinchpoint.errors import InputError, UnitError

    try:
        return units.parse(text, dimension, key=flag)
    except UnitError as exc:
        raise InputError(exc.message, key=flag) from None


def print_listing(rows: list[list[str]], what: str, as_json: bool) -> None:
    """Print bundled names with their descriptions, as a table or as one JSON object
    (``{"pinchpoint": ..., "<what>s": [{"name", "description"}, ...]}``)."""
    if as_json:
        print_json({f"{what}s": [{"name": n, "description": d} for n, d in rows]})
    else:
        print(table(rows, [what, "description"]))


#: Suffixes of the image formats matplotlib writes for us.
IMAGE_SUFFIXES = (".png", ".svg", ".pdf")


def output_path(parser, *flags: str, suffixes: tuple[str, ...] | None, **kwargs):
    """``parser.add_argument(*flags, **kwargs)`` for a file the command writes.

    :func:`check_outputs` checks it (the folder exists, it is not a folder, it can be written,
    its name ends in one of ``suffixes``) before the command does any work, so a bad path costs
    nothing and leaves nothing behind.  Returns the action.
    """
    action = parser.add_argument(*flags, **kwargs)
    marked = list(parser.get_default("_outputs") or [])
    marked.append((action.dest, "/".join(action.option_strings) or action.dest, suffixes))
    parser.set_defaults(_outputs=marked)
    return action


def check_outputs(args) -> None:
    """Refuse bad output paths of the chosen (sub)command, naming the flag."""
    from pinchpoint.paths import output_target

    for dest, flag, suffixes in getattr(args, "_outputs", None) or ():
        value = getattr(args, dest, None)
        if value:
            output_target(value, key=flag, suffixes=suffixes)


# --- standard output faults ----------------------------------------------------------------

#: Stand-ins for characters an ASCII-only terminal cannot show (``PYTHONIOENCODING=ascii``,
#: ``LANG=C`` on an old system): "µs" becomes "us", as iperf3 and ping write it.
ASCII_STAND_INS = {"µ": "u", "μ": "u", "×": "x", "·": ".", "≤": "<=", "≥": ">=", "≈": "~", "→": "->",
                   "←": "<-", "–": "-", "—": "-", "…": "...", "±": "+/-", "°": " deg", "²": "^2", "³": "^3",
                   "’": "'", "‘": "'", "“": '"', "”": '"', "Ω": "Ohm", "∞": "inf", "√": "sqrt"}


def _stand_in(exc: UnicodeEncodeError):
    text = exc.object[exc.start:exc.end]
    return "".join(ASCII_STAND_INS.get(c, "?") for c in text), exc.end


codecs_registered = False


def _register_stand_ins() -> str:
    global codecs_registered
    import codecs

    if not codecs_registered:
        codecs.register_error("pinchpoint-stand-in", _stand_in)
        codecs_registered = True
    return "pinchpoint-stand-in"


class StdoutError(OSError):
    """Standard output refused a write (a full disk, ``/dev/full``, an I/O error)."""


class _Guarded:
    """Standard output whose write faults are named: a closed pipe (EPIPE) stays a
    BrokenPipeError (quiet exit 141, as a process killed by SIGPIPE), any other OSError is a
    :class:`StdoutError` (one line, exit 2).  Everything else is the stream's own."""

    def __init__(self, stream):
        self._stream = stream

    def _call(self, name, *args):
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror) from None

    def write(self, text):
        return self._call("write", text)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        return self._call("flush")

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _Closed:
    """Standard output that was closed before we started (``pinchpoint ... >&-``): a write is
    a broken pipe (nothing can read it)."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text):
        import errno

        raise BrokenPipeError(errno.EPIPE, "standard output is closed")

    writelines = write

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        import io

        raise io.UnsupportedOperation("standard output is closed")


def _ascii_safe(stream) -> None:
    """Let a stream whose encoding cannot show "µ" write a stand-in instead of raising."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "µ×→".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=_register_stand_ins())


def guard_stdio():
    """Prepare standard output and error for a run: faults named, ASCII terminals served.
    Returns a function that puts the originals back."""
    saved = sys.stdout, sys.stderr
    for stream in saved:
        if stream is not None:
            _ascii_safe(stream)
    sys.stdout = _Closed() if sys.stdout is None else _Guarded(sys.stdout)

    def restore() -> None:
        sys.stdout, sys.stderr = saved

    return restore


def quiet_broken_pipe() -> None:
    """After a broken pipe or a failed write: point file descriptor 1 at /dev/null, so the
    interpreter's own flush at exit does not print "Exception ignored ... BrokenPipeError"
    (Python's documented advice for SIGPIPE, in the signal module's notes).  Only when standard
    output is file descriptor 1: a caller's replacement stream (a test) is left alone."""
    import os

    try:
        if sys.stdout.fileno() != 1:
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both
        pass
