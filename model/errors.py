"""The exception hierarchy.

Every error a user can cause derives from :class:`PinchpointError`; the CLI turns it into one
line on stderr and exit code 2.  The concrete classes also subclass the matching builtin (as
pint's ``DefinitionError(ValueError, PintError)`` does) so callers can catch either.
"""

from __future__ import annotations

import difflib


#: Longest message an error carries: a 25 MB value echoed back helps nobody.
MAX_MESSAGE = 1000


def shown(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for quoting input in messages."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's int-to-string limit
        return f"<a number of about {value.bit_length() * 0.30103:.0f} digits>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def did_you_mean(name: str, choices) -> str:
    """`` (did you mean 'ibm-p690'?)`` when ``name`` is close to one of ``choices`` (difflib's
    ratio at least 0.6, or ``name`` a part of exactly one choice), else ``""``: appended to an
    "unknown name" message."""
    choices = [str(c) for c in choices]
    close = difflib.get_close_matches(str(name), choices, n=3, cutoff=0.6)
    if not close:
        close = [c for c in choices if str(name) and str(name) in c][:3]
        close = close if len(close) == 1 else []
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


class PinchpointError(Exception):
    """Root of all pinchpoint errors."""


class LocatedError(PinchpointError):
    """An error that can name the file, the key path and the line it comes from.

    The message reads ``FILE: KEY.PATH: what is wrong`` (line appended where known), so a
    user can go straight to the offending value.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None,
                 line: int | None = None):
        self.message = message
        self.file = None if file is None else str(file)
        self.key = key
        self.line = line
        super().__init__(self._compose())

    def _compose(self) -> str:
        where = []
        if self.file:
            where.append(self.file + (f" (line {self.line})" if self.line else ""))
        if self.key:
            where.append(self.key)
        text = ": ".join(where + [self.message])
        return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + " [...]"

    def located(self, *, file: str | None = None, key_prefix: str | None = None, line: int | None = None,
                kind: "type[LocatedError] | None" = None) -> "LocatedError":
        """A copy with the file, a key prefix and the line filled in where this error lacks them,
        as ``kind`` where given (a :class:`UnitError` met inside a profile re-raised as the
        profile's :class:`ProfileError`).  Used wherever an error is re-raised with more context."""
        key = self.key
        if key_prefix:
            key = f"{key_prefix}.{key}" if key else key_prefix
        return (kind or type(self))(self.message, file=self.file or file, key=key, line=self.line or line)


class ProfileError(LocatedError, ValueError):
    """A machine profile (or component file) is malformed or inconsistent."""


class UnitError(LocatedError, ValueError):
    """A quantity could not be parsed, or has the wrong dimension."""


class SignatureError(LocatedError, ValueError):
    """A signature file is malformed, or lacks what a computation needs."""


class WorkloadError(LocatedError, ValueError):
    """A workload file is malformed, or asks for something the signature cannot answer."""


class InputError(LocatedError, ValueError):
    """A command-line input or an imported tool output (iperf3, fio, hwloc ...) is unusable."""


class MeasurementError(PinchpointError, RuntimeError):
    """A kernel failed, timed out, or produced output that cannot be trusted."""


class CompileError(PinchpointError, RuntimeError):
    """A kernel could not be compiled (no compiler, or the compiler rejected the source)."""
