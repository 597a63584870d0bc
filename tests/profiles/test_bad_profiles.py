"""Every profile validation rule fires with exit code 2 and one line naming file, key and expectation."""

from __future__ import annotations

import pytest

from pinchpoint.errors import ProfileError
from pinchpoint.inputs.profile_io import load_profile

# (what is wrong, replacement (old, new) in toy.toml, key path in the message, words expected)
CASES = [
    ("unknown unit", ('clock = "33 MHz"', 'clock = "33 MHzz"'), "links.pci.clock", "unknown unit"),
    ("wrong dimension", ('width = "32 bit"', 'width = "32 bit/s"'), "links.pci.width", "is not a size"),
    ("no unit", ('clock = "33 MHz"', 'clock = 33'), "links.pci.clock", "expected a frequency"),
    ("zero clock", ('clock = "33 MHz"', 'clock = "0 MHz"'), "links.pci.clock", "greater than zero"),
    ("negative clock", ('clock = "1 GHz"', 'clock = "-1 GHz"'), "components.cpu.clock", "greater than zero"),
    ("link to a missing component", ('between = ["nic", "bridge"]', 'between = ["nic", "bridgee"]'),
     "links.pci.between", "no component 'bridgee'"),
    ("unknown key", ('between = ["net", "nic"]', 'between = ["net", "nic"]\nspeed = "1 Gbit/s"'), "links.eth.speed",
     "unknown key 'speed'"),
    ("unknown link kind", ('kind = "pci"', 'kind = "pcx"'), "links.pci.kind", "unknown link kind"),
    ("missing parameter", ('width = "32 bit"\n', ''), "links.pci.width", "missing"),
    ("schema version", ("schema = 1", "schema = 2"), "schema", "expected schema = 1"),
    ("flow endpoint", ('sink = "mem"', 'sink = "disk"'), "flows.rx", "no component 'disk'"),
    ("fractional lanes", ('kind = "pci"\nbetween = ["nic", "bridge"]\nwidth = "32 bit"\nclock = "33 MHz"',
                          'kind = "pcie"\nbetween = ["nic", "bridge"]\ngeneration = 3\nlanes = 2.5'),
     "links.pci.lanes", "whole number"),
    ("bad generation", ('kind = "pci"\nbetween = ["nic", "bridge"]\nwidth = "32 bit"\nclock = "33 MHz"',
                        'kind = "pcie"\nbetween = ["nic", "bridge"]\ngeneration = 9\nlanes = 8'),
     "links.pci.generation", "generation 1..6"),
    ("passes on a full-duplex link", ('sink = "mem"', 'sink = "mem"\npasses = { eth = 2 }'),
     "flows.rx.passes.eth", "full duplex"),
    ("cache level", ("level = 1", "level = 9"), "components.cpu.caches[0].level", "1..5"),
]


@pytest.mark.parametrize("what, change, key, words", CASES, ids=[c[0] for c in CASES])
def test_rule_fires(tmp_path, toy_text, what, change, key, words):
    old, new = change
    assert old in toy_text, f"fixture no longer contains {old!r}"
    path = tmp_path / "bad.toml"
    path.write_text(toy_text.replace(old, new, 1))
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    message = str(err.value)
    assert message.startswith(str(path)), message
    assert key in message, message
    assert words in message, message


def test_flow_with_no_path(tmp_path, toy_text):
    path = tmp_path / "island.toml"
    path.write_text(toy_text + '\n[components.island]\nkind = "device"\n\n[flows.nowhere]\nsource = "net"\nsink = "island"\n')
    with pytest.raises(ProfileError, match=r"flows\.nowhere: no path from 'net' to 'island'"):
        load_profile(path)


def test_toml_syntax_error_names_the_line(tmp_path, toy_text):
    path = tmp_path / "syntax.toml"
    path.write_text(toy_text.replace('kind = "ethernet"', 'kind = "ethernet'))
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    assert "TOML syntax error" in str(err.value) and "line" in str(err.value)


def test_extends_cycle(tmp_path):
    (tmp_path / "a.toml").write_text('schema = 1\nextends = "b.toml"\n')
    (tmp_path / "b.toml").write_text('schema = 1\nextends = "a.toml"\n')
    with pytest.raises(ProfileError, match="cycle"):
        load_profile(tmp_path / "a.toml")


def test_error_carries_the_line_of_the_key(tmp_path, toy_text):
    path = tmp_path / "bad.toml"
    text = toy_text.replace('clock = "33 MHz"', 'clock = "33 MHzz"')
    path.write_text(text)
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    expected = next(i for i, line in enumerate(text.splitlines(), 1) if "MHzz" in line)
    assert err.value.line == expected


@pytest.mark.parametrize("args, words", [
    (["ceilings", "no/such/file.toml"], "no such file"),
    (["ceilings", "no-such-profile"], "no bundled profile or file named 'no-such-profile'"),
    (["ceilings", "powermac-g5", "--flow", "nope"], "no flow 'nope'"),
    (["explain", "powermac-g5", "nope"], "no link or flow 'nope'"),
    (["solve", "powermac-g5", "--flow", "nic-rx", "--target", "10 GHz", "--vary", "pcix.clock"], "--target"),
    (["solve", "powermac-g5", "--flow", "nic-rx", "--target", "10 Gbit/s", "--vary", "pcix.speed"],
     "no parameter 'speed'"),
    (["solve", "powermac-g5", "--flow", "nic-rx", "--target", "10 Gbit/s", "--vary", "fsb0.clock"],
     "does not cross link 'fsb0'"),
])
def test_cli_errors_are_one_line_and_exit_2(cli, args, words):
    out = cli(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pinchpoint: error: "), out.stderr
    assert words in lines[0]
    assert "Traceback" not in out.stderr


def test_cli_bad_profile_file_is_one_line(cli, tmp_path, toy_text):
    path = tmp_path / "bad.toml"
    text = toy_text.replace('clock = "33 MHz"', 'clock = "33 MHzz"')
    path.write_text(text)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "MHzz" in x)
    out = cli("ceilings", str(path))
    assert out.returncode == 2
    assert out.stderr.strip() == (f"pinchpoint: error: {path} (line {line}): links.pci.clock: "
                                  "'33 MHzz' has an unknown unit 'MHzz'")
