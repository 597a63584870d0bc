"""Global -q / -v, before or after the subcommand, as iperf3 and likwid take them."""

from __future__ import annotations

import pytest

from pinchpoint.cli import main
from pinchpoint.inputs.profile_io import bundled_profiles


@pytest.mark.parametrize("argv", [["-v", "ceilings", "powermac-g5"], ["ceilings", "powermac-g5", "--verbose"]])
def test_verbose_names_the_files_behind_the_names(argv, capsys):
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"profile powermac-g5: {bundled_profiles()['powermac-g5']}" in err
    assert "on Python" in err


def test_default_is_silent_on_stderr(capsys):
    assert main(["ceilings", "powermac-g5"]) == 0
    assert capsys.readouterr().err == ""


def test_quiet_and_verbose_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["-q", "-v", "ceilings", "powermac-g5"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_verbose_with_a_bad_name_is_one_line(capsys):
    assert main(["-v", "ceilings", "nonesuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("pinchpoint: error:") == 1 and "Traceback" not in err
