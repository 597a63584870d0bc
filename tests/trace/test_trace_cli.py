"""``pinchpoint trace`` as a whole process: refusals (no Valgrind needed) and real traces."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from synthetic_signature import synthetic_doc

TOY = Path(__file__).parents[1] / "fixtures" / "profiles" / "toy.toml"


def cli_env(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pinchpoint.cli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=timeout)


def run_cli(*args):
    return cli_env(*args)


def one_error_line(r):
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pinchpoint: error: ")
    return lines[0]


def test_no_program(tmp_path):
    assert "no program" in one_error_line(run_cli("trace", "-o", str(tmp_path / "w.toml")))


def test_no_such_program(tmp_path):
    line = one_error_line(run_cli("trace", "-o", str(tmp_path / "w.toml"), "--", "/no/such/prog"))
    assert "/no/such/prog" in line and "no such executable" in line


def test_valgrind_missing(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    r = cli_env("trace", "-o", str(tmp_path / "w.toml"), "--profile", "ibm-p690", "--", "/bin/true",
                env={"PATH": str(empty)})
    assert "valgrind is not installed" in one_error_line(r) and "apt-get install valgrind" in r.stderr
    assert not (tmp_path / "w.toml").exists()


def test_target_without_associativity(tmp_path):
    line = one_error_line(run_cli("trace", "-o", str(tmp_path / "w.toml"), "--profile", str(TOY),
                                  "--", "/bin/true"))
    assert "toy.toml" in line and "associativity" in line


def test_bad_max_seconds(tmp_path):
    line = one_error_line(run_cli("trace", "-o", str(tmp_path / "w.toml"), "--max-seconds", "0",
                                  "--", "/bin/true"))
    assert "--max-seconds" in line


def test_max_seconds_not_a_number(tmp_path):
    for bad in ("nan", "inf", "-inf"):
        line = one_error_line(run_cli("trace", "-o", str(tmp_path / "w.toml"), f"--max-seconds={bad}",
                                      "--", "/bin/true"))
        assert "--max-seconds" in line and "finite" in line


def leftovers(tmp):
    """What a trace may leave in $TMPDIR: its folder, Valgrind's gdbserver FIFOs."""
    return sorted(p.name for p in Path(tmp).iterdir()
                  if p.name.startswith(("pinchpoint-trace-", "vgdb-pipe")))


@pytest.mark.slow
@pytest.mark.needs_tool
def test_trace_triad_on_p690_and_predict(tmp_path, programs, valgrind):
    """Kernel bytes against a hand count: N = 120000 doubles, 2 calls; 3 arrays of 960 kB overflow
    the 1440 KiB L2 and fit the 32 MiB L3.  (At N = 100000 the three page-aligned arrays start
    at the same offset modulo 16 KiB, the span of the p690's 2-way L1, and every access is a
    conflict miss: the simulation sees that, a hand count does not.)"""
    n, reps = 120_000, 2
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "triad.workload.toml"
    r = cli_env("trace", "--no-progress", "--json", "-o", str(out), "--profile", "ibm-p690",
                "--phases", "functions", "--top", "2", "--", str(programs["triad"]), str(n), str(reps),
                env={"TMPDIR": str(tmpdir)})
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    kernel = next(p for p in doc["phases"] if p["name"].startswith("kernel"))
    t = {x["level"]: x["loaded_bytes"] for x in kernel["traffic"]}
    assert t["L1"] == pytest.approx(16 * n * reps, rel=1e-4)  # + the constant 3.0, once a call
    assert t["L2"] == pytest.approx(24 * n * reps, rel=0.02)
    assert t["L3"] == pytest.approx(24 * n * reps, rel=0.05)
    assert t["memory"] <= 0.01 * t["L1"]
    assert kernel["flops"]["add_multiply"] == 2 * n * reps
    assert leftovers(tmpdir) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["tmp", out.name]

    # The same program on the G5 (two levels, like the synthetic signature) predicts unchanged.
    sig = tmp_path / "sig.json"
    sig.write_text(json.dumps(synthetic_doc()))
    out2 = tmp_path / "g5.workload.toml"
    r = cli_env("trace", "--no-progress", "-o", str(out2), "--profile", "powermac-g5", "--signature",
                str(sig), "--extrapolate", "--random-loads", "independent", "--jobs", "1", "--",
                str(programs["triad"]), str(n), str(reps))
    assert r.returncode == 0, r.stderr
    assert "memory" in r.stdout and "estimate" in r.stdout
    assert "priced as independent" in out2.read_text()
    r = run_cli("predict", "--signature", str(sig), "--workload", str(out2), "--extrapolate")
    assert r.returncode == 0, r.stderr
    assert "binding" in r.stdout


@pytest.mark.slow
@pytest.mark.needs_tool
def test_max_seconds_stops_and_cleans_up(tmp_path, programs, valgrind):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "w.toml"
    start = time.monotonic()
    r = cli_env("trace", "--no-progress", "--max-seconds", "2", "-o", str(out), "--profile",
                "powermac-g5", "--", str(programs["spin"]), env={"TMPDIR": str(tmpdir)})
    assert "--max-seconds" in one_error_line(r)
    assert time.monotonic() - start < 60
    assert leftovers(tmpdir) == [] and not out.exists()
    assert list(tmpdir.iterdir()) == []  # no vgdb-pipe-* FIFOs either


@pytest.mark.slow
@pytest.mark.needs_tool
def test_sigterm_cleans_up(tmp_path, programs, valgrind):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "w.toml"
    proc = subprocess.Popen([sys.executable, "-m", "pinchpoint.cli", "trace", "--no-progress", "-o",
                             str(out), "--profile", "powermac-g5", "--", str(programs["spin"])],
                            env={**os.environ, "TMPDIR": str(tmpdir)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not leftovers(tmpdir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert leftovers(tmpdir), "the trace never started"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0 and "Traceback" not in err
    assert leftovers(tmpdir) == [] and not out.exists()


@pytest.mark.slow
@pytest.mark.needs_tool
def test_avx512_is_refused(tmp_path, avx512_program, valgrind):
    line = one_error_line(run_cli("trace", "--no-progress", "-o", str(tmp_path / "w.toml"),
                                  "--profile", "powermac-g5", "--", str(avx512_program)))
    assert "x86-64-v3" in line and "cannot decode" in line


@pytest.mark.slow
@pytest.mark.needs_tool
def test_forked_children_do_not_outlive_the_trace(tmp_path, programs, valgrind):
    pidfile = tmp_path / "child.pid"
    r = cli_env("trace", "--no-progress", "-o", str(tmp_path / "w.toml"), "--profile", "powermac-g5",
                "--", str(programs["forker"]), str(pidfile))
    assert r.returncode == 0, r.stderr
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"the traced program's child {pid} still runs after trace returned")


@pytest.mark.slow
@pytest.mark.needs_tool
def test_openmp_threads_are_traced(tmp_path, openmp_program, valgrind):
    out = tmp_path / "omp.workload.toml"
    r = cli_env("trace", "--no-progress", "-o", str(out), "--profile", "powermac-g5", "--phases",
                "functions", "--", str(openmp_program), env={"OMP_NUM_THREADS": "2"})
    assert r.returncode == 0, r.stderr
    import tomllib

    doc = tomllib.loads(out.read_text())
    omp = next(p for p in doc["phases"] if p["name"].startswith("kernel._omp_fn"))
    assert omp["threads"] == 2
    assert omp["parallel_regions"] == 4  # kernel's 4 calls, each one region
    assert omp["flops"]["chained_adds"] == pytest.approx(4 * 200000, rel=0.001)


def _under_pty(*args):
    """Run the CLI with stderr on a pseudo-terminal; return (exit code, what it wrote there)."""
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pinchpoint.cli", *args], stdout=subprocess.PIPE,
                                stderr=slave, text=True)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal closed: the program is gone
                break
            if not data:
                break
            chunks.append(data)
        proc.wait(timeout=300)
    finally:
        os.close(master)
    return proc.returncode, b"".join(chunks).decode(errors="replace")


@pytest.mark.slow
@pytest.mark.needs_tool
def test_progress_on_a_terminal_and_silent_under_quiet(tmp_path, programs, valgrind):
    args = ("trace", "-o", str(tmp_path / "w.toml"), "--profile", "powermac-g5", "--",
            str(programs["triad"]), "20000", "2")
    rc, shown = _under_pty(*args)
    assert rc == 0 and "tracing" in shown and "Callgrind" in shown
    rc, quiet = _under_pty("-q", *args)
    assert rc == 0 and quiet == ""
    r = cli_env(*args)  # stderr a pipe: no progress either
    assert r.returncode == 0 and "tracing" not in r.stderr


def test_a_blank_collect_is_refused(tmp_path):
    for bad in ("", " ", "ker\nnel"):
        line = one_error_line(run_cli("trace", "-o", str(tmp_path / "w.toml"), f"--collect={bad}",
                                      "--", "/bin/true"))
        assert "--collect" in line and "function name" in line


SORT = r"""
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
__attribute__((noipa)) static void kernel(double *a, size_t n) { qsort(a, n, sizeof *a, cmp); }
int main(void)
{
    size_t n = 4000;
    double *a = malloc(n * sizeof *a);
    unsigned long x = 88172645463325252ul;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        a[i] = (double)(x >> 11);
    }
    kernel(a, n);
    printf("%g\n", a[n / 2]);
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.needs_tool
def test_collect_counts_a_function_and_the_library_code_it_calls(tmp_path, build_c, valgrind):
    """A sort of 4000 doubles through the C library's qsort: about n log2 n = 48 000
    comparisons, each a call of cmp, all inside kernel; main's setup (4000 xorshift steps) and
    the C library's start-up are left out.  Without --collect the program phase holds both."""
    from pinchpoint.inputs.workload import load_workload

    exe = build_c("sort", SORT, "-O2")
    counts = {}
    for collect in ("kernel", None):
        out = tmp_path / f"{collect}.toml"
        r = run_cli("trace", "--no-progress", "-o", str(out), "--profile", "powermac-g5",
                    *(["--collect", collect] if collect else []), "--", str(exe))
        assert r.returncode == 0, r.stderr
        (phase,) = load_workload(out).phases
        counts[collect] = phase.instructions.total
    # cmp alone: 48 000 calls of >= 5 instructions; the setup: 4000 x >= 6
    assert counts["kernel"] >= 5 * 40_000
    assert counts[None] - counts["kernel"] >= 6 * 4000
    r = run_cli("trace", "--no-progress", "-o", str(tmp_path / "none.toml"), "--profile",
                "powermac-g5", "--collect", "no_such_function", "--", str(exe))
    line = one_error_line(r)
    assert "no_such_function" in line and "nothing collected" in line
    assert not (tmp_path / "none.toml").exists()
