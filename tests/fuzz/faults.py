"""Environment faults: command lines run while the world around them misbehaves.

Each case runs ``pinchpoint.cli.main`` in process (a few hundred cases a minute; a fresh
interpreter per case would cost a second each) under one fault:

- ``full``: standard output refuses every write (ENOSPC, as ``> /dev/full``);
- ``closed``: standard output is closed (``>&-``: Python sets ``sys.stdout`` to None);
- ``pipe``: the reader goes away after a few bytes (``| head -c 10``);
- ``ascii``: standard output encodes ASCII only (``PYTHONIOENCODING=ascii``, ``LANG=C``);
- ``long_name``: an output or input file name over 255 bytes;
- ``sigterm``: SIGTERM at a random moment, with the output file already there;
- ``stdin_zero``: ``-`` reads an endless standard input (``< /dev/zero``);
- ``not_utf8``: a profile whose file name is not UTF-8.

What counts: a traceback (any exception out of ``main``), a hang (past the limit), silent
nonsense (exit 0 although every write to standard output failed; an output file left neither
old nor complete, or a temporary file left behind; "wrote" with a failed write), and otherwise
a clean outcome (exit 0, 2 with one error line, 141 after a broken pipe, 143 after SIGTERM).
tests/robust/test_output_faults.py runs each fault once in a real process.
"""

from __future__ import annotations

import errno
import io
import os
import random
import shutil
import signal
import sys
import threading
from pathlib import Path

from tests.fuzz.engine import ROOT, SilentNonsense, Tally, cli_argv, parser_leaves, run_case

FAULTS = ("full", "closed", "pipe", "ascii", "long_name", "sigterm", "stdin_zero", "not_utf8")

#: Command lines that print (ascii, full, closed, pipe) or write a file (sigterm, long_name);
#: OUT is replaced by a file in the scratch folder.
PRINTING = [["ceilings", "ibm-p690"], ["ceilings", "hgx-h100-8gpu", "--json"], ["profiles"], ["workloads"],
            ["predict", "--signature", "p690", "--workload", "daxpy-l1"], ["signature", "show", "p690"],
            ["signature", "show", "powermac-g5-linux-memperf-cachebench-uva-g5-report-2004", "--json"],
            ["scale", "mysql-g5-anandtech-2005-09-01"], ["explain", "powermac-g5", "nic-rx"],
            ["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..133MHz:20"],
            ["diagnose", "--measured", "260 Mbit/s", "--link", "1 Gbit/s", "--rtt", "44.5 ms"]]
WRITING = [(["signature", "plot", "p690", "-o", "OUT"], ".svg"), (["report", "ibm-p690", "-o", "OUT"], ".html"),
           (["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..133MHz:20", "--csv", "OUT"],
            ".csv"), (["scale", "mysql-g5-anandtech-2005-09-01", "--plot", "OUT"], ".png")]
READING_STDIN = [["signature", "show", "-"], ["scale", "-"], ["predict", "--signature", "-", "--workload", "daxpy-l1"],
                 ["predict", "--signature", "p690", "--workload", "-"], ["ceilings", "-"]]
#: How a complete output file ends, by suffix.
COMPLETE = {".svg": b"</svg>\n", ".html": b"</html>\n", ".csv": b"\n", ".png": b"IEND\xaeB`\x82"}
OLD = b"old content\n"


class _Full(io.TextIOBase):
    """Standard output on a full disk."""

    encoding, attempted = "utf-8", False

    def write(self, text):
        self.attempted = self.attempted or bool(text)
        raise OSError(errno.ENOSPC, "No space left on device")

    def isatty(self):
        return False


class _Pipe(io.TextIOBase):
    """A pipe whose reader leaves after ``room`` characters."""

    encoding = "utf-8"

    def __init__(self, room: int):
        self.room = room

    def write(self, text):
        if len(text) > self.room:
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")
        self.room -= len(text)
        return len(text)

    def isatty(self):
        return False


def _stdout_for(fault: str, rng: random.Random):
    if fault == "full":
        return _Full()
    if fault == "closed":
        return None
    if fault == "pipe":
        return _Pipe(rng.choice([0, 1, 10, 100, 1000]))
    if fault == "ascii":
        return io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    return io.StringIO()


def _with_out(argv: list[str], folder: Path, suffix: str, name: str | None = None) -> tuple[list[str], Path]:
    target = folder / ((name or "out") + suffix)
    return [str(target) if a == "OUT" else a for a in argv], target


def _case(fault: str, rng: random.Random, folder: Path, commands) -> tuple[list[str], Path | None, str]:
    """(argv, the output file it writes or None, its suffix) for one fault."""
    if fault in ("sigterm", "long_name") or (fault in ("full", "closed") and rng.random() < 0.3):
        argv, suffix = rng.choice(WRITING)
        argv, target = _with_out(argv, folder, suffix, "x" * 300 if fault == "long_name" else None)
        if fault == "sigterm":
            target.write_bytes(OLD)
        return argv, target, suffix
    if fault == "stdin_zero":
        return list(rng.choice(READING_STDIN)), None, ""
    if fault == "not_utf8":
        name = os.fsdecode(b"prof\xff" + bytes([rng.randrange(0x80, 0x100)]) + b".toml")
        source = rng.choice(sorted((ROOT / "profiles" / "machines").glob("ibm-*.toml")))
        shutil.copyfile(source, folder / name)
        if rng.random() < 0.5:
            argv, target = _with_out(["report", str(folder / name), "-o", "OUT"], folder, ".html")
            return argv, target, ".html"
        return ["ceilings", str(folder / name)], None, ""
    if rng.random() < 0.7:
        return list(rng.choice(PRINTING)), None, ""
    argv = cli_argv(rng, commands)
    return [str(folder / "out.csv") if a in ("/dev/null", "/tmp", "x.bmp", "/nonexistent/x.png") else a
            for a in argv], None, ""


def _judge(fault: str, rc, stdout, stderr: str, target: Path | None, suffix: str, folder: Path) -> None:
    """Raise SilentNonsense or RuntimeError (counted as a traceback) for an outcome that is wrong."""
    if rc not in (0, 2, 141, 143, None):
        raise RuntimeError(f"exit {rc}: {stderr[-200:]}")
    if "Traceback" in stderr:
        raise RuntimeError(f"a traceback on stderr: {stderr[-200:]}")
    if rc == 2 and not stderr.rstrip().splitlines()[-1].startswith("pinchpoint: error:"):
        raise SilentNonsense(f"exit 2 without an error line: {stderr[-200:]!r}")
    if fault == "full" and rc == 0 and stdout.attempted:
        raise SilentNonsense("exit 0 although every write to standard output failed")
    if fault == "ascii":
        stdout.buffer.getvalue().decode("ascii")  # strict: a stray byte would raise here
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".probe"))]
    if leftovers:
        raise SilentNonsense(f"temporary files left behind: {leftovers}")
    if target is not None and fault == "sigterm":
        data = target.read_bytes() if target.exists() else b""
        if data != OLD and not data.endswith(COMPLETE[suffix]):
            raise SilentNonsense(f"{target.name} is neither the old file nor a complete new one ({len(data)} bytes)")


def _run_one(argv, fault: str, rng: random.Random, target, suffix: str, folder: Path) -> None:
    from pinchpoint.cli import Terminated, main

    saved = sys.stdout, sys.stderr, sys.stdin
    stdout, stderr = _stdout_for(fault, rng), io.StringIO()
    timer, previous = None, signal.getsignal(signal.SIGTERM)
    zero = open("/dev/zero", "rb") if fault == "stdin_zero" else None  # noqa: SIM115 - closed below
    try:
        sys.stdout, sys.stderr = stdout, stderr
        if zero is not None:
            sys.stdin = io.TextIOWrapper(zero, encoding="utf-8")
        signal.signal(signal.SIGTERM, _late_sigterm)  # a signal after main() returned lands here
        if fault == "sigterm":
            timer = threading.Timer(rng.uniform(0.02, 1.5), os.kill, (os.getpid(), signal.SIGTERM))
            timer.start()
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse's usage errors: exit 2 and its own message
            rc = exc.code
            if rc == 2:
                stderr.write("pinchpoint: error: (usage)\n")
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()
    except Terminated:
        rc = 143
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved
        signal.signal(signal.SIGTERM, previous)
        if zero is not None:
            zero.close()
    _judge(fault, rc, stdout, stderr.getvalue(), target, suffix, folder)


def _warm_up(folder: Path) -> None:
    """Run every listed command once, undisturbed.  In one process a SIGTERM that lands inside
    a first ``import sympy`` leaves a half-imported module for every later case (a real process
    exits with it); after this, the signals land in the commands' own work."""
    import contextlib

    from pinchpoint.cli import main

    for argv, suffix in [(a, "") for a in PRINTING] + WRITING:
        argv, _ = _with_out(argv, folder, suffix, "warm-up")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(argv)
    for leftover in folder.glob("warm-up.*"):
        leftover.unlink()


def _late_sigterm(signum, frame):
    from pinchpoint.cli import Terminated

    raise Terminated()


def fuzz_faults(cases: int, seed: int, *, limit_s: float = 10.0, folder: Path) -> Tally:
    """``cases`` command lines, each under one environment fault (in turn), in ``folder``."""
    from pinchpoint.cli import build_parser

    commands = [(p, sub) for p, sub in parser_leaves(build_parser()) if p[:1] not in (("measure",), ("detect",))]
    rng = random.Random(f"faults:{seed}")
    tally = Tally()
    here = os.getcwd()
    os.chdir(folder)  # whatever a random command writes stays in the scratch folder
    try:
        _warm_up(folder)
        for i in range(cases):
            fault = FAULTS[i % len(FAULTS)]
            scratch = folder / f"case{i}"
            scratch.mkdir()
            argv, target, suffix = _case(fault, rng, scratch, commands)
            sub = random.Random(rng.random())
            label = f"{fault}: pinchpoint " + " ".join(a[:40] for a in argv)
            run_case(lambda: _run_one(argv, fault, sub, target, suffix, scratch), tally, limit_s, label)
            shutil.rmtree(scratch, ignore_errors=True)
    finally:
        os.chdir(here)
    return tally
