"""Validate ``pinchpoint trace`` on the bundled C examples and print tables.

Parts (each runs in well under two minutes on the 2-vCPU VM; pick with --part):

counts    trace each example's kernel (``--phases functions``: the phase "kernel") on two bundled
          targets, ibm-p690 (L1 32 KiB / L2 1440 KiB / L3 32 MiB, 128 B and 512 B lines) and
          powermac-g5 (L1 32 KiB / L2 512 KiB, 128 B lines), and compare the bytes each level
          supplies with a hand count: streams that do not fit a level move all their bytes
          through it; uniform random accesses over W bytes hit a cache of C bytes C / W of the
          time (the steady state of LRU under independent uniform references), and each miss
          moves one line of the level above; data that fits a level (and was touched by the
          initialisation) moves nothing from below it.  Write-backs are shown beside the hand
          count's range: the kernel also evicts lines its initialisation left dirty.
predict   trace each example on this machine's caches (the signature's host), predict the
          kernel phase with the signature (--signature, from `pinchpoint measure --quick`), and
          compare with the kernel time the example reports when run natively (median of 3).
kernels   the examples of benchmarks/trace_examples (triad, copy, dot, sum, Horner, gather,
          pointer chase, histogram, CSR SpMV, OpenMP sum, matvec, transpose, 5-point stencil)
          built ``-O3 -march=x86-64-v3``, at working sets inside L1, L2, L3 and memory of this
          host: each traced with the random loads decided from the code, its kernel phase
          predicted, and compared with the native kernel time (fastest and median of --runs
          runs) and with the prediction of a workload counted by hand from the C loop.  The
          traced phases state their instructions and branches: priced as the "core" resource
          where the signature has the core kernel, left out (extrapolated) where it has not.
          --times FILE keeps the native times, so that a second run (another version of the
          model) is compared against the same measurements.
second    time the trace of a program that runs about one second natively.
hpcc      the HPC Challenge suite (Debian's hpcc, one process, HPL N = 500) run natively, then
          traced on this machine's caches (about 2-5 minutes here) and predicted with the
          signature: DGEMM (libblas's dgemm_, a named function) as a flop rate, STREAM (the
          stripped binary's unnamed function whose flops match 4 x array size x 10 trials x 2
          runs) as a time.  RandomAccess is not compared: see the printed reason.

Usage::

    PYTHONPATH=.pyshim python3 benchmarks/trace_validation.py --part counts
    PYTHONPATH=.pyshim python3 benchmarks/trace_validation.py --part predict --signature /tmp/sig.json
    PYTHONPATH=.pyshim python3 benchmarks/trace_validation.py --part kernels --signature /tmp/sig.json \
        [--only hist,spmv] [--levels L2,L3] [--runs 5] [--times times.json]
    PYTHONPATH=.pyshim python3 benchmarks/trace_validation.py --part second
    PYTHONPATH=.pyshim python3 benchmarks/trace_validation.py --part hpcc --signature /tmp/sig.json
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from trace_hand_counts import KERNELS, OPENMP, SQUARE, VISITS, _size_for, hand_phase  # noqa: E402
EXAMPLES = HERE / "trace_examples"
CFLAGS = ["-O2", "-ffp-contract=off"]

# name: (arguments (N, REPS), what the hand count needs)
SIZES = {"triad": (4_000_000, 2), "daxpy": (4_000_000, 2), "sum": (8_000_000, 2),
         "stencil": (1000, 2), "matvec": (1800, 2), "gather": (1_000_000, 2),
         "chase": (1_000_000, 2)}


# predict: sizes well beyond this VM's caches (its L3 behaves like a few MiB under load), so that
# the native times are long enough to measure on a shared machine.
PREDICT_SIZES = {"triad": (4_000_000, 3), "daxpy": (4_000_000, 3), "sum": (8_000_000, 3),
                 "stencil": (3000, 2), "matvec": (4000, 2), "gather": (8_000_000, 2),
                 "chase": (8_000_000, 1)}
#: What the trace cannot know about each example's random loads, from its source code.
RANDOM_LOADS = {"gather": "independent"}


def compile_examples(folder: Path) -> dict[str, Path]:
    out = {}
    for name in SIZES:
        exe = folder / name
        subprocess.run(["gcc", *CFLAGS, "-o", str(exe), str(EXAMPLES / f"{name}.c")], check=True)
        out[name] = exe
    return out


def hand_count(name: str, caches, n: int, reps: int) -> dict[str, float]:
    """Bytes each level supplies to the one above during the kernel calls (L1: the load bytes)."""
    levels = [c.name for c in caches[1:]] + ["memory"]
    sizes = [c.size_bytes for c in caches] + [float("inf")]
    lines = [c.line_bytes for c in caches]
    out = {}

    def stream(per_call: float, footprint: float):
        # the level below cache i supplies the stream when the footprint overflows cache i
        for i, lv in enumerate(levels):
            out[lv] = per_call * reps if footprint > sizes[i] else 0.0

    def rand(accesses: float, ws: float, extra_stream: float, stream_fp: float):
        for i, lv in enumerate(levels):
            miss = max(0.0, 1.0 - sizes[i] / ws)  # misses of the cache above lv
            rbytes = accesses * reps * miss * lines[i]
            sbytes = extra_stream * reps if stream_fp > sizes[i] else 0.0
            out[lv] = rbytes + sbytes

    if name == "triad":
        out["L1"] = 16 * n * reps
        stream(24 * n, 24 * n)
    elif name == "daxpy":
        out["L1"] = 16 * n * reps
        stream(16 * n, 16 * n)
    elif name == "sum":
        out["L1"] = 8 * n * reps
        stream(8 * n, 8 * n)
    elif name == "stencil":
        m = n
        out["L1"] = 32 * (m - 2) ** 2 * reps
        stream(16 * m * m, 16 * m * m)  # one new row of `in` per row + `out` write-allocate
    elif name == "matvec":
        m = n
        out["L1"] = 16 * m * m * reps
        stream(8 * m * m, 8 * m * m)  # A streams, x stays in L1
    elif name == "gather":
        out["L1"] = 16 * n * reps
        rand(n, 8 * n, 8 * n, 16 * n)
    elif name == "chase":
        out["L1"] = 8 * n * reps
        rand(n, 8 * n, 0.0, 0.0)
    return out


def kernel_phase(tw):
    for p in tw.phases:
        if p.name.split(".")[0] == "kernel":
            return p
    raise SystemExit(f"no phase 'kernel' in the trace of {tw.command}")


def trace(exe, args, caches, target, *, top=3, random_loads="auto", collect=None):
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload

    cmd = [str(exe), *map(str, args)]
    runs, disasm, secs = trace_program(cmd, caches, progress=False, collect=collect)
    tw = build_traced_workload(runs, disasm, caches, name=Path(exe).name, command=cmd,
                               target=target, top_functions=None if collect else top,
                               random_loads=random_loads)
    return tw, secs


def part_counts():
    from pinchpoint.cli.trace_cmds import target_caches_for

    rows, worst = [], 0.0
    with tempfile.TemporaryDirectory() as tmp:
        exes = compile_examples(Path(tmp))
        for target in ("ibm-p690", "powermac-g5"):
            caches, desc = target_caches_for(target, None)
            for name, (n, reps) in SIZES.items():
                tw, secs = trace(exes[name], (n, reps), caches, desc)
                ph = kernel_phase(tw)
                hand = hand_count(name, caches, n, reps)
                l1 = ph.traffic[0].loaded_bytes
                for t in ph.traffic:
                    h = hand[t.level]
                    if h > 0:
                        err = t.loaded_bytes / h - 1
                        ok = abs(err) <= 0.10
                        e = f"{err:+.1%}"
                    else:  # fits: pass when under 1 % of the load bytes
                        ok = t.loaded_bytes <= 0.01 * l1
                        err = 0.0 if ok else 1.0
                        e = f"{t.loaded_bytes / l1:.2%} of L1"
                    worst = max(worst, abs(err))
                    st = "-" if t.stored_bytes is None else f"{t.stored_bytes / 1e6:.1f}"
                    rows.append([target, name, t.level, f"{t.loaded_bytes / 1e6:.2f}",
                                 f"{h / 1e6:.2f}", e, "ok" if ok else "FAIL", st])
                print(f"  traced {name} on {target} in {secs:.1f} s", file=sys.stderr)
    print(_table(rows, ["target", "example", "level", "traced MB", "hand MB", "error", "",
                        "written back MB"]))
    fails = sum(r[6] == "FAIL" for r in rows)
    print(f"\n{len(rows) - fails}/{len(rows)} level counts within 10 % of the hand count "
          f"(zero hand counts: under 1 % of the L1 load bytes)")
    return fails


def part_predict(signature: str):
    from pinchpoint.cli.predict_cmds import load_signature_arg
    from pinchpoint.cli.trace_cmds import target_caches_for
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.inputs.workload import Workload

    sig = load_signature_arg(signature)
    caches, desc = target_caches_for(None, sig)
    rows, errs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        exes = compile_examples(Path(tmp))
        for name, (n, reps) in PREDICT_SIZES.items():
            times = []
            for _ in range(3):
                out = subprocess.run([str(exes[name]), str(n), str(reps)], capture_output=True,
                                     text=True, check=True).stdout
                times.append(float(out.split()[-1]))
            meas = statistics.median(times)
            kinds = ["dependent"] + ([RANDOM_LOADS[name]] if name in RANDOM_LOADS else [])
            for kind in kinds:
                tw, secs = trace(exes[name], (n, reps), caches, desc, random_loads=kind)
                kernel = [p for p in tw.workload.phases if p.name.split(".")[0] == "kernel"]
                pred = convolve(sig, Workload(f"{name}-kernel", tuple(kernel)), extrapolate=True)
                err = pred.low_s / meas - 1
                counted = kind == RANDOM_LOADS.get(name, "dependent")
                if counted:
                    errs.append(abs(err))
                rows.append([name, f"{n}x{reps}", kind + ("" if counted else " (default)"),
                             f"{meas * 1e3:.1f}", f"{min(times) * 1e3:.1f}-{max(times) * 1e3:.1f}",
                             f"{pred.low_s * 1e3:.1f}", f"{err:+.0%}", pred.binding or "-",
                             f"{secs:.0f}"])
                print(f"  traced {name} ({kind}) in {secs:.1f} s", file=sys.stderr)
    print(_table(rows, ["example", "N x reps", "random loads", "measured ms", "range ms",
                        "predicted ms", "error", "binding", "trace s"]))
    print(f"\nmedian |error| {statistics.median(errs):.0%} over {len(errs)} examples (random loads "
          f"as each example's source says) "
          f"(signature {sig.name}, caches of {desc})")


def part_second():
    from pinchpoint.cli.trace_cmds import target_caches_for

    caches, desc = target_caches_for(None, None)
    with tempfile.TemporaryDirectory() as tmp:
        exes = compile_examples(Path(tmp))
        n, reps = 2_000_000, 1
        while True:  # grow the triad until it runs about one second natively
            t0 = time.monotonic()
            subprocess.run([str(exes["triad"]), str(n), str(reps)], capture_output=True, check=True)
            native = time.monotonic() - t0
            if native >= 0.9 or reps > 4096:
                break
            reps = max(reps + 1, int(reps * 1.0 / max(native, 0.05)))
        tw, secs = trace(exes["triad"], (n, reps), caches, desc, top=None)
    print(f"triad {n} x {reps}: {native:.2f} s natively, traced on the caches of {desc} "
          f"({len(caches) - 1 or 1} Callgrind runs) in {secs:.1f} s")


HPCC_N = 500
HPCC_INPUT = Path("/usr/share/doc/hpcc/examples/_hpccinf.txt")


def _hpcc_input(text: str, n: int) -> str:
    """The example input with one process (P = Q = 1) and HPL problem size ``n``."""
    out = []
    for line in text.splitlines():
        value, _, rest = line.partition(" ")
        if rest.strip().startswith(("Ps", "Qs")):
            line = "1" + " " * (len(line) - len(rest) - 1) + " " + rest
        elif rest.strip() == "Ns":
            line = f"{n}" + "         " + rest
        out.append(line)
    return "\n".join(out) + "\n"


def _hpcc_results(text: str) -> dict:
    import re

    res = {k: float(v) for k, v in re.findall(r"^(\w+)=([-\d.eE+]+)$", text, re.M)}
    # hpcc prints STREAM's average times with four decimals (0.0000 s at small sizes), so the
    # time is rebuilt from the rates it reports (best trial): bytes per element as STREAM counts
    # them (Copy, Scale 16 B; Add, Triad 24 B) x array size x trials, for Star and Single.
    trials = int(re.search(r"Each test is run (\d+) times", text).group(1))
    array = int(re.search(r"Array size = (\d+)", text).group(1))
    stream_s = 0.0
    for run in ("Star", "Single"):
        for kernel, nbytes in (("Copy", 16), ("Scale", 16), ("Add", 24), ("Triad", 24)):
            stream_s += nbytes * array * trials / (res[f"{run}STREAM_{kernel}"] * 1e9)
    res["stream_seconds"] = stream_s
    res["stream_trials"] = trials
    res["stream_array"] = array
    return res


def part_hpcc(signature: str):
    import shutil

    from pinchpoint.cli.predict_cmds import load_signature_arg
    from pinchpoint.cli.trace_cmds import target_caches_for
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.prediction.trace.runner import trace_program
    from pinchpoint.prediction.trace.workload import build_traced_workload
    from pinchpoint.inputs.workload import Workload

    if shutil.which("hpcc") is None or not HPCC_INPUT.exists():
        raise SystemExit("hpcc is not installed (Debian: apt-get install hpcc)")
    sig = load_signature_arg(signature)
    caches, desc = target_caches_for(None, sig)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "hpccinf.txt").write_text(_hpcc_input(HPCC_INPUT.read_text(), HPCC_N))
        t0 = time.monotonic()
        subprocess.run(["hpcc"], cwd=tmp, capture_output=True, check=True, timeout=300)
        native = time.monotonic() - t0
        ref = _hpcc_results((Path(tmp) / "hpccoutf.txt").read_text())
        (Path(tmp) / "hpccoutf.txt").unlink()
        runs, disasm, secs = trace_program(["hpcc"], caches, progress=False, cwd=tmp)
    tw = build_traced_workload(runs, disasm, caches, name="hpcc", command=["hpcc"], target=desc,
                               top_functions=15)
    by_name = {p.name: p for p in tw.workload.phases}

    def predict(phase):
        return convolve(sig, Workload(f"hpcc-{phase.name}", (phase,)), extrapolate=True)

    rows = []
    dg = by_name["dgemm_"]
    pred = predict(dg)
    rate = dg.flops.total / pred.low_s
    rows.append(["DGEMM", "dgemm_ (HPL and DGEMM calls)", f"SingleDGEMM {ref['SingleDGEMM_Gflops']:.2f} Gflop/s",
                 f"{rate / 1e9:.2f} Gflop/s", f"{rate / 1e9 / ref['SingleDGEMM_Gflops'] - 1:+.0%}",
                 pred.binding])
    want = 4 * ref["stream_array"] * ref["stream_trials"] * 2
    cands = [p for p in tw.workload.phases if p.name.startswith("0x")
             and abs(p.flops.add_multiply / want - 1) <= 0.10]
    if len(cands) == 1:
        pred = predict(cands[0])
        rows.append(["STREAM", f"{cands[0].name} ({cands[0].flops.add_multiply:.3g} flop, "
                               f"expected {want:.3g})",
                     f"{ref['stream_seconds'] * 1e3:.2f} ms (from its rates, all trials, Star + Single)",
                     f"{pred.low_s * 1e3:.2f} ms", f"{pred.low_s / ref['stream_seconds'] - 1:+.0%}",
                     pred.binding])
    else:
        rows.append(["STREAM", f"{len(cands)} phases match {want:.3g} flop", "-", "-", "-", "-"])
    rows.append(["RandomAccess", "not compared", f"SingleRandomAccess {ref['SingleRandomAccess_GUPs']:.3g} GUP/s",
                 "-", "-", "-"])
    print(f"hpcc N={HPCC_N}, one process: {native:.1f} s natively, traced on the caches of {desc} in "
          f"{secs:.0f} s")
    print(_table(rows, ["test", "traced phase", "hpcc reports", "predicted", "error", "binding"]))
    print("\nRandomAccess: Debian's hpcc binary is stripped (nm: no symbols), and one run holds six "
          "RandomAccess variants (MPI, Star, Single; standard and LCG) in unnamed functions, some "
          "of them through Open MPI's progress engine; no phase can be attributed to the Single "
          "test by its counts alone (it has no flops), so no prediction is claimed for it.")


def cases(caches, only=None, levels=("L1", "L2", "L3", "memory")):
    """(kernel, level, N, reps, extra args): working sets inside each level of this host."""
    sizes = [c.size_bytes for c in caches]
    where = {"L1": sizes[0] / 2, "L2": math.sqrt(sizes[0] * sizes[1])}
    if len(sizes) > 2:
        where["L3"] = math.sqrt(sizes[1] * sizes[2])
    where["memory"] = 4 * sizes[-1]
    out = []
    for name, (_, extra) in KERNELS.items():
        if only and name not in only:
            continue
        for level in levels:
            if level not in where:
                continue
            n = _size_for(name, where[level])
            per_call = n * n if name in SQUARE else n * (extra[0] if name == "spmv" else 1)
            reps = max(1, round(VISITS / per_call))
            out.append((name, level, n, reps, extra))
    return out


def _build(folder: Path, name: str) -> Path:
    exe = folder / name
    if not exe.exists():
        flags = ["-O3", "-march=x86-64-v3"] + (["-fopenmp"] if name in OPENMP else [])
        if name == "copy":  # keep the loop: GCC would call memcpy, a phase of libc's own
            flags.append("-fno-tree-loop-distribute-patterns")
        subprocess.run(["gcc", *flags, "-o", str(exe), str(EXAMPLES / f"{name}.c"), "-lm"],
                       check=True)
    return exe


def _native(exe, args, runs: int) -> list[float]:
    return [float(subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                                 check=True).stdout.split()[-1]) for _ in range(runs)]


def _times_file(path):
    """Native times recorded by an earlier run ({"kernel level N x reps": [s, ...]}), so that
    two versions of the model are compared against the same measurements."""
    import json

    if path is None or not Path(path).exists():
        return {}
    return json.loads(Path(path).read_text())


def part_kernels(signature: str, only=None, levels=None, runs: int = 5, times_file=None):
    """Trace each kernel case, predict its kernel phase, compare with the native times (or
    those ``times_file`` holds, measured by an earlier run; new cases are measured and added)."""
    import json

    from pinchpoint.cli.predict_cmds import load_signature_arg
    from pinchpoint.cli.trace_cmds import target_caches_for
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.inputs.workload import Workload, workload_from_dict

    sig = load_signature_arg(signature)
    caches, desc = target_caches_for(None, sig)

    rows, best_err, med_err, hand_err = [], [], [], []
    recorded = _times_file(times_file)
    with tempfile.TemporaryDirectory() as tmp:
        for name, level, n, reps, extra in cases(caches, only, levels or ("L1", "L2", "L3", "memory")):
            exe = _build(Path(tmp), name)
            args = (n, reps, *extra)
            case = f"{name} {level} {n}x{reps}"
            times = recorded.get(case) or _native(exe, args, runs)
            recorded[case] = times
            tw, secs = trace(exe, args, caches, desc, random_loads="auto")
            kernel = [p for p in tw.workload.phases if p.name.split(".")[0] == "kernel"]
            hand = workload_from_dict({"schema": 1, "name": f"{name}-hand",
                                       "phases": [hand_phase(name, n, reps, extra)]})
            try:
                pred = convolve(sig, Workload(f"{name}-kernel", tuple(kernel)), extrapolate=True)
                by_hand = convolve(sig, hand, extrapolate=True).estimate_s
            except Exception as exc:  # noqa: BLE001 - a table row, not a crash
                rows.append([name, level, f"{n}x{reps}"] + ["-"] * 9 + [str(exc)[:60]])
                continue
            t = pred.estimate_s
            eb, em = t / min(times) - 1, t / statistics.median(times) - 1
            hb = by_hand / min(times) - 1
            best_err.append(abs(eb))
            med_err.append(abs(em))
            hand_err.append(abs(hb))
            core = pred.seconds("core") if any(r.name == "core" for r in pred.resources) else 0.0
            rows.append([name, level, f"{n}x{reps}", f"{min(times) * 1e3:.2f}",
                         f"{statistics.median(times) * 1e3:.2f}", f"{t * 1e3:.2f}", f"{eb:+.0%}",
                         f"{em:+.0%}", f"{by_hand * 1e3:.2f}", f"{hb:+.0%}",
                         f"{t / by_hand - 1:+.0%}", f"{core * 1e3:.2f}" if core else "-",
                         pred.binding or "-"])
            print(f"  {name} {level}: traced in {secs:.1f} s, error {eb:+.0%}, by hand {hb:+.0%}",
                  file=sys.stderr)
    if times_file:
        Path(times_file).write_text(json.dumps(recorded, indent=1) + "\n")
    print(_table(rows, ["kernel", "level", "N x reps", "fastest ms", "median ms", "traced ms",
                        "err fastest", "err median", "hand ms", "hand err", "traced/hand",
                        "core ms", "binding"]))
    # the traced phases state their instructions; a signature without the core kernel
    # leaves them out (extrapolated), one with it prices them as the "core" resource
    print("\ninstructions and branches of the traced phases: " +
          ("priced by the signature's core kernel (core ms: that resource's time)"
           if "core" in sig.kernels else "not priced (the signature has no core kernel)"))
    if best_err:
        print(f"\n{len(best_err)} cases (signature {sig.name}, caches of {desc}): median |error| "
              f"{statistics.median(best_err):.1%} (fastest repetition), "
              f"{statistics.median(med_err):.1%} (median repetition); max "
              f"{max(best_err):.1%} / {max(med_err):.1%}; over 35 %: "
              f"{sum(e > 0.35 for e in best_err)} / {sum(e > 0.35 for e in med_err)}")
        print(f"hand-counted workloads of the same cases: median |error| "
              f"{statistics.median(hand_err):.1%}, max {max(hand_err):.1%} (fastest repetition)")


def _table(rows, header):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).rjust(w) for x, w in zip(r, widths))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("counts", "predict", "kernels", "second", "hpcc"),
                    required=True)
    ap.add_argument("--signature", help="signature of this machine (predict, kernels, hpcc)")
    ap.add_argument("--only", help="kernels: comma-separated kernel names")
    ap.add_argument("--levels", help="kernels: comma-separated levels (L1,L2,L3,memory)")
    ap.add_argument("--runs", type=int, default=5, help="kernels: native runs per case")
    ap.add_argument("--times", metavar="FILE",
                    help="kernels: native times from this JSON file where it has the case (else "
                         "measured), all written back to it: two model versions, one measurement")
    a = ap.parse_args()
    if a.part == "kernels":
        if not a.signature:
            ap.error("--part kernels needs --signature")
        part_kernels(a.signature, a.only.split(",") if a.only else None,
                     a.levels.split(",") if a.levels else None, a.runs, a.times)
        return 0
    if a.part == "counts":
        return 1 if part_counts() else 0
    if a.part in ("predict", "hpcc"):
        if not a.signature:
            ap.error(f"--part {a.part} needs --signature")
        (part_predict if a.part == "predict" else part_hpcc)(a.signature)
    else:
        part_second()
    return 0


if __name__ == "__main__":
    sys.exit(main())
