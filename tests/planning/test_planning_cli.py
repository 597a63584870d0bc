"""The planning commands end to end: output, files, and exit code 2 with a clear message."""

from __future__ import annotations

import json

import pytest

from pinchpoint.cli import main

BUNDLED = "mysql-g5-anandtech-2005-09-01"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("vary, fragment", [
    ("pcix.clock=266MHz..66MHz:41", "is empty"),  # an empty range
    ("pcix.clock=64bit..128bit:41", "is not a frequency"),  # a range in the wrong unit
    ("pcix.voltage=1V..3V:3", "has no parameter 'voltage'"),  # a parameter that does not exist
])
def test_sweep_bad_input_exits_2(capsys, vary, fragment):
    code, out, err = run(capsys, "sweep", "powermac-g5", "--flow", "nic-rx", "--vary", vary)
    assert code == 2
    assert err.startswith("pinchpoint: error: --vary") and fragment in err
    assert "Traceback" not in err and out == ""


def test_scale_one_point_is_shown_not_fitted(capsys, tmp_path):
    f = tmp_path / "one.csv"
    f.write_text("clients,throughput\n4,100\n")
    code, out, err = run(capsys, "scale", str(f))
    assert code == 0, err
    assert "N=4: 100" in out and "nothing to fit" in out and "Amdahl" not in out


@pytest.mark.parametrize("name", ["mysql-g5-anandtech-2005-09-01", "apache-g5-anandtech-2005-09-01"])
def test_every_bundled_series_works(capsys, tmp_path, name):
    png = tmp_path / "s.png"
    code, out, err = run(capsys, "scale", name, "--plot", str(png))
    assert code == 0 and png.stat().st_size > 1000, err
    assert "p = " not in out  # no series here has points enough to estimate the noise


def test_scale_mva_for_a_billion_clients_is_bounded(capsys):
    """Exact MVA visits every population (1e7 took 62 s and 3.4 GB): past 100,000 clients the
    Schweitzer approximation is used and said; one 1 ms station saturates at 1000/s."""
    import time

    started = time.perf_counter()
    code, out, err = run(capsys, "scale", BUNDLED, "--demands", "cpu=1 ms", "--clients", "1000000000", "--json")
    assert code == 0, err
    assert time.perf_counter() - started < 30
    mva = json.loads(out)["mva"]
    assert mva["method"] == "Schweitzer approximate MVA" and len(mva["points"]) <= 200
    assert mva["points"][-1]["clients"] == 10 ** 9
    assert mva["points"][-1]["throughput_per_s"] == pytest.approx(1000.0, rel=1e-9)
    code, _, err = run(capsys, "scale", BUNDLED, "--demands", "cpu=1 ms", "--clients", str(10 ** 13))
    assert code == 2 and "at most" in err


@pytest.mark.parametrize("body, fragment", [
    ("n,qps\n1,2\n", "needs columns 'clients' and 'throughput'"),
    ("clients,throughput\n1,abc\n", "(line 2)"),
    ("# only comments\n", "no header"),
])
def test_scale_bad_file_exits_2(capsys, tmp_path, body, fragment):
    f = tmp_path / "bad.csv"
    f.write_text(body)
    code, _, err = run(capsys, "scale", str(f))
    assert code == 2 and fragment in err


def test_scale_anandtech_verdicts(capsys):
    code, out, _ = run(capsys, "scale", BUNDLED, "--json")
    assert code == 0
    d = json.loads(out)
    verdicts = {f["series"]: f["retrograde"] for f in d["fits"]}
    assert verdicts == {"macosx-server-10.4": True, "yellow-dog-linux-4.0.1": False}
    code, out, _ = run(capsys, "scale", BUNDLED)
    assert "contention in software" in out


def test_scale_with_mva_and_plot(capsys, tmp_path):
    png = tmp_path / "scale.png"
    code, out, _ = run(capsys, "scale", BUNDLED, "--demands", "cpu=2 ms,disk=1 ms", "--think", "0 s",
                       "--clients", "20", "--plot", str(png))
    assert code == 0 and png.stat().st_size > 1000
    assert "N* = 1.5" in out  # (2 + 1) ms / 2 ms
    code, _, err = run(capsys, "scale", BUNDLED, "--demands", "cpu=2 GHz")
    assert code == 2 and "--demands cpu" in err


def test_sweep_csv_plot_and_json(capsys, tmp_path):
    csv_file, png = tmp_path / "s.csv", tmp_path / "s.png"
    code, out, _ = run(capsys, "sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..266MHz:41",
                       "--vary", "pcix.width=32bit..64bit:2", "--csv", str(csv_file), "--plot", str(png))
    assert code == 0 and "82 points" in out
    assert len(csv_file.read_text().splitlines()) == 83 and png.stat().st_size > 1000
    code, out, _ = run(capsys, "sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=100MHz..200MHz:3",
                       "--json")
    d = json.loads(out)
    # 100, 150, 200 MHz x 64 bit = 6.4, 9.6, 12.8 Gbit/s: the 10 Gbit/s port binds only at 200 MHz
    assert [p["binding"] for p in d["grid"]] == ["pcix", "pcix", "ethernet"]


def test_uncertainty_command(capsys):
    code, out, _ = run(capsys, "uncertainty", "powermac-g5", "--flow", "nic-rx", "--uncertain",
                       "ht.clock=100 MHz .. 1000 MHz", "--samples", "20000", "--json")
    assert code == 0
    d = json.loads(out)
    assert set(d["binding_share"]) == {"pcix", "ht"}
    code, _, err = run(capsys, "uncertainty", "powermac-g5", "--flow", "nic-rx")
    assert code == 2 and "no value with a spread" in err


def test_compare_command(capsys, tmp_path):
    png = tmp_path / "c.png"
    code, out, _ = run(capsys, "compare", "powermac-g5", "powermac-g5", "--flow", "nic-rx", "--plot", str(png))
    assert code == 0 and "[pcix]" in out and png.exists()
    code, _, err = run(capsys, "compare", "powermac-g5", "--flow", "warp")
    assert code == 2 and "--flow" in err


def test_whole_process_exit_code(cli):
    r = cli("sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..266MHz:0")
    assert r.returncode == 2 and "is empty" in r.stderr and "Traceback" not in r.stderr


def test_sweep_keeps_discrete_parameters_discrete(cli):
    r = cli("sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.burst=512B..4096B:1000", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["points"] == 4 and doc["axes"][0]["discrete"]
    assert sorted({p["pcix.burst_B"] for p in doc["grid"]}) == [512.0, 1024.0, 2048.0, 4096.0]


def test_solve_over_pcie_generation_and_steps(cli):
    r = cli("solve", "h100-pcie-host-1mib", "--flow", "h2d", "--target", "60 GB/s", "--vary", "pcie.generation")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("pcie.generation = 6 gives h2d")
    for param in ("mps", "transfer_size"):
        r = cli("solve", "h100-pcie-host-1mib", "--flow", "h2d", "--target", "60 GB/s", "--vary", f"pcie.{param}")
        assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    r = cli("solve", "powermac-g5", "--flow", "nic-rx", "--target", "1e300 Gbit/s", "--vary", "pcix.clock")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "--target" in r.stderr and "powermac-g5.toml" not in r.stderr


def test_explain_flags_a_description_the_child_left_behind(cli, tmp_path):
    child = tmp_path / "gen3.toml"
    child.write_text('schema = 1\nextends = "h100-pcie-host"\nname = "gen3"\n\n[links.pcie]\ngeneration = 3\n'
                     "lanes = 8\n", encoding="utf-8")
    r = cli("explain", str(child), "pcie")
    assert r.returncode == 0, r.stderr
    assert "warning: the description of link 'pcie' no longer fits it" in r.stdout
    assert "generation 5, the link is generation 3" in r.stdout and "x16, the link has 8 lanes" in r.stdout
    r = cli("explain", "h100-pcie-host", "pcie")
    assert "warning" not in r.stdout  # the parent's own description fits


def test_large_sweep_shows_progress_on_a_terminal_only():
    from terminal import on_a_terminal

    argv = ["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=66MHz..266MHz:1000",
            "--vary", "ethernet.rate=1Gbit/s..40Gbit/s:1000"]
    code, shown = on_a_terminal(argv)
    assert code == 0 and "sweep:" in shown and "/1.00M" in shown and "point/s" in shown  # tqdm, in points
    code, shown = on_a_terminal(["-q", *argv])
    assert code == 0 and shown == ""
    code, shown = on_a_terminal(argv[:5] + ["pcix.clock=66MHz..266MHz:10"])  # small: no bar
    assert code == 0 and shown == ""
