"""Every code example in README.md runs, and prints the numbers the README shows.

- python blocks: every statement runs in one namespace, in order; a statement with a comment
  (``expr   # Ceiling(nic-rx: 1.064 GB/s ...)``) must return a value whose repr holds every
  number of the comment, in the same order ("..." in a comment skips text, not numbers);
- bash blocks: every ``pinchpoint ...`` command runs (in a fresh process) with exit code 0; the
  other lines (pip, pytest, venv, benchmarks) are listed in NOT_RUN with the reason;
- the first two commands stay first, with Python >= 3.11 beside them.
"""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
NUMBER = re.compile(r"\d+(?:\.\d+)?")

#: Shell lines the suite does not run, each with the reason.
NOT_RUN = {
    "python3 -m pip install": "installs the package: tests/test_packaging.py builds and installs a wheel",
    "python3 -m venv": "creates a virtual environment (CI's .ci/run does)",
    ". .venv/bin/activate": "enters that environment",
    "python3 -m pytest": "the suite itself",
    "python3 benchmarks/": "benchmarks print figures and take minutes; run by hand, see Development",
}


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(TEXT) if lang == language]


def python_statements() -> list[tuple[str, str | None]]:
    """(source, comment or None) of every top-level statement of every python block."""
    out = []
    for body in blocks("python"):
        lines = body.splitlines()
        for node in ast.parse(body).body:
            source = "\n".join(lines[node.lineno - 1:node.end_lineno])
            code, _, comment = source.rpartition("#") if "#" in lines[node.end_lineno - 1] else (source, "", "")
            out.append((ast.get_source_segment(body, node), comment.strip() or None))
    return out


def shell_lines(with_comments: bool = False) -> list:
    """Every command of the bash blocks (``a && b`` is two); with_comments: (command, comment)."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            line, _, comment = line.partition("  #")
            for part in line.strip().split("&&"):
                if part.strip():
                    out.append((part.strip(), comment.strip() or None) if with_comments else part.strip())
    return out


def test_the_readme_has_examples():
    assert len(python_statements()) >= 5 and len(shell_lines()) >= 5


def numbers_in_order(expected: str, actual: str) -> bool:
    position = 0
    for n in NUMBER.findall(expected):
        match = re.compile(r"(?<![\d.])" + re.escape(n) + r"(?![\d])").search(actual, position)
        if match is None:
            return False
        position = match.end()
    return True


def test_numbers_in_order_can_fail():
    assert numbers_in_order("1.189 s .. 1.22 s", "1.189 s .. 1.22 s")
    assert not numbers_in_order("1.122 s .. 1.22 s", "1.189 s .. 1.189 s")
    assert not numbers_in_order("8.5 Gbit/s", "8.512 Gbit/s")


def test_python_examples_print_what_the_readme_says():
    namespace: dict = {}
    checked = 0
    for source, comment in python_statements():
        node = ast.parse(source).body[0]
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), "README.md", "eval"), namespace)  # our own README
            if comment is not None:
                shown = repr(value)
                assert numbers_in_order(comment, shown), f"{source}\n  README: {comment}\n  gives:  {shown}"
                checked += 1
        else:
            exec(compile(ast.Module([node], []), "README.md", "exec"), namespace)
    assert checked >= 4


@pytest.mark.parametrize("line, comment", [(line, comment) for line, comment in shell_lines(True)
                                           if line.startswith("pinchpoint ")])
def test_shell_examples_run(line, comment, cli):
    out = cli(*shlex.split(line)[1:])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
    if comment is not None and not comment.startswith("Python"):  # the numbers the README shows, in order
        assert numbers_in_order(comment, out.stdout), f"{line}\n  README: {comment}\n  gives:\n{out.stdout}"


def test_the_commands_show_figures():
    assert sum(1 for _, comment in shell_lines(True) if comment and NUMBER.search(comment)) >= 4


def test_every_shell_line_is_run_or_says_why_not():
    other = [line for line in shell_lines() if not line.startswith("pinchpoint ")]
    unexplained = [line for line in other if not any(line.startswith(prefix) for prefix in NOT_RUN)]
    assert unexplained == []


def test_the_first_two_commands_come_first_with_the_python_version():
    first = blocks("bash")[0].splitlines()
    assert first[0].startswith("python3 -m pip install . && pinchpoint ceilings powermac-g5")
    assert first[1].startswith("python3 -m pip install '.[test]' && python3 -m pytest -q")
    assert "Python >= 3.11" in first[0]
    setup = (README.parent / "setup.cfg").read_text(encoding="utf-8")
    assert re.search(r"python_requires\s*=\s*>=3\.11", setup)


def test_the_readme_example_numbers_hold():
    """The arithmetic the README spells out beside the examples."""
    window_limit = 2 * 2**20 * 8 / 44.5e-3  # bit/s
    assert f"{window_limit / 1e6:.0f}" == "377"
    assert f"{260e6 / window_limit:.0%}" == "69%"
    assert f"{64 * 1024 * 8 / 44.5e-3 / 1e6:.2f}" == "11.78"
