"""Bundled and imported signatures are usable where their data suffice: ``signature
plot`` draws what a signature has, ``pinchpoint signatures`` lists the bundled ones, and
likwid-bench points (``import likwid``, ``import kerncraft --signature``) price memory traffic
and give measured memory ceilings; where data are missing the error names what is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinchpoint.cli import main
from pinchpoint.inputs.signature import bundled_signatures, load_signature

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("name", sorted(bundled_signatures()))
def test_signature_plot_draws_every_bundled_signature(tmp_path, name):
    out = tmp_path / "sig.png"
    assert main(["signature", "plot", name, "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG


def test_bars_plot_has_one_bar_per_point_in_human_units():
    from pinchpoint.report.plots_signature import signature_bars

    sig = load_signature(bundled_signatures()["p690"])
    ax = signature_bars(sig)
    axes = ax.figure.axes
    labels = {a.get_xlabel() for a in axes}
    assert labels == {"median [GB/s] (whiskers: min .. max)", "median [us] (whiskers: min .. max)",
                      "median [Gflop/s] (whiskers: min .. max)"}
    bars = sum(len(a.patches) for a in axes)
    assert bars == sum(len(run.points) for run in sig.kernels.values())
    peak = next(a for a in axes if "Gflop/s" in a.get_xlabel())
    widths = sorted(p.get_width() for p in peak.patches)
    medians = sorted(p.result.median / 1e9 for p in sig.points("peak"))
    assert widths == pytest.approx(medians)
    assert peak.get_xscale() == "log"  # division 0.06 .. poly5 2.8 Gflop/s


def test_signatures_lists_every_bundled_signature(capsys):
    assert main(["signatures", "--json"]) == 0
    names = [row["name"] for row in json.loads(capsys.readouterr().out)["signatures"]]
    assert names == list(bundled_signatures())
    assert {"p690", "p650", "powermac-g5-xbench"} <= set(names)


@pytest.fixture
def imported(tmp_path, capsys):
    kc_profile, kc_sig, lk_sig, fio_sig = (tmp_path / n for n in ("kc.toml", "kc.json", "lk.json", "fio.json"))
    assert main(["import", "kerncraft", str(FIXTURES / "kerncraft" / "zen-epyc-7451-small-0.8.3.yml"),
                 "-o", str(kc_profile), "--signature", str(kc_sig)]) == 0
    assert main(["import", "likwid", *map(str, sorted((FIXTURES / "likwid").glob("*.txt"))),
                 "-o", str(lk_sig)]) == 0
    assert main(["import", "fio", str(next((FIXTURES / "fio").glob("*.json"))), "-o", str(fio_sig)]) == 0
    capsys.readouterr()
    return {"profile": kc_profile, "kerncraft": kc_sig, "likwid": lk_sig, "fio": fio_sig}


def test_imported_likwid_points_give_measured_memory_ceilings(imported, capsys):
    assert main(["ceilings", str(imported["profile"]), "--signature", str(imported["kerncraft"]),
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["measured"]["measured"]
    mem = {r["name"]: r for r in rows}
    # the best likwid-bench figure at the largest working set: load, 2 threads, 28.3 GB/s
    assert mem["mem0"]["measured_bytes_per_s"] == pytest.approx(28.3e9, rel=1e-3)
    assert "likwid_bench" in mem["mem0"]["source"]


def test_imported_likwid_points_price_memory_loads(imported, tmp_path, capsys):
    wl = tmp_path / "loads.toml"
    wl.write_text('schema = 1\nname = "loads"\ndescription = "1 GB of loads over 64 MiB"\n'
                  'source = "test"\n[[phases]]\nname = "p"\n[[phases.memory]]\nops = 125000000\n'
                  'bytes_per_op = "8 B"\nworking_set = "64 MiB"\npattern = "stride1"\nop = "load"\n')
    assert main(["predict", "--signature", str(imported["kerncraft"]), "--workload", str(wl), "--json"]) == 0
    pred = json.loads(capsys.readouterr().out)
    # 1e9 B at the 1-thread load curve between 21120 B (70.85 GB/s) and 120e6 B (18.8 GB/s),
    # interpolated in log-log at 64 MiB: independently computed here
    import math
    x0, y0, x1, y1 = 21120, 70.85e9, 120e6, 18.8e9
    t = (math.log(64 * 2 ** 20) - math.log(x0)) / (math.log(x1) - math.log(x0))
    rate = math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))
    assert pred["predicted_s"]["low"] == pytest.approx(1e9 / rate, rel=1e-6)
    assert any("likwid-bench" in n for n in pred["notes"])


def test_imported_likwid_signature_plots_its_staircase(imported, tmp_path):
    from pinchpoint.report.plots_signature import plot_signature

    ax = plot_signature(load_signature(imported["likwid"]))
    assert "likwid-bench" in ax.get_title()
    assert main(["signature", "plot", str(imported["kerncraft"]), "-o", str(tmp_path / "k.png")]) == 0


def test_fio_signature_for_memory_work_names_what_is_missing(imported, capsys):
    assert main(["predict", "--signature", str(imported["fio"]), "--workload", "power4-memory-heavy"]) == 2
    err = capsys.readouterr().err
    assert "'maps' kernel" in err and "likwid-bench" in err and "iobench" in err
