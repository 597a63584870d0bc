"""Bad input and faults: each must give one clear error, no partial signature and no
temporary files left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pinchpoint.errors import CompileError, InputError, MeasurementError
from pinchpoint.measure.runner import (compile_kernel, find_compiler, kernel_source,
                                      run_kernel)
from pinchpoint.measure.session import make_plan, parse_only

from kernel_test_helpers import cli_command, is_root, leftovers

pytestmark = pytest.mark.slow


def run(binaries, kernel, *args, timeout=60.0, memory=None):
    return run_kernel(binaries[kernel], list(args), kernel=kernel, timeout=timeout,
                      memory_bytes=memory)


# ---- unknown kernel ---------------------------------------------------------------------------

def test_unknown_kernel_names():
    with pytest.raises(InputError, match="unknown kernel 'nosuch'"):
        parse_only("maps,nosuch")
    with pytest.raises(InputError, match="unknown kernel"):
        kernel_source("nosuch")
    with pytest.raises(InputError, match="unknown kernel"):
        make_plan("quick", ["bogus"], llc_bytes=1 << 20, cpus=2)
    with pytest.raises(InputError, match="empty"):
        parse_only(" , ")


def test_cli_unknown_kernel_exit_2_and_no_file(tmp_path):
    out = tmp_path / "sig.json"
    proc = subprocess.run([*cli_command(), "measure", "--quick", "--only", "maps,nosuch",
                           "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "unknown kernel 'nosuch'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert leftovers(tmp_path) == []


def test_unknown_kernel_argument_rejected(binaries):
    with pytest.raises(MeasurementError, match="unknown argument '--bogus'"):
        run(binaries, "maps", "--bogus")
    with pytest.raises(MeasurementError, match="unknown value 'diagonal'"):
        run(binaries, "maps", "--patterns", "diagonal")


# ---- zero and negative sizes -------------------------------------------------------------------

@pytest.mark.parametrize("kernel,args", [
    ("maps", ["--sizes", "0"]),
    ("maps", ["--sizes", "-4K"]),
    ("maps", ["--threads", "0"]),
    ("stream", ["--elements", "0"]),
    ("stream", ["--elements", "-1"]),
    ("peak", ["--lengths", "0"]),
    ("ping", ["--sizes", "0"]),
    ("effbw", ["--sizes", "-8"]),
    ("effbw", ["--procs", "1"]),
    ("netstream", ["--sizes", "0"]),
    ("iobench", ["--file-bytes", "0"]),
    ("iobench", ["--buffer-bytes", "-4096"]),
    ("maps", ["--reps", "0"]),
    ("maps", ["--trials", "0"]),
    ("peak", ["--max-seconds", "-1"]),
])
def test_zero_or_negative_sizes_rejected(binaries, kernel, args):
    with pytest.raises(MeasurementError, match="out of range"):
        run(binaries, kernel, *args)


def test_size_too_small_for_op(binaries):
    with pytest.raises(MeasurementError, match="too small"):
        run(binaries, "maps", "--ops", "triad", "--sizes", "64")


def test_not_a_number(binaries):
    with pytest.raises(MeasurementError, match="not a size"):
        run(binaries, "maps", "--sizes", "lots")


def test_trials_must_be_whole(binaries):
    with pytest.raises(MeasurementError, match="--trials: 2.5 is not a whole number"):
        run(binaries, "maps", "--trials", "2.5")


# ---- working set larger than free memory ------------------------------------------------------

def _mem_available() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    pytest.skip("no MemAvailable in /proc/meminfo")


@pytest.mark.parametrize("kernel,flag", [("maps", "--sizes"), ("stream", "--elements"),
                                          ("peak", "--lengths")])
def test_working_set_larger_than_free_memory(binaries, kernel, flag):
    too_big = 2 * _mem_available()  # elements or bytes: either way more than there is
    t0 = time.monotonic()
    with pytest.raises(MeasurementError, match="exceeds available memory"):
        run(binaries, kernel, flag, str(too_big))
    assert time.monotonic() - t0 < 5, "the check must come before any allocation"


def test_memory_limit_enforced(binaries):
    # 256 MiB of working set under a 128 MiB address-space limit: the kernel cannot allocate
    with pytest.raises(MeasurementError, match="cannot allocate|failed"):
        run(binaries, "maps", "--sizes", "256M", "--reps", "1", memory=128 << 20)


# ---- compiler problems --------------------------------------------------------------------------

def test_missing_compiler_named():
    with pytest.raises(CompileError, match="no-such-cc-4711"):
        find_compiler("no-such-cc-4711")


def test_compile_error_names_compiler(compiler, tmp_path, monkeypatch):
    monkeypatch.setenv("PINCHPOINT_CACHE", str(tmp_path))
    bad = find_compiler(" ".join(compiler.command), ["-O2", "-fno-such-option-4711"])
    with pytest.raises(CompileError) as info:
        compile_kernel("peak", bad)
    assert compiler.command[0] in str(info.value)
    assert [p.name for p in (tmp_path / "kernels").iterdir()] == []  # no temp binary left


# ---- time bounds --------------------------------------------------------------------------------

def test_soft_time_bound_truncates(binaries):
    out = run(binaries, "peak", "--max-seconds", "0.001", "--min-time", "0.002")
    assert out.status == "truncated"
    assert len(out.points) < 32


def test_hard_timeout_kills(binaries):
    t0 = time.monotonic()
    with pytest.raises(MeasurementError, match="time limit"):
        run(binaries, "peak", "--min-time", "1", "--reps", "50", timeout=1.0)
    assert time.monotonic() - t0 < 10


# ---- iobench: read-only, not a directory, full ----------------------------------------------------

def test_iobench_path_is_a_file(binaries, tmp_path):
    f = tmp_path / "plain-file"
    f.write_text("x")
    with pytest.raises(MeasurementError, match="not a directory"):
        run(binaries, "iobench", "--dir", str(f), "--file-bytes", "64K", "--buffer-bytes", "4K")
    assert leftovers(tmp_path) == ["plain-file"]


def test_iobench_missing_directory(binaries, tmp_path):
    with pytest.raises(MeasurementError, match="No such file"):
        run(binaries, "iobench", "--dir", str(tmp_path / "nope"), "--file-bytes", "64K",
            "--buffer-bytes", "4K")


@pytest.fixture
def tmpfs(tmp_path):
    """Mount a tiny tmpfs (root only); yields a function taking mount options."""
    mounted = []

    def mount(options: str) -> Path:
        target = tmp_path / f"mnt{len(mounted)}"
        target.mkdir()
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
        mounted.append(target)
        return target

    if not is_root():
        pytest.skip("mounting a tmpfs needs root")
    yield mount
    for target in mounted:
        subprocess.run(["umount", str(target)], capture_output=True)


def test_iobench_read_only_directory(binaries, tmp_path, tmpfs):
    ro = tmpfs("ro,size=4m")
    with pytest.raises(MeasurementError, match="Read-only file system"):
        run(binaries, "iobench", "--dir", str(ro), "--file-bytes", "64K", "--buffer-bytes", "4K")
    assert leftovers(ro) == []


@pytest.mark.skipif(is_root(), reason="root ignores directory permissions")
def test_iobench_unwritable_directory_non_root(binaries, tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(MeasurementError, match="Permission denied"):
            run(binaries, "iobench", "--dir", str(d), "--file-bytes", "64K")
    finally:
        d.chmod(0o700)
    assert leftovers(d) == []


def test_iobench_full_disk(binaries, tmpfs):
    small = tmpfs("size=1m")
    with pytest.raises(MeasurementError, match="not enough free space"):
        run(binaries, "iobench", "--dir", str(small), "--file-bytes", "4M")
    assert leftovers(small) == []
    # and a disk filled to the brim
    with open(small / "filler", "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    with pytest.raises(MeasurementError, match="not enough free space|no space left"):
        run(binaries, "iobench", "--dir", str(small), "--file-bytes", "16K", "--buffer-bytes", "4K")
    assert leftovers(small) == ["filler"]


# ---- SIGINT ----------------------------------------------------------------------------------------

def test_a_kernel_dead_of_sigint_is_an_interruption_not_a_failure(tmp_path):
    """Ctrl-C reaches the kernel with the rest of the process group, and the kernel can die of
    it before our own KeyboardInterrupt is raised: that is still the user's interruption (exit
    130, "interrupted"), not a kernel failure (exit 2)."""
    script = tmp_path / "kernel.sh"
    script.write_text("#!/bin/sh\nkill -INT $$\n")
    script.chmod(0o755)
    with pytest.raises(KeyboardInterrupt):
        run_kernel(script, [], kernel="maps", timeout=20)
    script.write_text("#!/bin/sh\nkill -TERM $$\n")
    with pytest.raises(MeasurementError, match="killed by signal 15"):
        run_kernel(script, [], kernel="maps", timeout=20)


def test_iobench_sigint_removes_its_files(binaries, tmp_path):
    proc = subprocess.Popen([str(binaries["iobench"]), "--dir", str(tmp_path), "--file-bytes",
                             "256M", "--buffer-bytes", "4K", "--reps", "50"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while not list(tmp_path.rglob("data")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert list(tmp_path.rglob("data")), "iobench never created its file"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=20)
    assert proc.returncode == -signal.SIGINT
    assert leftovers(tmp_path) == []


def measure_command(*args: str) -> list[str]:
    """``pinchpoint measure ARGS`` with SIGINT at its default: a test run started in the
    background of a non-interactive shell (``pytest &`` in a script) ignores SIGINT, and every
    process it starts inherits that (POSIX: asynchronous lists ignore SIGINT), so a measure
    started from it never sees the Ctrl-C these tests send; exec keeps the default set here."""
    reset = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
             "os.execv(sys.argv[1], sys.argv[1:])")
    return [sys.executable, "-c", reset, *cli_command(), "measure", *args]


@pytest.mark.parametrize("only,delay", [("iobench", 1.5), ("maps", 2.0)])
def test_measure_sigint_leaves_nothing(tmp_path, binaries, only, delay):
    out_dir = tmp_path / "out"
    tmp = tmp_path / "tmp"
    out_dir.mkdir()
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    # --full so that the run is still going when the signal arrives
    proc = subprocess.Popen(measure_command("--full", "--only", only, "--no-progress",
                                            "-o", str(out_dir / "sig.json")), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert leftovers(out_dir) == []
    assert leftovers(tmp) == []
    cache = binaries["maps"].parent
    assert [p.name for p in cache.iterdir() if p.name.endswith(".tmp")] == []


# ---- SIGTERM: the same clean-up as SIGINT -----------------------------------------------

def _group_gone(pgid: int, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("only,delay,group,sig", [("iobench", 1.5, False, signal.SIGTERM),
                                                  ("iobench", 1.5, True, signal.SIGTERM),
                                                  ("maps", 2.0, True, signal.SIGTERM),
                                                  ("iobench", 1.5, True, signal.SIGINT)])
def test_measure_sigterm_leaves_nothing(tmp_path, binaries, only, delay, group, sig):
    """SIGTERM (or SIGINT) to the process, or to its whole group as a terminal or a service
    manager sends it: exit 143 (130) with one line, no partial signature, no temporary files,
    no child left."""
    out_dir = tmp_path / "out"
    tmp = tmp_path / "tmp"
    out_dir.mkdir()
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen(measure_command("--full", "--only", only, "--no-progress",
                                            "-o", str(out_dir / "sig.json")), env=env,
                            start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    assert proc.poll() is None, "the run ended before it could be terminated"
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert ("terminated" if sig == signal.SIGTERM else "interrupted") in err and "Traceback" not in err
    assert _group_gone(proc.pid), "a child process outlived pinchpoint"
    assert leftovers(out_dir) == []
    assert leftovers(tmp) == []


def test_two_measure_runs_to_one_output_leave_one_valid_file(tmp_path, binaries):
    """Issue 18: both write through a temporary file and a rename, so the survivor is whole."""
    from pinchpoint.inputs.signature import load_signature

    out = tmp_path / "sig.json"
    cmd = [*cli_command(), "measure", "--quick", "--only", "peak", "--no-progress", "-o", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sig.json"]
    assert "peak" in load_signature(out).kernels
