"""A probe record: the JSON object ``pinchpoint probe --json`` writes, read back and checked.

The record is kept as a plain dict (what the report renders), but only after its shape is
checked here, so a page is never built from a half-understood file: ``host.facts`` is a list of
``{name, value, source}``, ``tcp_info`` an object of figures, ``verdict`` an object with the
verdict, its binding ceiling and every ceiling.  A missing or unreadable file, text that is not
JSON, or a wrong shape is one :class:`~pinchpoint.errors.InputError` naming the file, the key
and what was expected.  Keys this reader does not know are kept: a newer probe may add some.
"""

from __future__ import annotations

import json

from pinchpoint.errors import InputError
from pinchpoint.inputs.document import Reader, key_path
from pinchpoint.inputs.input_text import parse_bounded, read_text

#: What the messages say the file should be.
EXPECTED = "a probe record written by 'pinchpoint probe --json'"

#: Keys of a verdict's ceiling (one ``Limit.to_dict()``) the report reads, and their types.
_LIMIT_TEXT = ("name", "kind")
_LIMIT_NUMBERS = ("ceiling_bytes_per_s",)
_LIMIT_OPTIONAL_NUMBERS = ("raw_ceiling_bytes_per_s", "rough_ceiling_bytes_per_s")


def read_probe_record(path) -> dict:
    """The probe record in the JSON file ``path``, checked (see the module's docstring).

    Raises
    ------
    InputError
        The file cannot be read, is not JSON, or is not a probe record (file and key named).
    """
    try:
        text = read_text(path, InputError)
    except InputError as exc:
        raise InputError(f"{exc.message}; expected {EXPECTED}", file=str(path)) from None
    try:
        data = parse_bounded(json.loads, text, InputError, file=str(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg}); expected {EXPECTED}", file=str(path), line=exc.lineno) from None
    return check_probe_record(data, file=str(path))


def check_probe_record(data, *, file: str | None = None) -> dict:
    """``data`` if it has the shape of a probe record, else an InputError naming the key."""
    doc = Reader(file, InputError, json=True)
    if not isinstance(data, dict):
        raise doc.error(None, f"expected {EXPECTED} (a JSON object), got {type(data).__name__}")
    meta = data.get("pinchpoint")
    if isinstance(meta, dict) and meta.get("command") not in (None, "probe"):
        raise doc.error("pinchpoint.command", f"written by 'pinchpoint {meta.get('command')}', expected {EXPECTED}")
    if "host" not in data:
        raise doc.error("host", f"missing (expected {EXPECTED})")
    _host(doc, data["host"])
    info = data.get("tcp_info")
    if info is not None:
        doc.table(info, "tcp_info")
        for name, value in info.items():
            if isinstance(value, bool) or (value is not None and not isinstance(value, (int, float, str))):
                raise doc.error(key_path("tcp_info", name), f"expected a number or a name, got {value!r:.60}")
    command = data.get("iperf3_command")
    if command is not None:
        for i, word in enumerate(doc.list(command, "iperf3_command")):
            doc.text(word, key_path("iperf3_command", i))
    if data.get("run") is not None:
        doc.table(data["run"], "run")
    if data.get("tcp_info_bound") is not None:
        bound = doc.table(data["tcp_info_bound"], "tcp_info_bound", required=("limit", "share", "what"))
        doc.text(bound["limit"], "tcp_info_bound.limit")
        doc.number(bound["share"], "tcp_info_bound.share", minimum=0)
        doc.text(bound["what"], "tcp_info_bound.what")
    if data.get("verdict") is not None:
        _verdict(doc, data["verdict"])
    return data


def _texts(doc: Reader, table: dict, name: str, key: str) -> None:
    """``table[name]``, where present, as a list of strings."""
    if table.get(name) is not None:
        for i, item in enumerate(doc.list(table[name], key_path(key, name))):
            doc.text(item, key_path(key_path(key, name), i))


def _host(doc: Reader, host) -> None:
    doc.table(host, "host", required=("facts",))
    if host.get("interface") is not None:
        doc.text(host["interface"], "host.interface")
    for i, fact in enumerate(doc.list(host["facts"], "host.facts")):
        where = key_path("host.facts", i)
        doc.table(fact, where, required=("name", "value", "source"))
        doc.text(fact["name"], f"{where}.name", non_empty=True)
        doc.text(fact["source"], f"{where}.source")
    for name in ("findings", "warnings"):
        _texts(doc, host, name, "host")


def _limit(doc: Reader, limit, key: str) -> None:
    doc.table(limit, key, required=_LIMIT_TEXT + _LIMIT_NUMBERS)
    for name in _LIMIT_TEXT:
        doc.text(limit[name], f"{key}.{name}")
    for name in _LIMIT_NUMBERS:
        doc.number(limit[name], f"{key}.{name}", minimum=0)
    for name in _LIMIT_OPTIONAL_NUMBERS:
        if limit.get(name) is not None:
            doc.number(limit[name], f"{key}.{name}", minimum=0)
    for name in ("formula", "note"):
        if limit.get(name) is not None:
            doc.text(limit[name], f"{key}.{name}")


def _verdict(doc: Reader, verdict) -> None:
    doc.table(verdict, "verdict", required=("measured_bytes_per_s", "verdict", "limited_by", "binding", "ceilings",
                                            "efficiency"))
    doc.number(verdict["measured_bytes_per_s"], "verdict.measured_bytes_per_s", minimum=0)
    doc.number(verdict["efficiency"], "verdict.efficiency", minimum=0)
    doc.text(verdict["verdict"], "verdict.verdict", non_empty=True)
    doc.text(verdict["limited_by"], "verdict.limited_by")
    _limit(doc, verdict["binding"], "verdict.binding")
    for i, limit in enumerate(doc.list(verdict["ceilings"], "verdict.ceilings")):
        _limit(doc, limit, key_path("verdict.ceilings", i))
    for i, limit in enumerate(doc.list(verdict.get("set_aside") or [], "verdict.set_aside")):
        _limit(doc, limit, key_path("verdict.set_aside", i))
    for name in ("causes", "advice", "notes"):
        _texts(doc, verdict, name, "verdict")
    for name in ("protocol", "side"):
        if verdict.get(name) is not None:
            doc.text(verdict[name], f"verdict.{name}")
