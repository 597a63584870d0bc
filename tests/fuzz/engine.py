"""The fuzzing engine shared by the quick run (tests/fuzz/test_fuzz_quick.py) and the long run
(benchmarks/fuzz.py).

Each format has seed files (every bundled and fixture file of that format) and a target: what a
command does with such a file (load a profile and compute every ceiling and scenario, load a
workload and convolve it, import an iperf3 report ...), ending in the JSON a command would
print.  A case mutates one seed, as a careless user or an attacker would: structured mutations
of the parsed document (deleted keys, swapped types, hostile values: 0, negative, NaN, inf,
1e308, "1e400 Hz", "9**9**9 Hz", empty strings, unknown kinds, self-loops, huge counts, deep
nesting, ``extends`` traversal) and byte mutations of the text (flips, invalid UTF-8, cuts,
5,000-digit numbers).  Outcomes:

- ``ok``: the target ran to the end;
- ``clean``: it raised a PinchpointError (one line, exit 2 at the CLI);
- ``traceback``: any other exception: a crash site, recorded as file:line:function;
- ``hang``: it ran past the time limit (SIGALRM).

Everything is seeded: the same seed gives the same cases.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import signal
import tempfile
import time
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

HOSTILE = [0, -1, 1e308, -1e308, float("nan"), float("inf"), float("-inf"), "", " ", "0", "-1",
           "1e400 Hz", "9**9**9 Hz", "1/0 MHz", "10 ** 400 B/s", "nan GB/s", "inf Gbit/s", "-5 GB/s",
           "0 B", "1e-320 Hz", "1e308 TB/s", "64 bitt", "133 MHzz", True, False, [], {}, [[]],
           {"value": "1 GHz"}, "x" * 5000, 10 ** 18, 2 ** 63 - 1, -(2 ** 63), "unknown-kind",
           "../../../../etc/passwd", "/etc/passwd", "\u0000", "\udcff", "é" * 10, 1.5, 0.5]


class _Refused(Exception):
    """The CLI answered exit 2 with one line: a clean refusal."""


class SilentNonsense(Exception):
    """An answer given with exit 0 that cannot be right (NaN, a zero ceiling, two runs that must
    agree and do not): counted apart from tracebacks (tests/fuzz/extreme.py)."""


class Hang(BaseException):
    """Raised by SIGALRM when a case runs past its limit (BaseException: nothing catches it)."""


@dataclass
class Tally:
    cases: int = 0
    ok: int = 0
    clean: int = 0
    traceback: int = 0
    hang: int = 0
    nonsense: int = 0  # answers given that cannot be right (SilentNonsense)
    unnamed: int = 0  # clean errors that do not name the file they are about
    sites: dict = field(default_factory=dict)  # "file:line:function ExcType" -> count
    examples: dict = field(default_factory=dict)  # site -> a short description of one case

    def add(self, outcome: str, site: str | None = None, example: str = "") -> None:
        self.cases += 1
        setattr(self, outcome, getattr(self, outcome) + 1)
        if site:
            self.sites[site] = self.sites.get(site, 0) + 1
            self.examples.setdefault(site, example)


# --- mutations --------------------------------------------------------------------------------

def _paths(node, prefix=()):
    """Every (path, value) in a nested dict/list document."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _set(doc, path, value):
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def _delete(doc, path):
    node = doc
    for p in path[:-1]:
        node = node[p]
    if isinstance(node, dict):
        del node[path[-1]]
    else:
        node.pop(path[-1])


def _deep(depth: int):
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


def mutate_document(doc, rng: random.Random, *, toml: bool):
    """1-3 structured mutations of a parsed document (a deep copy is returned)."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p, _ in _paths(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        op = rng.random()
        if op < 0.2:
            _delete(doc, path)
        elif op < 0.7:
            value = rng.choice(HOSTILE)
            if toml and (value is None):
                continue
            _set(doc, path, copy.deepcopy(value))
        elif op < 0.78:  # swap a value for another of the document's values
            _set(doc, path, copy.deepcopy(rng.choice([v for _, v in _paths(doc)])))
        elif op < 0.84:  # self-loops and unknown names in lists of names
            parent = doc
            for p in path[:-1]:
                parent = parent[p]
            if isinstance(parent, list) and parent and isinstance(parent[0], str):
                parent[:] = [parent[0]] * len(parent)
            else:
                _set(doc, path, "no-such-thing")
        elif op < 0.88:
            _set(doc, path, _deep(rng.choice([50, 500, 3000])))
        elif op < 0.92 and isinstance(doc, dict):
            doc[rng.choice(["extends", "unknown_key", "schema"])] = rng.choice(
                ["/etc/passwd", "../../x", "powermac-g5", 2, "self"])
        else:  # numbers scaled to extremes
            node = doc
            for p in path[:-1]:
                node = node[p]
            value = node[path[-1]]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                _set(doc, path, rng.choice([value * 1e300, -value, 0, 10 ** 30, 10 ** 400]))
            elif isinstance(value, str):
                _set(doc, path, rng.choice([value * 2, value[:1], value + "e999", "1" * 5000 + value]))
    return doc


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage: flips, invalid UTF-8, cuts, duplicated chunks, huge numbers."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        at = rng.randrange(len(data) + 1)
        if op < 0.25 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op < 0.4:
            data[at:at] = rng.choice([b"\xff\xfe", b"\xc3", b"\x00", b"\xed\xa0\x80"])
        elif op < 0.55:
            data = data[:at]
        elif op < 0.7 and data:
            j = rng.randrange(len(data))
            data[at:at] = data[j:j + rng.randint(1, 200)]
        elif op < 0.85:
            data[at:at] = rng.choice([b"9" * 5000, b"1e400", b"-1", b"nan", b"inf", b"0"])
        else:
            data[at:at] = rng.choice([b"[" * 2000, b"{" * 2000, b'"' * 3, b"\n[[x]]\n", b"&a [*a]"])
    return bytes(data)


# --- formats --------------------------------------------------------------------------------------

def _json_out(obj) -> None:
    """What a command prints: JSON must never hold NaN or infinity (allow_nan=False raises)."""
    from pinchpoint.cli.output import to_json

    to_json(obj)


def _profile_target(path: Path) -> None:
    from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings
    from pinchpoint.inputs.profile_io import load_profile

    profile = load_profile(path)
    out = [c.to_dict() for c in all_ceilings(profile)]
    for name in profile.scenarios:
        out += [c.to_dict() for c in scenario_ceilings(profile, name)]
    _json_out(out)


def _workload_target(path: Path) -> None:
    from pinchpoint.prediction.convolve import convolve
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.inputs.workload import load_workload
    from tests.synthetic_signature import synthetic_signature

    workload = load_workload(path)
    _json_out(convolve(synthetic_signature(), workload, profile=load_profile("server-2024-xeon"),
                       extrapolate=True).to_dict())


def _signature_target(path: Path) -> None:
    from pinchpoint.inputs.signature import load_signature

    _json_out(load_signature(path).to_dict())


def _text(path: Path) -> str:
    from pinchpoint.errors import InputError

    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(path)) from None


def _fio_target(path):
    from pinchpoint.importers import fio

    _json_out(fio.to_signature([(_text(path), str(path))]).to_dict())


def _likwid_target(path):
    from pinchpoint.importers import likwid

    _json_out(likwid.to_signature([(_text(path), str(path))]).to_dict())


def _iperf3_target(path):
    from pinchpoint.importers.iperf3 import load_iperf3

    result = load_iperf3(path)
    _json_out(result.to_dict() if hasattr(result, "to_dict") else vars(result))


def _hwloc_target(path):
    from pinchpoint.measure.hwloc import parse_hwloc_xml

    facts = parse_hwloc_xml(_text(path), file=str(path))
    _json_out(facts.to_dict() if hasattr(facts, "to_dict") else repr(facts))


def _kerncraft_target(path):
    from pinchpoint.importers import kerncraft
    from pinchpoint.inputs.profile import profile_from_document

    machine = kerncraft.load_machine(_text(path), file=str(path))
    profile_from_document(kerncraft.to_profile_document(machine, file=str(path)), file=str(path))
    _json_out(kerncraft.to_signature(machine, file=str(path)).to_dict())


def _csv_target(path):
    from pinchpoint.inputs.concurrency_io import read_series

    _json_out(repr(read_series(str(path))))


@dataclass(frozen=True)
class Format:
    name: str
    seeds: Callable[[], list[Path]]
    target: Callable[[Path], None]
    parse: Callable[[bytes], object] | None  # to a document for structured mutation
    dump: Callable[[object], bytes] | None
    suffix: str


def _toml_load(data: bytes):
    return tomllib.loads(data.decode())


def _toml_dump(doc) -> bytes:
    import tomli_w

    return tomli_w.dumps(doc).encode()


def _json_load(data: bytes):
    return json.loads(data)


def _json_dump(doc) -> bytes:
    return json.dumps(doc).encode()  # NaN and Infinity on purpose: hostile JSON


def _yaml_load(data: bytes):
    import yaml

    return yaml.safe_load(data)


def _yaml_dump(doc) -> bytes:
    import yaml

    return yaml.safe_dump(doc).encode()


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern))


FORMATS = {
    "profiles": Format("profiles", lambda: _files(ROOT / "profiles" / "machines", "*.toml")
                       + _files(FIXTURES / "profiles", "*.toml"), _profile_target, _toml_load, _toml_dump, ".toml"),
    "workloads": Format("workloads", lambda: _files(ROOT / "profiles" / "workloads", "*.toml"),
                        _workload_target, _toml_load, _toml_dump, ".toml"),
    "signatures": Format("signatures", lambda: _files(ROOT / "profiles" / "signatures", "*.json"),
                         _signature_target, _json_load, _json_dump, ".json"),
    "fio": Format("fio", lambda: _files(FIXTURES / "fio", "*.json"), _fio_target, _json_load, _json_dump, ".json"),
    "likwid": Format("likwid", lambda: _files(FIXTURES / "likwid", "*.txt"), _likwid_target, None, None, ".txt"),
    "iperf3": Format("iperf3", lambda: _files(FIXTURES / "iperf3", "*.json"), _iperf3_target, _json_load,
                     _json_dump, ".json"),
    "hwloc": Format("hwloc", lambda: _files(FIXTURES / "hwloc", "*.xml"), _hwloc_target, None, None, ".xml"),
    "kerncraft": Format("kerncraft", lambda: _files(FIXTURES / "kerncraft", "*.yml"), _kerncraft_target,
                        _yaml_load, _yaml_dump, ".yml"),
    "csv": Format("csv", lambda: _files(ROOT / "profiles" / "concurrency", "*.csv"), _csv_target, None, None,
                  ".csv"),
}


_DEEP = {
    ".toml": lambda n: b"schema = 1\nx = " + b"[" * n + b"]" * n + b"\n",
    ".json": lambda n: b'{"schema": 1, "x": ' + b"[" * n + b"]" * n + b"}",
    ".yml": lambda n: b"kerncraft version: 0.8.3\nx: " + b"[" * n + b"]" * n + b"\n",
    ".xml": lambda n: b"<topology>" + b"<object type='Machine'>" * n + b"</object>" * n + b"</topology>",
}


def _site(exc: BaseException) -> str:
    """file:line:function of the deepest frame in pinchpoint's own code, and the exception type."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/model/" in f.filename or "/pinchpoint/" in f.filename]
    f = (ours or frames or [None])[-1]
    where = f"{Path(f.filename).name}:{f.lineno}:{f.name}" if f else "?"
    return f"{where} {type(exc).__name__}"


@contextlib.contextmanager
def _time_limit(seconds: float):
    def on_alarm(signum, frame):
        raise Hang()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_case(call: Callable[[], None], tally: Tally, limit_s: float, example: str,
             must_name: str | None = None) -> str:
    from pinchpoint.errors import PinchpointError

    try:
        with _time_limit(limit_s), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            call()
    except Hang:
        tally.add("hang", "hang", example)
        return "hang"
    except SilentNonsense as exc:
        tally.add("nonsense", f"nonsense: {str(exc)[:100]}", example)
        return "nonsense"
    except (PinchpointError, _Refused) as exc:
        if must_name and must_name not in str(exc):
            tally.unnamed += 1
            tally.examples.setdefault("unnamed", f"{example}: {str(exc)[:120]}")
        tally.add("clean")
        return "clean"
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - classifying is the point
        tally.add("traceback", _site(exc), f"{example} -> {str(exc)[:160]}")
        return "traceback"
    tally.add("ok")
    return "ok"


def fuzz_format(fmt: Format, cases: int, seed: int, *, limit_s: float = 10.0, folder: Path | None = None) -> Tally:
    """Run ``cases`` mutated seeds of one format through its target."""
    rng = random.Random(f"{fmt.name}:{seed}")
    seeds = [(p, p.read_bytes()) for p in fmt.seeds()]
    docs = {}
    if fmt.parse:
        for p, data in seeds:
            docs[p] = fmt.parse(data)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="pinchpoint-fuzz-", dir=folder) as tmp:
        for i in range(cases):
            path, data = rng.choice(seeds)
            structured = fmt.parse is not None and rng.random() < 0.75
            label = f"{fmt.name} #{i} from {path.name} ({'structured' if structured else 'bytes'})"
            if rng.random() < 0.05 and fmt.suffix in _DEEP:  # valid syntax, absurd depth
                data = _DEEP[fmt.suffix](rng.choice([100, 3000, 50000]))
            elif structured:
                try:
                    data = fmt.dump(mutate_document(docs[path], rng, toml=fmt.suffix == ".toml"))
                except (TypeError, ValueError, RecursionError, OverflowError):
                    data = mutate_bytes(data, rng)  # not representable in the format: damage bytes
            else:
                data = mutate_bytes(data, rng)
            case = Path(tmp) / f"case{path.suffix}"
            case.write_bytes(data)
            run_case(lambda: fmt.target(case), tally, limit_s, label, must_name=case.name)
    return tally


# --- the command line -----------------------------------------------------------------------------

_SKIP_COMMANDS = {("measure",), ("detect",)}  # they run kernels or probe the machine for minutes
_VALUES = ["powermac-g5", "toy", "nic-rx", "pcix", "pcix.clock=66MHz..133MHz:3", "1 Gbit/s", "20 ms",
           "1e-6", "0", "-1", "1e400 Hz", "9**9**9 Hz", "inf Gbit/s", "nan", "", "x" * 3000,
           "p690", "stream-triad", "/dev/null", "/nonexistent/x", "pcix.clock=1Hz..1e9Hz:100000000",
           "a=b", "cpu='4 ms'", "2", "10000000000", "1e-300 bit/s", "1e300 Gbit/s", "1e-300 s",
           str(FIXTURES / "profiles" / "toy.toml"),
           str(FIXTURES / "iperf3" / "loopback-tcp-iperf3.12.json")]


def parser_leaves(parser, prefix=()):
    """(subcommand words, parser) for every leaf command of an argparse parser."""
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from parser_leaves(sub, prefix + (name,))


def cli_argv(rng: random.Random, commands) -> list[str]:
    """A random command line: a subcommand, some of its options, values good and hostile."""
    prefix, parser = rng.choice(commands)
    argv = list(prefix)
    for action in parser._actions:
        if action.dest in ("help", "_outputs"):
            continue
        wanted = action.required or not action.option_strings or rng.random() < 0.3
        if not wanted:
            continue
        flag = [rng.choice(action.option_strings)] if action.option_strings else []
        if action.nargs == 0:
            argv += flag
            continue
        if action.choices and rng.random() < 0.7:
            value = str(rng.choice(list(action.choices)))
        else:
            value = rng.choice(_VALUES)
        if getattr(action, "dest", "") in ("output", "csv", "plot"):
            value = rng.choice(["/dev/null", "/nonexistent/x.png", "/tmp", "x.bmp"])  # never a real file
        argv += flag + [value]
    return argv


def fuzz_cli(cases: int, seed: int, *, limit_s: float = 10.0) -> Tally:
    from pinchpoint.cli import build_parser, main

    commands = [(p, sub) for p, sub in parser_leaves(build_parser()) if p[:1] not in {c[:1] for c in _SKIP_COMMANDS}]
    rng = random.Random(f"cli:{seed}")
    tally = Tally()
    for i in range(cases):
        argv = cli_argv(rng, commands)

        def call(argv=argv):
            try:
                rc = main(argv)
            except SystemExit as exc:  # argparse's own usage errors: exit 2, one usage message
                rc = exc.code
            if rc == 2:
                raise _Refused()
            if rc not in (0, None):
                raise RuntimeError(f"exit {rc}")

        run_case(call, tally, limit_s, "pinchpoint " + " ".join(a[:40] for a in argv))
    return tally


def table(results: dict[str, Tally]) -> str:
    rows = ["| input | cases | ok | clean error | traceback | hang | silent nonsense |",
            "|---|---|---|---|---|---|---|"]
    for name, t in results.items():
        rows.append(f"| {name} | {t.cases:,} | {t.ok:,} | {t.clean:,} | {t.traceback:,} | {t.hang:,} | "
                    f"{t.nonsense:,} |")
    return "\n".join(rows)


def timed(fn, *args, **kw):
    start = time.perf_counter()
    return fn(*args, **kw), time.perf_counter() - start
