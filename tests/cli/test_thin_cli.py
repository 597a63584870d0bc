"""The CLI is a thin layer: arguments declared once (cli/common.py), one loader per kind of
input, no command module borrowing another's helpers, no attributes written onto the parsed
arguments as a side channel."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from pinchpoint.cli import build_parser
from pinchpoint.cli.common import PROFILE_HELP

CLI = Path(__file__).resolve().parents[2] / "model" / "cli"

#: Command modules that may import another command module's definitions, and why.
SHARED = {
    # report judges a measurement with diagnose's own flags and the same gathering of them
    ("report_cmds", "diagnose_cmds"),
}


def leaf_parsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from leaf_parsers(sub)
    yield parser


def test_the_profile_argument_has_one_definition():
    positional = [(p.prog, a.help) for p in leaf_parsers(build_parser()) for a in p._actions
                  if not a.option_strings and a.dest in ("profile", "profiles")]
    assert len(positional) >= 7  # ceilings, explain, solve, classify, sweep, uncertainty, compare, report
    assert {h for _, h in positional} == {PROFILE_HELP}, positional


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_command_modules_share_through_common_only():
    borrowed = []
    for path in sorted(CLI.glob("*_cmds.py")):
        for module in imported_modules(path):
            other = module.rpartition(".")[2]
            if module.startswith("pinchpoint.cli.") and other.endswith("_cmds") and other != path.stem \
                    and (path.stem, other) not in SHARED:
                borrowed.append(f"{path.name} imports {module}")
    assert borrowed == []


def test_no_side_channel_through_the_parsed_arguments():
    written = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "args":
                    written.append(f"{path.name}:{node.lineno} args.{t.attr} = ...")
    assert written == []


def test_one_rule_finds_a_signature():
    """Bundled names are resolved in pinchpoint.api.load_signature alone (cli/common.py wraps it)."""
    users = [p.name for p in sorted(CLI.glob("*.py")) if "find_bundled" in p.read_text(encoding="utf-8")]
    assert users == []
