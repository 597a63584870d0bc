"""Kernels are entries of a registry: one registered from outside is planned and its bookkeeping
keys are kept out of points (as pyhf's test_custom_mods registers a modifier)."""

from __future__ import annotations

import pytest

from pinchpoint.errors import InputError
from pinchpoint.measure.kernels import KERNEL_PLANS, kernel_names, register_kernel
from pinchpoint.measure.runner import KERNELS, MPI_KERNELS
from pinchpoint.measure.session import make_plan, parse_only, point_from_record

MiB = 1 << 20


@pytest.fixture
def fake_kernel():
    """A kernel that sweeps message sizes and prints how many laps it ran (bookkeeping)."""
    seen = []

    def plan(ctx):
        seen.append((ctx.mode, ctx.cpus))
        ctx.add("fakebw", ["--sizes", "64" if ctx.quick else "64,4096"], "fake bandwidth")

    register_kernel("fakebw", plan, bookkeeping=("laps",))
    try:
        yield seen
    finally:
        KERNEL_PLANS.pop("fakebw")


def test_registered_kernel_is_planned(fake_kernel):
    plan = make_plan("quick", ("peak", "fakebw"), llc_bytes=MiB, cpus=2, mpi=False)
    assert fake_kernel == [("quick", 2)]
    fake = [j for j in plan.jobs if j.kernel == "fakebw"]
    assert [j.label for j in fake] == ["fake bandwidth"]
    assert fake[0].args == ("--reps", "5", "--min-time", "0.005", "--max-seconds", "20.0", "--sizes", "64")
    assert fake[0].timeout_s == 70.0
    assert plan.kernels == ("peak", "fakebw")
    assert parse_only("fakebw,maps") == ("maps", "fakebw")
    # its bookkeeping key stays out of points; its real parameters stay in
    p = point_from_record({"params": {"bytes": 64, "laps": 1000}, "unit": "B/s", "repetitions": [1.0, 2.0]})
    assert p.params == {"bytes": 64}


def test_unregistered_kernel_is_refused_and_duplicates_too():
    with pytest.raises(InputError, match="unknown kernel 'fakebw'"):
        make_plan("quick", ("fakebw",), llc_bytes=MiB, cpus=2, mpi=False)
    with pytest.raises(ValueError, match="already registered"):
        register_kernel("maps", lambda ctx: None)
    with pytest.raises(ValueError, match="not registered"):
        register_kernel("maps_mpi", lambda ctx: None, variant_of="nosuch")


def test_registry_matches_the_kernels_the_runner_builds():
    assert kernel_names() == KERNELS
    assert tuple(k for k, e in KERNEL_PLANS.items() if e.variant_of) == MPI_KERNELS


def test_mpi_variants_follow_their_kernel():
    with_mpi = make_plan("quick", ("ping",), llc_bytes=MiB, cpus=2, mpi=True)
    assert [j.kernel for j in with_mpi.jobs] == ["ping", "ping_mpi"]
    assert with_mpi.kernels == ("ping", "ping_mpi")
    assert [j.kernel for j in make_plan("quick", ("ping",), llc_bytes=MiB, cpus=2, mpi=False).jobs] == ["ping"]


def test_registered_kernel_flows_through_measure_with_a_fake_runner(fake_kernel, monkeypatch):
    """End to end: a kernel registered from outside is planned, "compiled" and run by measure(),
    its bookkeeping key is dropped from the points, and the signature carries it and reads back."""
    import pinchpoint.measure.session as measure_mod
    from pinchpoint.measure.runner import Compiler, KernelOutput
    from pinchpoint.inputs.signature import loads_signature

    compiled, ran = [], []

    def fake_compile(kernel, compiler):
        compiled.append(kernel)
        return f"/fake/bin/{kernel}"

    def fake_run(binary, args, *, kernel, **kw):
        ran.append((binary, kernel, tuple(args)))
        sizes = args[args.index("--sizes") + 1].split(",")
        return KernelOutput(kernel, [{"params": {"bytes": int(s), "laps": 7}, "unit": "B/s",
                                      "repetitions": [1e9, 2e9, 1.5e9]} for s in sizes], "complete")

    monkeypatch.setattr(measure_mod, "compile_kernel", fake_compile)
    monkeypatch.setattr(measure_mod, "run_kernel", fake_run)
    monkeypatch.setattr(measure_mod, "find_compiler", lambda cc, flags: Compiler(("fakecc",), "fakecc 1.0", ()))
    monkeypatch.setattr(measure_mod, "source_sha256", lambda kernel: "0" * 64)
    monkeypatch.setattr(measure_mod, "host_info", lambda: {"cpu_model": "toy", "caches": []})

    sig = measure_mod.measure("quick", ("fakebw",))
    assert compiled == ["fakebw"] and [(b, k) for b, k, _ in ran] == [("/fake/bin/fakebw", "fakebw")]
    assert fake_kernel and fake_kernel[0][0] == "quick"  # its planner saw the mode
    (point,) = sig.points("fakebw")
    assert point.params == {"bytes": 64}  # "laps" is bookkeeping: not a parameter
    assert point.result.median == 1.5e9
    back = loads_signature(sig.to_json())
    assert back.value("fakebw", bytes=64) == 1.5e9


def test_a_registered_kernel_is_one_entry_its_source_builds(tmp_path):
    """kernel_source (and so compile_kernel) reads the registry: a new kernel is one entry."""
    from pinchpoint.measure.runner import compile_kernel, find_compiler, kernel_source

    src = tmp_path / "hello.c"
    src.write_text('#include <stdio.h>\nint main(void) { puts("{\\"status\\":\\"complete\\"}"); return 0; }\n')
    register_kernel("hellok", lambda ctx: None, source=src)
    try:
        assert kernel_source("hellok") == src
        try:
            compiler = find_compiler(None, None)
        except Exception as exc:  # noqa: BLE001 - any reason the compiler is unusable
            pytest.skip(f"no C compiler: {exc}")
        assert compile_kernel("hellok", compiler).exists()
    finally:
        KERNEL_PLANS.pop("hellok")
    with pytest.raises(InputError, match="unknown kernel 'hellok'"):
        kernel_source("hellok")
