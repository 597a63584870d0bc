"""Every option that names a file to write refuses a bad path in one line, exit 2, before any
work and with nothing left behind (an earlier review, output paths; an earlier review, item 2).

The test walks the real parser, so a command added later is covered as soon as it exists.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from pinchpoint.cli import build_parser, main
from tests.conftest import run_cli
from tests.fuzz.engine import parser_leaves as _leaves

#: Destinations that always name a file the command writes.
_OUTPUT_DESTS = {"output", "csv", "plot"}


def _dummy(action) -> list[str]:
    value = str(next(iter(action.choices))) if action.choices else "x"
    if action.option_strings:
        return [action.option_strings[0], value]
    return [value]


def _argv(prefix, parser, dest, path, folder: Path) -> list[str]:
    """The subcommand with dummy values for its other required arguments (good file names in
    ``folder`` for its other outputs) and PATH for ``dest``."""
    argv = []
    target = None
    good = {d: folder / f"ok{(sfx or ('.out',))[0]}" for d, _, sfx in parser.get_default("_outputs") or ()}
    for action in parser._actions:
        if action.dest == dest:
            target = action
        elif action.dest in good and action.required:
            argv += [action.option_strings[0], str(good[action.dest])]
        elif action.option_strings and action.required:
            argv += _dummy(action)
        elif not action.option_strings and action.nargs not in ("?", "*", argparse.SUPPRESS) \
                and action.dest != "help":
            argv += _dummy(action)
    # the output option first: a command's trailing positional (trace's PROGRAM ARGS ...) takes
    # everything after it
    return list(prefix) + [target.option_strings[0], str(path)] + argv


def _outputs():
    out = []
    for prefix, parser in _leaves(build_parser()):
        for dest, flag, suffixes in parser.get_default("_outputs") or ():
            out.append(pytest.param(prefix, parser, dest, flag, suffixes, id=f"{' '.join(prefix)} {flag}"))
    return out


def test_every_output_option_is_checked():
    """An option called -o/--output, --csv or --plot that is not marked would skip the checks."""
    missing = []
    for prefix, parser in _leaves(build_parser()):
        marked = {dest for dest, _, _ in parser.get_default("_outputs") or ()}
        for action in parser._actions:
            if action.dest in _OUTPUT_DESTS and action.dest not in marked:
                missing.append(f"{' '.join(prefix)} {'/'.join(action.option_strings)}")
    assert not missing, missing
    assert len(_outputs()) >= 10


def _bad_paths(tmp_path: Path, suffixes):
    good = (suffixes or (".out",))[0]
    folder = tmp_path / f"folder{good}"
    folder.mkdir()
    if os.geteuid() == 0:
        unwritable = Path("/proc") / f"pinchpoint-test{good}"  # root may write anything but this
    else:
        unwritable = tmp_path / f"readonly{good}"
        unwritable.write_text("keep\n")
        os.chmod(unwritable, 0o444)
    cases = {"missing folder": tmp_path / "no" / "such" / f"x{good}", "a folder": folder,
             "unwritable": unwritable}
    if suffixes:
        cases["bad extension"] = tmp_path / "x.bmp"
    return cases


@pytest.mark.parametrize("prefix,parser,dest,flag,suffixes", _outputs())
def test_bad_output_paths_give_one_line_and_exit_2(prefix, parser, dest, flag, suffixes, tmp_path, capsys):
    for what, path in _bad_paths(tmp_path, suffixes).items():
        before = sorted(p.name for p in tmp_path.rglob("*"))
        rc = main(_argv(prefix, parser, dest, path, tmp_path))
        err = capsys.readouterr().err
        assert rc == 2, (what, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("pinchpoint: error:"), (what, err)
        assert flag in lines[0], (what, err)
        assert sorted(p.name for p in tmp_path.rglob("*")) == before, what
        assert not Path("/proc", f"pinchpoint-test{(suffixes or ('.out',))[0]}").exists()


def test_sweep_csv_to_a_folder_as_a_whole_process(tmp_path):
    res = run_cli("sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..133MHz:3",
                  "--csv", str(tmp_path))
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and "--csv" in res.stderr and "Traceback" not in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_devices_are_written_in_place_whatever_their_name(capsys):
    """`-o /dev/null` discards, `-o /dev/full` fails cleanly: neither becomes a regular file."""
    import stat

    likwid = str(Path(__file__).parent / "fixtures" / "likwid" / "copy-100kB-1t-vm-epyc.txt")
    assert main(["import", "likwid", likwid, "-o", "/dev/null"]) == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    if os.path.exists("/dev/full"):
        assert main(["import", "likwid", likwid, "-o", "/dev/full"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "/dev/full" in err and "writing failed" in err
        assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
