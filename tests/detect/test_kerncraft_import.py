"""The kerncraft importer against a machine file written for the test (detect_paths.KERNCRAFT)."""

from __future__ import annotations

import pytest
from detect_paths import KERNCRAFT

from pinchpoint.ceilings import all_ceilings
from pinchpoint.errors import InputError
from pinchpoint.importers import kerncraft
from pinchpoint.profile import profile_from_document


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
    # memory link: the highest MEM result, load on 2 cores = 28.34 GB/s
    assert p.links["mem0"].capacity == pytest.approx(28.34e9)
    ceilings = {c.name: c.ceiling_bytes_per_s for c in all_ceilings(p)}
    assert ceilings["mem-copy"] == pytest.approx(28.34e9 / 2)


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
