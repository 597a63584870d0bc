"""Unknown names are answered with the closest known ones (difflib), one line, exit 2."""

from __future__ import annotations

import pytest

from pinchpoint.cli import main
from pinchpoint.errors import did_you_mean


@pytest.mark.parametrize("argv, suggestion", [
    (["ceilings", "p690"], "did you mean 'ibm-p690'?"),
    (["ceilings", "powermac-g5", "--flow", "nic-rxx"], "did you mean 'nic-rx'"),
    (["explain", "powermac-g5", "pcixx"], "did you mean 'pcix'?"),
    (["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcixx.clock=66MHz..133MHz:3"], "did you mean 'pcix'?"),
    (["solve", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clck", "--target", "10 Gbit/s"],
     "did you mean 'clock'?"),
    (["predict", "--signature", "p69", "--workload", "power4-memory-heavy"], "did you mean 'p690'?"),
    (["predict", "--signature", "p690", "--workload", "power4-memory-heav"], "did you mean 'power4-memory-heavy'"),
    (["classify", "powermac-g5", "--flow", "nic-tz", "--measured", "1 Gbit/s"], "did you mean 'nic-tx'"),
    (["scale", "mysql-g5"], "did you mean 'mysql-g5-anandtech-2005-09-01'?"),
    (["scale", "mysql-g5-anandtech-2005-09-01", "--series", "macosx-server-10.5"],
     "did you mean 'macosx-server-10.4'?"),
])
def test_unknown_names_get_the_closest(argv, suggestion, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pinchpoint: error:")
    assert suggestion in err


def test_far_names_get_no_guess():
    assert did_you_mean("zzzz", ["ibm-p690", "powermac-g5"]) == ""
    assert did_you_mean("g5", ["powermac-g5", "ibm-p690"]) == " (did you mean 'powermac-g5'?)"  # a part of one
    assert did_you_mean("p6", ["ibm-p690", "ibm-p650"]) == ""  # a part of two: no guess


@pytest.mark.parametrize("command", [["ceilings"], ["scale"], ["predict", "--workload", "daxpy-l1", "--signature"]])
def test_a_folder_is_not_called_a_missing_file(command, tmp_path, capsys):
    assert main([*command, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "folder" in err and "no such file" not in err
