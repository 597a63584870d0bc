"""The measure / signature commands end to end, and the MAPS staircase plot."""

from __future__ import annotations

import json
import subprocess

import pytest

from kernel_test_helpers import cli_command
from pinchpoint.measure.runner import find_compiler

pytestmark = pytest.mark.slow


def cli(*args, timeout=120):
    return subprocess.run([*cli_command(), *args], capture_output=True, text=True,
                          timeout=timeout)


def test_measure_only_peak_writes_signature(tmp_path):
    out = tmp_path / "sig.json"
    proc = cli("measure", "--quick", "--only", "peak", "--no-progress", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["schema"] == 1 and list(data["kernels"]) == ["peak"]
    assert data["compiler"]["flags"] == ["-std=c99", "-ffp-contract=off", *find_compiler().flags]
    assert data["compiler"]["flags"][2:4] == ["-O3", "-march=native"]
    assert [p.name for p in tmp_path.iterdir()] == ["sig.json"]


def test_measure_bad_compiler_exit_2(tmp_path):
    out = tmp_path / "sig.json"
    proc = cli("measure", "--quick", "--only", "peak", "--cc", "no-such-cc-4711", "-o", str(out))
    assert proc.returncode == 2
    assert "no-such-cc-4711" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_signature_show_bundled_and_json():
    proc = cli("signature", "show", "p690")
    assert proc.returncode == 0, proc.stderr
    assert "Chen and M. Ebbers" in proc.stdout and "0.2886 Gflop/s" in proc.stdout
    proc = cli("signature", "show", "p690", "--json")
    assert json.loads(proc.stdout)["host"]["name"] == "p690"


def test_signature_show_invalid_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 7}')
    proc = cli("signature", "show", str(bad))
    assert proc.returncode == 2
    assert f"{bad}: schema: unsupported schema 7" in proc.stderr


def test_staircase_plot_marks_caches(quick_signature, tmp_path):
    pytest.importorskip("matplotlib")
    from pinchpoint.measure.hostinfo import data_cache_sizes
    from pinchpoint.report.plots_signature import maps_staircase, save

    ax = maps_staircase(quick_signature)
    caches = data_cache_sizes(quick_signature.host["caches"])
    marked = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == ":")
    assert marked == sorted(caches.values())
    labels = {t.get_label() for t in ax.get_legend().get_texts()} | \
        {t.get_text() for t in ax.get_legend().get_texts()}
    assert "load stride1" in labels and "load random" in labels
    save(ax, tmp_path / "maps.svg")
    assert (tmp_path / "maps.svg").read_text().lstrip().startswith("<?xml")


def test_staircase_without_maps_is_an_error():
    # `signature plot` draws bars for such a signature (tests/cli/test_signatures_usable.py);
    # the staircase itself still refuses, naming the missing kernel.
    from pinchpoint.errors import SignatureError
    from pinchpoint.report.plots_signature import maps_staircase
    from pinchpoint.inputs.signature import load_bundled

    with pytest.raises(SignatureError, match="no kernel 'maps'"):
        maps_staircase(load_bundled("p690"))
