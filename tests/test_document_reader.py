"""The shared document reader: every refusal is the format's error type, names the file and the
key path, and says what was expected; models name parameters and the CLI shows flags."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pinchpoint.inputs.document import Reader, key_path
from pinchpoint.errors import InputError, ProfileError, SignatureError, UnitError, WorkloadError

MODEL = Path(__file__).resolve().parents[1] / "model"


@pytest.fixture
def doc():
    return Reader("w.toml", WorkloadError)


def refused(call, *args, **kwargs):
    with pytest.raises(WorkloadError) as info:
        call(*args, **kwargs)
    return info.value


def test_key_paths():
    assert key_path(None, "a") == "a" and key_path("", "a") == "a"
    assert key_path("a", "b") == "a.b" and key_path("a.b", 3) == "a.b[3]"


@pytest.mark.parametrize("call, key, words", [
    (lambda d: d.table([1], "phases[0]"), "phases[0]", "expected a table, got [1]"),
    (lambda d: d.table({"x": 1}, "t", ("a", "b")), "t.x", "unknown key 'x' (allowed: a, b)"),
    (lambda d: d.table({}, "t", ("a",), ("a",)), "t.a", "missing"),
    (lambda d: d.list("x", "l", non_empty=True), "l", "must be a non-empty list"),
    (lambda d: d.list([], "l", non_empty=True), "l", "must be a non-empty list"),
    (lambda d: d.text(5, "name"), "name", "5 is not a string"),
    (lambda d: d.text_field({}, "kind", "c", required=True), "c.kind", "missing (expected a string)"),
    (lambda d: d.number("2", "n"), "n", "'2' is not a number"),
    (lambda d: d.number(True, "n"), "n", "True is not a number"),
    (lambda d: d.number(10 ** 400, "n"), "n", "is not a finite number"),
    (lambda d: d.number(-1, "n", minimum=0), "n", "-1 is negative"),
    (lambda d: d.number(0, "rtt", what="round-trip time", positive=True), "rtt",
     "round-trip time must be greater than zero, got 0"),
    (lambda d: d.number(2.5, "n", integer=True), "n", "2.5 is not a whole number"),
    (lambda d: d.whole(0, "streams", minimum=1), "streams", "expected a whole number >= 1, got 0"),
    (lambda d: d.quantity(4096, "size", "ws"), "ws", "must be a string with a unit"),
    (lambda d: d.quantity("1 MHz", "size", "ws"), "ws", "not a size"),
    (lambda d: d.quantity("-1 KiB", "size", "ws"), "ws", "negative"),
    (lambda d: d.quantity("0 B", "size", "ws", positive=True), "ws", "greater than zero"),
    (lambda d: d.choice("strided", ("stride1", "random"), "p"), "p", "'strided' is not one of stride1, random"),
])
def test_every_refusal_names_file_key_and_expectation(doc, call, key, words):
    err = refused(call, doc)
    assert (err.file, err.key) == ("w.toml", key)
    assert words in err.message
    assert str(err).startswith(f"w.toml: {key}: ")


def test_getters_return_checked_si_values(doc):
    assert doc.quantity("4 KiB", "size", "k") == 4096.0
    assert doc.number(3, "k", minimum=0, integer=True) == 3.0
    assert doc.choice("a", ("a", "b"), "k") == "a"
    assert doc.text_field({}, "name", "k") is None and doc.text_field({"name": "x"}, "name", "k") == "x"
    assert doc.field({"a": 1}, "a", "k") == 1 and doc.field({}, "a", "k", default=2) == 2


def test_json_documents_say_object():
    with pytest.raises(SignatureError, match="expected an object"):
        Reader("s.json", SignatureError, json=True).table(1, "host")


def test_adopt_turns_a_helper_error_into_the_format_error():
    unit = UnitError("'1 MHz' is not a size")
    err = Reader("p.toml", ProfileError).adopt(unit, "links.pci.width")
    assert type(err) is ProfileError
    assert str(err) == "p.toml: links.pci.width: '1 MHz' is not a size"
    keyed = UnitError("bad", key="a.b", line=3)
    err = Reader("p.toml", ProfileError).adopt(keyed, "ignored")
    assert (err.key, err.line) == ("a.b", 3)


def test_located_fills_what_is_missing_and_changes_kind():
    err = UnitError("bad", key="x").located(file="f.toml", line=7, kind=InputError)
    assert type(err) is InputError and (err.file, err.key, err.line) == ("f.toml", "x", 7)
    kept = ProfileError("bad", file="a.toml", line=2).located(file="b.toml", line=9)
    assert (kept.file, kept.line) == ("a.toml", 2)


def _flag_keys(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str) and node.value.value.startswith("--"):
            yield node.lineno, node.value.value
        if isinstance(node, ast.arguments):
            for arg, default in zip(node.kwonlyargs, node.kw_defaults):
                if arg.arg == "key" and isinstance(default, ast.Constant) and str(default.value).startswith("--"):
                    yield default.lineno, default.value


def test_models_name_parameters_not_flags():
    """Errors raised outside model/cli/ carry a parameter name as their key, never a flag."""
    found = []
    for path in MODEL.rglob("*.py"):
        if "cli" in path.relative_to(MODEL).parts:
            continue
        for line, key in _flag_keys(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(MODEL)}:{line}: key={key!r}")
    assert found == []


@pytest.mark.parametrize("argv, words", [
    (["sweep", "powermac-g5", "--flow", "nic-rx", "--vary", "pcix.clock=266MHz..66MHz:41"], "--vary pcix.clock: "),
    (["compare", "powermac-g5", "--flow", "warp"], "--flow: "),
])
def test_the_cli_shows_the_flag_of_a_parameter(capsys, argv, words):
    from pinchpoint.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.splitlines()) == 1


def test_a_file_key_is_never_taken_for_a_flag():
    from pinchpoint.cli.flags import as_flag

    in_file = InputError("bad", file="x.toml", key="flow")
    assert as_flag(in_file, {"flow": "--flow"}) is in_file
    assert str(as_flag(InputError("bad", key="flow"), {"flow": "--flow"})) == "--flow: bad"
    assert str(as_flag(InputError("bad", key="window_bytes"), {"flow": "--flow"})) == "window_bytes: bad"
