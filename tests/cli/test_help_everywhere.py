"""Every argument of every subcommand has help text.  The test walks the
parser, so new commands and options are covered without editing it."""

from __future__ import annotations

import argparse

from pinchpoint.cli import build_parser


def _walk(parser: argparse.ArgumentParser, prefix: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{prefix} {name}")
        else:
            yield prefix, action


def test_every_argument_has_help():
    missing = [f"{cmd.strip() or 'pinchpoint'}: {'/'.join(a.option_strings) or a.dest}"
               for cmd, a in _walk(build_parser(), "")
               if a.help in (None, "") and a.help is not argparse.SUPPRESS]
    assert not missing, "arguments without help:\n" + "\n".join(missing)


def test_every_subcommand_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    listed = {c.dest for c in sub._choices_actions}
    assert set(sub.choices) <= listed, set(sub.choices) - listed
    assert all(c.help for c in sub._choices_actions)
