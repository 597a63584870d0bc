"""Valid-but-extreme documents and metamorphic checks, for the quick run and the long run.

The byte and structure mutations of :mod:`tests.fuzz.engine` mostly break a document; the cases
here keep every document well formed and every value of the right type, and push numbers to the
edges of floating point: 1e300 and 1e-300 times a value, ``inf`` and ``nan`` (legal TOML and
Python-JSON literals), a quantity string scaled the same way ("133 MHz" -> "1.33e+302 MHz").
A case then has three correct outcomes: a clean refusal (a PinchpointError naming the file),
or an answer that is not *silent nonsense*: no NaN or infinity anywhere in what the command
prints, and a ceiling above zero.  ``nan B/s`` with exit 0 is the failure this class exists to
find (a scenario weight of ``inf`` once gave it).

Metamorphic checks compare two runs that must agree without knowing either answer: the same
profile as TOML and as JSON, a workload with every phase's ``repeat`` doubled (the prediction
doubles), a concurrency series scaled by a constant (gamma scales, the verdict does not move).
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
from pathlib import Path

from tests.fuzz.engine import FORMATS, SilentNonsense, Tally, _paths, _set, run_case

#: Factors applied to a number or a quantity: the edges of double precision and beyond.
FACTORS = (1e300, 1e-300, 1e150, 1e-150, 1e30, 1e-30, 1e308, 5e-324, 1e12, 1e-12, 1e6, 1e-6, 1e3, 1e-3)
#: Values put in place of a number outright (legal in TOML and in Python's JSON).
LITERALS = (math.inf, -math.inf, math.nan, 1e308, 5e-324, 10 ** 30, 2 ** 1023)
_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/%][A-Za-z0-9/ ._%*^-]*)$")


class Nonsense(SilentNonsense):
    """An answer with NaN or infinity in it, or a ceiling of zero or less, given with exit 0."""


def extreme_value(value, rng: random.Random):
    """``value`` pushed to an extreme of its own type; None where it has none (a name)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if rng.random() < 0.3:
            return rng.choice(LITERALS)
        factor = rng.choice(FACTORS)
        scaled = value * factor if value else factor
        return int(scaled) if isinstance(value, int) and math.isfinite(scaled) and abs(scaled) >= 1 else scaled
    if isinstance(value, str):
        m = _QUANTITY.match(value)
        if m:
            number = float(m.group(1)) * rng.choice(FACTORS) or rng.choice(FACTORS)
            return f"{number:g} {m.group(2)}"
    return None


def extreme_document(doc, rng: random.Random):
    """A deep copy of ``doc`` with one to three numbers or quantities pushed to an extreme."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        leaves = [(p, v) for p, v in _paths(doc) if p and extreme_value(v, random.Random(0)) is not None]
        if not leaves:
            break
        path, value = rng.choice(leaves)
        _set(doc, path, extreme_value(value, rng))
    return doc


def check_finite(obj, where: str = "") -> None:
    """Raise :class:`Nonsense` at the first NaN or infinity in a printed object."""
    stack = [(where, obj)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            raise Nonsense(f"{path or 'the answer'} is {node!r}")
        if isinstance(node, dict):
            stack += [(f"{path}.{k}", v) for k, v in node.items()]
        elif isinstance(node, (list, tuple)):
            stack += [(f"{path}[{i}]", v) for i, v in enumerate(node)]


# --- targets that judge the answer ----------------------------------------------------------------

def profile_answer(path: Path) -> list[dict]:
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.ceilings import all_ceilings, scenario_ceilings

    profile = load_profile(path)
    out = [c.to_dict() for c in all_ceilings(profile)]
    for name in profile.scenarios:
        out += [c.to_dict() for c in scenario_ceilings(profile, name)]
    return out


def _profile_target(path: Path) -> None:
    out = profile_answer(path)
    check_finite(out)
    for c in out:
        if not c["ceiling_bytes_per_s"] > 0:
            raise Nonsense(f"flow {c['name']}: a ceiling of {c['ceiling_bytes_per_s']!r} B/s")


def workload_answer(path: Path) -> dict:
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.inputs.workload import load_workload
    from pinchpoint.prediction.convolve import convolve
    from tests.synthetic_signature import synthetic_signature

    return convolve(synthetic_signature(), load_workload(path), profile=load_profile("server-2024-xeon"),
                    extrapolate=True).to_dict()


def _workload_target(path: Path) -> None:
    check_finite(workload_answer(path))


def _signature_target(path: Path) -> None:
    from pinchpoint.inputs.signature import load_signature

    check_finite(load_signature(path).to_dict())


def _csv_target(path: Path) -> None:
    from pinchpoint.inputs.concurrency_io import read_series
    from pinchpoint.physics import usl

    for s in read_series(str(path)).series:
        fit = usl.fit(s.clients, s.throughput, series=s.name)
        d = fit.to_dict()
        check_finite({k: v for k, v in d.items() if k not in ("beta_test", "rss", "peak_clients")})


def _kerncraft_target(path: Path) -> None:
    from tests.fuzz.engine import _kerncraft_target as load

    load(path)  # ends in the signature's JSON; the imported profile is validated on the way


#: Format name -> the target that loads a valid-but-extreme case and judges its answer.
TARGETS = {"profiles": _profile_target, "workloads": _workload_target, "signatures": _signature_target,
           "kerncraft": _kerncraft_target, "iperf3": FORMATS["iperf3"].target, "fio": FORMATS["fio"].target}


def _csv_seed_rows(rng: random.Random) -> bytes:
    n = rng.randint(1, 8)
    clients = sorted(rng.sample(range(1, 200), n))
    factor = rng.choice(FACTORS + (1.0,))
    rows = [f"{c},{factor * (50 + 10 * c - 0.05 * c * c):.17g}" for c in clients]
    return ("clients,throughput\n" + "\n".join(rows) + "\n").encode()


def fuzz_extreme(name: str, cases: int, seed: int, *, limit_s: float = 10.0, folder: Path) -> Tally:
    """``cases`` valid-but-extreme documents of one format through its judging target."""
    rng = random.Random(f"extreme:{name}:{seed}")
    tally = Tally()
    if name == "csv":
        for i in range(cases):
            case = folder / f"case{i % 4}.csv"
            case.write_bytes(_csv_seed_rows(rng))
            run_case(lambda: _csv_target(case), tally, limit_s, f"csv extreme #{i}",
                     must_name=case.name)
        return tally
    fmt = FORMATS[name]
    seeds = [(p, fmt.parse(p.read_bytes())) for p in fmt.seeds()]
    for i in range(cases):
        path, doc = rng.choice(seeds)
        try:
            data = fmt.dump(extreme_document(doc, rng))
        except (TypeError, ValueError, OverflowError):
            data = path.read_bytes()  # a value the format cannot hold: the seed itself
        case = folder / f"case{path.suffix}"
        case.write_bytes(data)
        run_case(lambda: TARGETS[name](case), tally, limit_s,
                 f"{name} extreme #{i} from {path.name}", must_name=case.name)
    return tally


# --- metamorphic relations ------------------------------------------------------------------------

class Disagree(SilentNonsense):
    """Two runs that must agree did not."""


def _close(a, b, rel=1e-9) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= rel * max(abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    return a == b


def toml_json_agree(path: Path, folder: Path) -> None:
    """A profile and the same document written as JSON give the same ceilings (or both refuse)."""
    import tomllib

    from pinchpoint.errors import PinchpointError

    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    if "extends" in doc:
        return
    twin = folder / (path.stem + ".json")
    twin.write_text(json.dumps(doc, default=str), encoding="utf-8")
    answers = []
    for p in (path, twin):
        try:
            answers.append(profile_answer(p))
        except PinchpointError as exc:
            answers.append(type(exc).__name__)
    if not _close(answers[0], answers[1]):
        raise Disagree(f"{path.name}: TOML and JSON give different ceilings")


def repeat_doubles_time(path: Path, folder: Path) -> None:
    """Every phase's repeat doubled doubles the predicted time (the counts are linear)."""
    import tomli_w
    import tomllib

    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    for phase in doc.get("phases", []):
        phase["repeat"] = 2 * phase.get("repeat", 1)
    twin = folder / path.name
    twin.write_bytes(tomli_w.dumps(doc).encode())
    one, two = (workload_answer(p)["predicted_s"]["estimate"] for p in (path, twin))
    if not math.isclose(2 * one, two, rel_tol=1e-9):
        raise Disagree(f"{path.name}: repeat x 2 gives {two!r} s, not 2 x {one!r} s")


def scale_is_scale_free(rng: random.Random) -> None:
    """A series times a constant: gamma times it, alpha, beta and the verdict unchanged."""
    import numpy as np

    from pinchpoint.physics import usl

    n = np.array(sorted(rng.sample(range(1, 64), rng.randint(4, 12))), float)
    x = usl.usl(n, rng.uniform(1, 500), rng.uniform(0, 0.3), rng.uniform(0, 0.01)) * rng.uniform(0.9, 1.1)
    factor = rng.choice(FACTORS[:6])
    a, b = usl.fit(n, x), usl.fit(n, x * factor)
    if a.retrograde != b.retrograde or not math.isclose(a.gamma.value * factor, b.gamma.value, rel_tol=1e-5):
        raise Disagree(f"x {factor:g}: gamma {a.gamma.value:.6g} -> {b.gamma.value:.6g}, "
                       f"retrograde {a.retrograde} -> {b.retrograde}")


def fuzz_metamorphic(cases: int, seed: int, *, limit_s: float = 10.0, folder: Path) -> Tally:
    """``cases`` metamorphic checks over bundled profiles, workloads and synthetic series."""
    rng = random.Random(f"metamorphic:{seed}")
    profiles = FORMATS["profiles"].seeds()
    workloads = FORMATS["workloads"].seeds()
    tally = Tally()
    for i in range(cases):
        kind = i % 3
        if kind == 0:
            path = rng.choice(profiles)
            call, label = (lambda p=path: toml_json_agree(p, folder)), f"TOML = JSON: {path.name}"
        elif kind == 1:
            path = rng.choice(workloads)
            call, label = (lambda p=path: repeat_doubles_time(p, folder)), f"repeat x 2: {path.name}"
        else:
            sub = random.Random(rng.random())
            call, label = (lambda r=sub: scale_is_scale_free(r)), f"scale-free USL #{i}"
        run_case(call, tally, limit_s, label)
    return tally
