"""`pinchpoint detect` and `pinchpoint import`: acceptance on this machine, fixtures, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from detect_paths import HWLOC_XML, KERNCRAFT, LIKWID, SYSFS

from pinchpoint.cli import main
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.inputs.signature import load_signature


def run(*args):
    return subprocess.run([sys.executable, "-m", "pinchpoint.cli", *args], capture_output=True, text=True,
                          timeout=120)


def _lscpu_caches() -> dict:
    """(level, type) -> one instance's size [B] from `lscpu -B -C` (util-linux)."""
    out = subprocess.run(["lscpu", "-B", "-C=LEVEL,TYPE,ONE-SIZE"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        pytest.skip(f"lscpu -C failed: {out.stderr.strip()}")
    got = {}
    for line in out.stdout.splitlines()[1:]:
        level, kind, size = line.split()
        got[(int(level), kind.lower())] = int(size)
    return got


@pytest.mark.slow
@pytest.mark.needs_tool
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux sysfs")
def test_detect_this_machine(tmp_path):
    """Acceptance: `pinchpoint detect -o here.toml` validates, matches lscpu, and `ceilings` runs."""
    if shutil.which("lscpu") is None:
        pytest.skip("lscpu (util-linux) is not installed")
    here = tmp_path / "here.toml"
    r = run("detect", "-o", str(here))
    assert r.returncode == 0, r.stderr
    profile = load_profile(here)
    cpu = profile.components["cpu0"]
    ours = {(c.level, c.type): int(c.size.si) for c in cpu.caches}
    assert ours == _lscpu_caches()
    c = run("ceilings", str(here))
    assert c.returncode == 0, c.stderr
    assert profile.name in c.stdout


def test_detect_fixture_json_and_profile(tmp_path, capsys):
    out = tmp_path / "fx.toml"
    assert main(["detect", "--sysfs-root", str(SYSFS), "--json", "-o", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {f["kind"] for f in data["flags"]} == {"pcie-downgraded", "cpu-throttled", "cpu-governor", "mtu"}
    assert data["facts"]["nominal_clock_hz"] == pytest.approx(3.16e9)
    assert load_profile(out).links["pcie-nic-eth0"].params["lanes"].si == 4


def test_detect_text_prints_flags(capsys):
    assert main(["detect", "--sysfs-root", str(SYSFS), "--hwloc-xml", str(HWLOC_XML)]) == 0
    text = capsys.readouterr().out
    assert "FLAG pcie-downgraded" in text and "FLAG cpu-throttled" in text and "L3 32 MiB" in text


def test_import_kerncraft_and_likwid(tmp_path, capsys):
    prof, sig = tmp_path / "k.toml", tmp_path / "k.json"
    assert main(["import", "kerncraft", str(KERNCRAFT), "-o", str(prof), "--signature", str(sig)]) == 0
    assert load_profile(prof).components["cpu0"].get("flops_per_cycle") == 8
    assert len(load_signature(sig).points("likwid_bench")) == 8
    lk = tmp_path / "l.json"
    assert main(["import", "likwid", *map(str, sorted(LIKWID.glob("*.txt"))), "-o", str(lk)]) == 0
    assert len(load_signature(lk).points("likwid_bench")) == 3


def _exit2(result, *words):
    assert result.returncode == 2
    err = result.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err


def test_bad_input_exits_2(tmp_path, sysfs_copy, capsys):
    cut = tmp_path / "cut.xml"
    text = HWLOC_XML.read_text()
    cut.write_text(text[: len(text) // 3])
    # one whole process: exit code 2, one line on stderr, no traceback
    _exit2(run("detect", "--hwloc-xml", str(cut), "--sysfs-root", str(SYSFS)), "cut.xml", "truncated")

    (sysfs_copy / "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/max_link_speed").write_text("warp 9\n")
    assert main(["detect", "--sysfs-root", str(sysfs_copy)]) == 2
    err = capsys.readouterr().err
    assert "max_link_speed" in err and "'warp 9'" in err and len(err.strip().splitlines()) == 1

    old = tmp_path / "old.yml"
    old.write_text(KERNCRAFT.read_text().replace("kerncraft version: 0.8.3.dev0", "kerncraft version: 0.6.6"))
    assert main(["import", "kerncraft", str(old), "-o", str(tmp_path / "o.toml")]) == 2
    err = capsys.readouterr().err
    assert "old.yml" in err and "not supported" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.toml").exists()


def test_bad_flags(tmp_path, capsys):
    assert main(["detect", "--sysfs-root", str(tmp_path / "none")]) == 2
    assert "--sysfs-root" in capsys.readouterr().err
    assert main(["detect", "--no-hwloc", "-o", str(tmp_path / "no/such/dir/x.toml")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["import", "fio", str(tmp_path / "missing.json"), "-o", str(tmp_path / "s.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
    assert main(["detect", "--sysfs-root", str(SYSFS), "--measure"]) == 2
    assert "--measure" in capsys.readouterr().err


def _fake_lstopo(folder, body: str):
    folder.mkdir()
    for name in ("lstopo", "lstopo-no-graphics"):
        exe = folder / name
        exe.write_text("#!/bin/sh\n" + body)
        exe.chmod(0o755)
    return folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux sysfs")
def test_detect_uses_lstopo_on_path_and_survives_its_failure(tmp_path, monkeypatch, capsys):
    """kerncraft-style fake tools on PATH: detection is tested without the hardware."""
    import os

    xml = tmp_path / "topo.xml"
    xml.write_text(HWLOC_XML.read_text().replace('value="AMD EPYC"', 'value="Fake CPU from lstopo"'))
    good = _fake_lstopo(tmp_path / "good", f"cat '{xml}'\n")
    path = os.environ.get("PATH", "")
    monkeypatch.setenv("PATH", f"{good}{os.pathsep}{path}")
    assert main(["detect", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert facts["sources"]["caches"].startswith("hwloc")
    assert facts["cpu_model"] == "Fake CPU from lstopo"  # what the lstopo on PATH said
    bad = _fake_lstopo(tmp_path / "bad", "echo 'lstopo: broken' >&2\nexit 1\n")
    monkeypatch.setenv("PATH", f"{bad}{os.pathsep}{path}")
    assert main(["detect", "--json"]) == 0  # falls back to /sys and /proc
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert not str(facts["sources"].get("caches", "")).startswith("hwloc")


def test_detect_with_a_signature_adds_the_memory_link(tmp_path, capsys):
    sig = tmp_path / "k.json"
    assert main(["import", "kerncraft", str(KERNCRAFT), "-o", str(tmp_path / "k.toml"), "--signature", str(sig)]) == 0
    out = tmp_path / "fx.toml"
    assert main(["detect", "--sysfs-root", str(SYSFS), "--signature", str(sig), "-o", str(out)]) == 0
    p = load_profile(out)
    # likwid-bench points at the largest working set (120 MB, MEM), most threads (2): load, best of
    # the fixture's three repetitions 28.30, 28.34, 28.20 GB/s
    assert p.links["memory"].capacity_bytes_per_s == pytest.approx(28.34e9)
    assert "likwid-bench" in p.links["memory"].params["rate"].source
    assert p.flows["nic-rx"].sink == "memory" and "mem-copy" in p.flows
