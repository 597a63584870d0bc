"""The kerncraft importer against a machine file written for the test (detect_paths.KERNCRAFT)."""

from __future__ import annotations

import pytest
from detect_paths import KERNCRAFT

from pinchpoint.solve.ceilings import all_ceilings
from pinchpoint.errors import InputError
from pinchpoint.importers import kerncraft
from pinchpoint.inputs.profile import profile_from_document


@pytest.fixture(scope="module")
def machine():
    return kerncraft.load_machine(KERNCRAFT.read_text(), file=str(KERNCRAFT))


def test_profile(machine):
    p = profile_from_document(kerncraft.to_profile_document(machine, file=str(KERNCRAFT)))
    assert set(p.components) == {"cpu0", "cpu1", "memory"}  # sockets: 2
    cpu = p.components["cpu0"]
    assert cpu.get("clock") == pytest.approx(2.3e9)
    assert (cpu.get("cores"), cpu.get("threads_per_core"), cpu.get("flops_per_cycle")) == (24, 2, 8)
    # sets x ways x cl_size: 128*4*64, 1024*8*64, 8192*16*64
    assert [(c.level, c.type, c.size.si, c.associativity, c.shared_by) for c in cpu.caches] == [
        (1, "data", 32768, 4, 1), (2, "unified", 524288, 8, 1), (3, "unified", 8388608, 16, 3)]
    # memory link: copy on the most cores measured (2 of 24) = 22.60 GB/s as likwid-bench counts
    # it, x 1.5 for write-allocate (kerncraft's stream accounting); the copy crosses it 3 times
    assert p.links["mem0"].capacity_bytes_per_s == pytest.approx(22.60e9 * 1.5)
    ceilings = {c.name: c.ceiling_bytes_per_s for c in all_ceilings(p)}
    assert ceilings["mem-copy"] == pytest.approx(22.60e9 / 2)  # the copy rate the file measured


def test_signature(machine):
    sig = kerncraft.to_signature(machine, file=str(KERNCRAFT))
    points = sig.points("likwid_bench")
    assert len(points) == 8  # 2 levels x 2 kernels x 2 core counts
    p = sig.points("likwid_bench", op="copy", level="MEM", cores=2)[0]
    assert p["working_set_bytes"] == 120_000_000 and p["threads"] == 2
    assert p.result.repetitions == pytest.approx((22.6e9, 22.1e9, 22.4e9))  # the stats, not the max
    assert p.result.median == pytest.approx(22.4e9)
    l1 = sig.points("likwid_bench", op="load", level="L1", cores=1)[0]
    assert l1["working_set_bytes"] == 21120  # "21.12 kB" is decimal in kerncraft files
    assert sig.host["cpu_model"] == "AMD EPYC 7451 24-Core Processor"


@pytest.mark.parametrize("version", ["0.6.6", "0.7.1", "0.9.0", "1.0", "latest"])
def test_unsupported_version(version):
    text = KERNCRAFT.read_text().replace("kerncraft version: 0.8.3.dev0", f"kerncraft version: {version}")
    with pytest.raises(InputError) as err:
        kerncraft.load_machine(text, file="old.yml")
    msg = str(err.value)
    assert "old.yml" in msg and "kerncraft version" in msg and "not supported" in msg and "0.8.1" in msg


def test_missing_version():
    text = KERNCRAFT.read_text().replace("kerncraft version: 0.8.3.dev0\n", "")
    with pytest.raises(InputError, match="kerncraft version: missing"):
        kerncraft.load_machine(text, file="m.yml")


def test_yaml_syntax_error_names_the_line():
    text = "kerncraft version: 0.8.3\nclock: [2.3 GHz\nmodel name: x\n"
    with pytest.raises(InputError) as err:
        kerncraft.load_machine(text, file="bad.yml")
    assert "bad.yml (line" in str(err.value) and "YAML" in str(err.value)


def test_unsafe_yaml_is_refused():
    text = "kerncraft version: 0.8.3\nclock: !!python/object/apply:os.system ['true']\n"
    with pytest.raises(InputError, match="YAML"):
        kerncraft.load_machine(text, file="evil.yml")


def test_bad_clock(machine):
    bad = dict(machine, clock="fast")
    with pytest.raises(InputError, match="clock"):
        kerncraft.to_profile_document(bad, file="m.yml")


def test_wrong_measurement_length(machine):
    import copy

    bad = copy.deepcopy(machine)
    bad["benchmarks"]["measurements"]["MEM"][1]["results"]["copy"] = ["14.10 GB/s"]
    with pytest.raises(InputError, match=r"MEM\.1\.results\.copy: expected 2 entries"):
        kerncraft.point_dicts(bad, file="m.yml")


# --- kerncraft's own machine files (tests/fixtures/kerncraft/README.md) ---------

from detect_paths import FIXTURES  # noqa: E402

KC = FIXTURES / "kerncraft"


def _load(name):
    path = KC / f"kerncraft-{name}-mem-only.yml"
    return kerncraft.load_machine(path.read_text(), file=str(path)), str(path)


def _mem_copy(machine, file):
    p = profile_from_document(kerncraft.to_profile_document(machine, file=file))
    return p, next(c for c in all_ceilings(p) if c.name == "mem-copy")


def test_skylake_6148_mem_copy_is_the_copy_it_measured():
    # SkylakeSP_Gold-6148.yml, benchmarks.measurements.MEM.1: copy on 20 cores (the chip's count)
    m, f = _load("SkylakeSP_Gold-6148")
    mem = m["benchmarks"]["measurements"]["MEM"][1]
    i = mem["cores"].index(20)
    copy = float(mem["results"]["copy"][i].split()[0]) * 1e9
    load_max = max(float(v.split()[0]) * 1e9 for v in mem["results"]["load"])
    p, c = _mem_copy(m, f)
    assert c.ceiling_bytes_per_s == pytest.approx(copy / 2, rel=1e-5)  # payload = half the counted bytes
    assert p.links["mem0"].capacity_bytes_per_s == pytest.approx(copy * 1.5, rel=1e-5)  # (8 + 2*8 - 0) / (8 + 8)
    assert c.ceiling_bytes_per_s < load_max / 2 / 1.5  # not the read-only peak any more
    assert kerncraft.benchmark_flags(m, file=f) == []


def test_write_allocate_factor_matches_kerncraft():
    # kerncraft machinemodel.get_bandwidth: (read + 2 write - read+write) / (read + write)
    assert kerncraft.write_allocate_factor(8, 8, 0) == 1.5  # copy
    assert kerncraft.write_allocate_factor(24, 8, 0) == pytest.approx(40 / 32)  # triad
    assert kerncraft.write_allocate_factor(8, 8, 8) == 1.0  # update: the written line was read anyway
    assert kerncraft.write_allocate_factor(8, 0, 0) == 1.0  # load


def test_ryzen_file_with_an_epyc_benchmark_section_is_flagged():
    m, f = _load("Zen_Ryzen7-1700X")
    flags = kerncraft.benchmark_flags(m, file=f)
    assert len(flags) == 1 and "up to 24 cores" in flags[0] and "has 8" in flags[0]
    p, c = _mem_copy(m, f)
    assert p.links["mem0"].capacity_bytes_per_s < 148.5e9  # not the 24-core load figure
    mem = m["benchmarks"]["measurements"]["MEM"][1]
    assert c.ceiling_bytes_per_s == pytest.approx(float(mem["results"]["copy"][7].split()[0]) * 1e9 / 2)


def test_ryzen_import_warns_on_stderr(tmp_path, capsys):
    from pinchpoint.cli import main

    code = main(["import", "kerncraft", str(KC / "kerncraft-Zen_Ryzen7-1700X-mem-only.yml"),
                 "-o", str(tmp_path / "r.toml")])
    assert code == 0 and "warning:" in capsys.readouterr().err


def test_information_required_and_float_counts_are_accepted():
    m, f = _load("A64FX_qpace4")  # FLOPs per cycle: INFORMATION_REQUIRED
    doc = kerncraft.to_profile_document(m, file=f)
    assert "flops_per_cycle" in doc["components"]["cpu0"]["unknown"]
    m, f = _load("BroadwellEP_E5-2697v4_CoD")  # "cores per group: 1.0"
    p = profile_from_document(kerncraft.to_profile_document(m, file=f))
    assert p.components["cpu0"].caches[0].shared_by == 1
    text = (KC / "zen-epyc-7451-small-0.8.3.yml").read_text().replace("cl_size: 64", "cl_size: 64 B", 1)
    m = kerncraft.load_machine(text, file="b.yml")
    assert kerncraft.caches(m, file="b.yml")[0]["line"] == "64 B"


def test_signature_keeps_what_the_profile_cannot_hold():
    m, f = _load("SkylakeSP_Gold-6148")
    extra = kerncraft.to_signature(m, file=f).host["kerncraft"]
    assert extra["sp_flops_per_cycle"] == m["FLOPs per cycle"]["SP"]["total"]
    assert extra["NUMA_domains_per_socket"] == m["NUMA domains per socket"]
    levels = {x["level"]: x for x in extra["memory_hierarchy"]}
    assert levels["L2"]["upstream_throughput"][0] == str(m["memory hierarchy"][1]["upstream throughput"][0])
    assert levels["L3"]["transfers_overlap"] == m["memory hierarchy"][2]["transfers overlap"]
