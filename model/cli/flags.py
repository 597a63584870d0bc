"""Errors name parameters in the model and flags on the command line.

Model code raises ``InputError(..., key="flow")``: the name of the parameter, as a library
caller passes it.  The CLI reports the same error as ``--flow: ...``, the flag a user typed,
by looking the parameter up among the options of the command that ran (its argparse ``dest``).
"""

from __future__ import annotations

import argparse

from pinchpoint.errors import LocatedError, PinchpointError


def leaf_parser(parser: argparse.ArgumentParser, run) -> argparse.ArgumentParser | None:
    """The (sub)parser whose ``run`` default is ``run``: the command that parsed the arguments."""
    if parser._defaults.get("run") is run:
        return parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found = leaf_parser(sub, run)
                if found is not None:
                    return found
    return None


def flags_of(parser: argparse.ArgumentParser | None) -> dict[str, str]:
    """Parameter name (argparse ``dest``) -> its long flag, for every option of ``parser``."""
    if parser is None:
        return {}
    return {a.dest: max(a.option_strings, key=len) for a in parser._actions
            if a.option_strings and a.dest not in (argparse.SUPPRESS, "help")}


def as_flag(exc: PinchpointError, flags: dict[str, str]) -> PinchpointError:
    """``exc`` with a parameter key (``flow``, or ``vary mem.clock``) shown as its flag.

    Only errors that name no file: a key inside a file (``flows.nic-rx``) is a key path.
    """
    if not isinstance(exc, LocatedError) or exc.file is not None or not exc.key:
        return exc
    head, sep, rest = exc.key.partition(" ")
    if head not in flags:
        return exc
    return type(exc)(exc.message, key=flags[head] + sep + rest, line=exc.line)
