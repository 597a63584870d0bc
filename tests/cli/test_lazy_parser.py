"""A run builds only the parsers of its own command's module; the table that says which module
registers which command matches what the modules register."""

from __future__ import annotations

import argparse
import importlib

import pytest

from pinchpoint.cli import COMMAND_MODULES, COMMANDS, build_parser, command_of


def test_commands_table_matches_the_modules():
    registered = {}
    for name in COMMAND_MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(name).add_parser(sub)
        registered |= {command: name for command in sub.choices}
    assert COMMANDS == registered


@pytest.mark.parametrize("argv, command", [
    (["ceilings", "powermac-g5"], "ceilings"),
    (["-q", "diagnose", "--measured", "1 Gbit/s"], "diagnose"),
    (["--help"], None),
    ([], None),
])
def test_command_of(argv, command):
    assert command_of(argv) == command


def test_a_known_command_builds_only_its_module():
    sub = next(a for a in build_parser("ceilings")._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"profiles", "ceilings", "explain", "solve"}
    full = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(full.choices) == set(COMMANDS)
    unknown = next(a for a in build_parser("nosuch")._actions if isinstance(a, argparse._SubParsersAction))
    assert set(unknown.choices) == set(COMMANDS)
