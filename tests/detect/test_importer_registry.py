"""Importers are entries of a registry: one registered from outside becomes
`pinchpoint import NAME FILE -o SIG.json` end to end (as pyhf's test_custom_mods registers a modifier)."""

from __future__ import annotations

import pytest

from pinchpoint.cli import main
from pinchpoint.errors import InputError
from pinchpoint.importers.registry import IMPORTERS, register_importer
from pinchpoint.inputs.signature import KernelRun, Point, Result, Signature, load_signature


def _toy_csv(texts):
    """'working_set_bytes,bytes_per_s' lines -> a signature with one 'toybench' point per line."""
    points = []
    for text, file in texts:
        for n, line in enumerate(text.strip().splitlines(), 1):
            try:
                ws, rate = (float(x) for x in line.split(","))
            except ValueError:
                raise InputError(f"line {n}: expected 'working set,rate', got {line!r}", file=file,
                                 key="line") from None
            points.append(Point({"working_set_bytes": int(ws)}, Result.from_repetitions("B/s", [rate])))
    return Signature({"name": "toy", "cpu_model": "toy"}, {}, "2026-01-01", {"toybench": KernelRun(None, tuple(points))})


@pytest.fixture
def toy_importer():
    register_importer("toycsv", _toy_csv, help="toy CSV -> signature", file_help="toy CSV files")
    try:
        yield
    finally:
        IMPORTERS.pop("toycsv")


def test_registered_importer_runs_from_the_command_line(toy_importer, tmp_path, capsys):
    src = tmp_path / "run.csv"
    src.write_text("4096,2.5e10\n134217728,1.2e10\n")
    out = tmp_path / "toy.json"
    assert main(["import", "toycsv", str(src), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}: 2 points"
    sig = load_signature(str(out))
    assert [p["working_set_bytes"] for p in sig.points("toybench")] == [4096, 134217728]
    assert sig.points("toybench")[1].result.median == 1.2e10


def test_registered_importer_errors_are_one_line_exit_2(toy_importer, tmp_path, capsys):
    src = tmp_path / "bad.csv"
    src.write_text("4096;fast\n")
    assert main(["import", "toycsv", str(src), "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad.csv" in err and "line 1" in err
    assert not (tmp_path / "x.json").exists()


def test_import_help_lists_registered_formats(toy_importer, capsys):
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    out = capsys.readouterr().out
    assert "toycsv" in out and "likwid" in out and "iperf3" not in out


def test_registry_refuses_bad_entries():
    with pytest.raises(ValueError, match="already registered"):
        register_importer("likwid", _toy_csv)
    with pytest.raises(ValueError, match="writes signatures only"):
        register_importer("toyprofile", _toy_csv, produces="profile")
    assert "toyprofile" not in IMPORTERS
    assert list(IMPORTERS) == ["kerncraft", "likwid", "fio", "nccl", "iperf3"]
    assert all(callable(e.converter()) for e in IMPORTERS.values())
