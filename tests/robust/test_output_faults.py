"""Input and output faults in a real process: bounded standard input, standard output that is
full, closed, ASCII-only or a pipe that closes, names the system refuses, SIGTERM during an
atomic write, file names that are not UTF-8.  Each is one line and exit 2, or a quiet 141/143."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

CLI = [sys.executable, "-m", "pinchpoint.cli"]


def run(*args, **kw) -> subprocess.CompletedProcess:
    if "stdout" not in kw and "stderr" not in kw:
        kw["capture_output"] = True
    return subprocess.run([*CLI, *args], timeout=120, **kw)


def one_error_line(stderr: bytes) -> str:
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pinchpoint: error:"), lines
    return lines[0]


@pytest.mark.parametrize("argv", [["signature", "show", "-"], ["scale", "-"]])
def test_endless_stdin_is_refused_at_the_file_cap(argv):
    """`< /dev/zero` was read whole (2.5 GB/s, deaf to SIGTERM): now the 64 MiB cap of files."""
    with open("/dev/zero", "rb") as zero:
        started = time.perf_counter()
        done = run(*argv, stdin=zero)
    assert time.perf_counter() - started < 60
    assert done.returncode == 2 and "more than 67,108,864 bytes" in one_error_line(done.stderr)


def test_a_device_as_an_input_file_is_capped_too():
    done = run("signature", "show", "/dev/zero")
    assert done.returncode == 2 and "/dev/zero: cannot read: more than" in one_error_line(done.stderr)


def test_sigterm_stops_an_endless_stdin_read():
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.Popen([*CLI, "signature", "show", "-"], stdin=zero, stderr=subprocess.PIPE,
                                stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    # refused already, stopped by our handler, or killed before Python installed it
    assert proc.returncode in (2, 128 + signal.SIGTERM, -signal.SIGTERM), err
    assert b"Traceback" not in err


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_stdout_on_a_full_device_is_one_line(json_flag):
    with open("/dev/full", "w") as full:
        done = run("ceilings", "ibm-p690", *json_flag, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert "cannot write standard output: No space left on device" in one_error_line(done.stderr)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_closed_stdout_is_a_quiet_141(json_flag):
    def close_stdout():
        os.close(1)

    done = subprocess.run([*CLI, "ceilings", "ibm-p690", *json_flag], stderr=subprocess.PIPE, timeout=120,
                          preexec_fn=close_stdout)
    assert done.returncode == 141 and done.stderr == b""


def test_a_pipe_closed_early_is_a_quiet_141():
    # a pipe of one page (Linux's smallest), so that the 6-7 KB table cannot all fit in it
    # before the reader closes: otherwise a fast writer finishes first and exits 0
    import fcntl

    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([*CLI, "signature", "show", "p690"], stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    with os.fdopen(r, "rb") as out:
        out.read(10)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == b""


@pytest.mark.parametrize("argv", [["predict", "--signature", "p690", "--workload", "daxpy-l1"],
                                  ["signature", "show", "p690"]])
def test_ascii_stdout_gets_stand_ins(argv):
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    done = run(*argv, env=env)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("ascii")  # strict: any non-ASCII byte fails here
    assert " us" in text and "µ" not in text


@pytest.mark.parametrize("argv, suffix", [
    (["report", "ibm-p690", "-o"], ".html"), (["signature", "plot", "p690", "-o"], ".svg"),
    (["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..133MHz:3", "--csv"], ".csv"),
    (["detect", "-o"], ".toml")])
def test_output_names_over_255_bytes_are_one_line(tmp_path, argv, suffix):
    done = run(*argv, str(tmp_path / ("x" * 300 + suffix)))
    assert done.returncode == 2 and "File name too long" in one_error_line(done.stderr)


def test_signature_plot_to_dev_full_is_an_error_not_wrote():
    done = run("signature", "plot", "p690", "-o", "/dev/full")
    assert done.returncode == 2 and b"wrote" not in done.stdout
    assert "writing failed: No space left on device" in one_error_line(done.stderr)


def test_sigterm_during_signature_plot_leaves_the_old_file(tmp_path):
    """The plot was written in place: SIGTERM 0.7 s in left 1-290 KB of a 345 KB file."""
    target = tmp_path / "same.svg"
    target.write_text("old\n")
    for delay in (0.3, 0.7, 1.2, 2.0):
        proc = subprocess.Popen([*CLI, "signature", "plot", "p690", "-o", str(target)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        data = target.read_bytes()
        assert data == b"old\n" or data.rstrip().endswith(b"</svg>"), (delay, len(data))
        # done, stopped by our handler, or killed before Python installed it (nothing written yet)
        assert proc.returncode in (0, 128 + signal.SIGTERM, -signal.SIGTERM) and b"Traceback" not in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["same.svg"]  # no temporary file left
        target.write_text("old\n")


def test_a_profile_name_that_is_not_utf8(tmp_path):
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "profiles" / "machines" / "ibm-p690.toml"
    name = tmp_path / os.fsdecode(b"bad\xff.toml")
    name.write_text('schema = 1\nextends = "ibm-p690"\n')
    assert source.is_file()
    done = run("report", str(name), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    assert "bad\ufffd" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_a_folder_as_a_profile_says_so():
    done = run("ceilings", "/tmp")
    assert done.returncode == 2 and "is a folder" in one_error_line(done.stderr)
