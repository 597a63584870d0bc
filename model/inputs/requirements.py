"""A purchase question as data: the needs a machine must meet and the candidates to choose from.

A plan file (TOML, ``schema = 1``; unknown keys are errors)::

    schema = 1
    name = "8-GPU training server"          # optional
    description = "..."                     # optional

    [[needs]]                               # one or more
    name = "gpu-feed"                       # optional; default "need N"
    flows = "h2d-gpu*"                      # a flow name, a glob, or a list of them;
    # scenario = "all-nics-to-mem0"         # or a scenario of the profile (its flows, its weights)
    rate = "50 GB/s"                        # every flow must reach this ...
    # total = "400 GB/s"                    # ... or the flows together must reach this
    at_once = true                          # the flows share the machine (default: true when
                                            # several flows match); false: each flow alone
    basis = "effective"                     # after protocol overhead (default) or "raw"
    # workload = "daxpy-dram"               # or: a workload's predicted time ...
    # deadline = "2 ms"                     # ... must stay under this, on the candidate's
    # signature = "p690"                    # signature (or this one)

    [[candidates]]                          # fixed machines, any number
    profile = "hgx-h100-8gpu"               # bundled name or path (relative to this file)
    name = "hgx"                            # optional; default: the profile's name
    price = 310000                          # optional: a positive amount (any currency)
    signature = "..."                       # optional: for workload needs

    [base]                                  # optional: a space of options around one profile
    profile = "hgx-h100-8gpu"
    price = 250000
    name = "hgx"                            # prefix of the generated names

    [options.pcie]                          # an option set: choose one of its entries
    gen4 = { set = { "up*.generation" = 4 } }
    gen5 = { set = { "up*.generation" = 5 }, price = 12000 }   # price: added to the base's
    [options.gpus]
    nvlink = {}                             # the base as it is
    pcie = { profile = "pcie-8gpu-server", price = -40000 }    # another base profile

``set`` keys are ``ID.PARAM``: ID a link or component id or a glob of them, PARAM one of its
parameters; values are written as in a profile ("3200 MHz", 12).  The candidate space is the
product of the option sets (at most :data:`MAX_CANDIDATES`).  Every refusal is one
:class:`~pinchpoint.errors.InputError` naming the file and the key.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pinchpoint.errors import InputError, shown
from pinchpoint.frozen import freeze_map
from pinchpoint.inputs.document import Reader, key_path
from pinchpoint.inputs.input_text import parse_bounded, read_text

#: The largest candidate space a plan evaluates (the product of the option sets' sizes).
MAX_CANDIDATES = 100_000

BASES = ("effective", "raw")


@dataclass(frozen=True)
class Need:
    """One requirement: flows with a rate, or a workload with a deadline."""

    name: str
    flows: tuple[str, ...] = ()          # names or globs
    scenario: str | None = None
    rate_bytes_per_s: float | None = None    # every flow
    total_bytes_per_s: float | None = None   # the flows together
    at_once: bool | None = None          # None: true when several flows match
    basis: str = "effective"
    workload: str | None = None
    deadline_s: float | None = None
    signature: str | None = None
    convention: str = "memory"           # "network": the rate was written in bit/s, and prints so

    @property
    def kind(self) -> str:
        return "workload" if self.workload else "rate"


@dataclass(frozen=True)
class Choice:
    """One entry of an option set: what it changes and what it adds to the price."""

    name: str
    set: Mapping[str, object] = field(default_factory=dict)   # "ID.PARAM" -> profile value
    profile: str | None = None           # another base profile
    price: float = 0.0
    key: str = ""                        # where it was written (for errors)

    def __post_init__(self):
        object.__setattr__(self, "set", freeze_map(self.set))


@dataclass(frozen=True)
class OptionSet:
    name: str
    choices: tuple[Choice, ...]


@dataclass(frozen=True)
class CandidateSpec:
    """A fixed candidate: a profile, with a price and a signature where given."""

    profile: str
    name: str | None = None
    price: float | None = None
    signature: str | None = None
    key: str = ""


@dataclass(frozen=True)
class Space:
    """Candidates generated from a base profile: the product of the option sets."""

    profile: str
    name: str
    price: float | None
    signature: str | None
    options: tuple[OptionSet, ...]

    @property
    def size(self) -> int:
        return math.prod(len(o.choices) for o in self.options)


@dataclass(frozen=True)
class PlanSpec:
    """A whole plan file: needs, fixed candidates and an option space."""

    needs: tuple[Need, ...]
    candidates: tuple[CandidateSpec, ...] = ()
    space: Space | None = None
    name: str = "plan"
    description: str | None = None
    file: str | None = None
    folder: Path | None = None           # relative profile paths are read from here

    def with_candidates(self, extra) -> "PlanSpec":
        return PlanSpec(self.needs, self.candidates + tuple(extra), self.space, self.name,
                        self.description, self.file, self.folder)


# --- reading --------------------------------------------------------------------------------

_NEED_KEYS = ("name", "flows", "scenario", "rate", "total", "at_once", "basis", "workload", "deadline",
              "signature")


def _price(r: Reader, value, key: str, *, delta: bool = False) -> float:
    """A price: a positive amount; an option's price may also be 0 or negative (a saving)."""
    if delta:
        return r.number(value, key, what="a price difference")
    return r.number(value, key, what="a price", positive=True)


def _flows(r: Reader, value, key: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else r.list(value, key, non_empty=True)
    return tuple(r.text(v, key_path(key, i) if not isinstance(value, str) else key, non_empty=True)
                 for i, v in enumerate(items))


# long: one check per optional key of a need, in the order the plan file documents them
def _need(r: Reader, raw, i: int) -> Need:
    key = f"needs[{i}]"
    t = r.table(raw, key, _NEED_KEYS)
    name = r.text_field(t, "name", key) or f"need {i + 1}"
    if "workload" in t:
        for other in ("flows", "scenario", "rate", "total", "at_once"):
            if other in t:
                raise r.error(key_path(key, other), "a workload need has a deadline, not flows or rates")
        if "deadline" not in t:
            raise r.error(key_path(key, "deadline"), "missing (expected a time, e.g. \"2 ms\")")
        return Need(name, workload=r.text(t["workload"], key_path(key, "workload"), non_empty=True),
                    deadline_s=r.quantity(t["deadline"], "time", key_path(key, "deadline"), positive=True),
                    signature=r.text_field(t, "signature", key))
    if ("flows" in t) == ("scenario" in t):
        raise r.error(key_path(key, "flows"), "give either flows or scenario (or a workload and a deadline)")
    if ("rate" in t) == ("total" in t):
        raise r.error(key_path(key, "rate"), "give either rate (every flow) or total (the flows together)")
    for stray in ("deadline", "signature"):
        if stray in t:
            raise r.error(key_path(key, stray), "only a workload need has this")
    at_once = t.get("at_once")
    if at_once is not None and not isinstance(at_once, bool):
        raise r.error(key_path(key, "at_once"), f"expected true or false, got {shown(at_once)}")
    rate = total = None
    text = str(t.get("rate", t.get("total")))
    convention = "network" if "bit" in text or text.rstrip().lower().endswith("bps") else "memory"
    if "rate" in t:
        rate = r.quantity(t["rate"], "bandwidth", key_path(key, "rate"), positive=True)
    else:
        total = r.quantity(t["total"], "bandwidth", key_path(key, "total"), positive=True)
    if not math.isfinite(rate or total):
        raise r.error(key_path(key, "rate" if rate else "total"), "must be a finite rate")
    return Need(name, flows=_flows(r, t["flows"], key_path(key, "flows")) if "flows" in t else (),
                scenario=r.text_field(t, "scenario", key), rate_bytes_per_s=rate, total_bytes_per_s=total,
                at_once=at_once, basis=r.choice(t.get("basis", "effective"), BASES, key_path(key, "basis")),
                convention=convention)


def _choice(r: Reader, name: str, raw, key: str) -> Choice:
    t = r.table(raw, key, ("set", "profile", "price"))
    changes = r.table(t.get("set", {}), key_path(key, "set"))
    for target in changes:
        ident, dot, param = str(target).rpartition(".")
        if not dot or not ident or not param:
            raise r.error(key_path(key_path(key, "set"), target), "expected ID.PARAM (e.g. \"up*.generation\")")
    price = _price(r, t["price"], key_path(key, "price"), delta=True) if "price" in t else 0.0
    return Choice(name, dict(changes), r.text_field(t, "profile", key), price, key)


def _space(r: Reader, base, options) -> Space:
    t = r.table(base, "base", ("profile", "price", "name", "signature"), required=("profile",))
    profile = r.text(t["profile"], "base.profile", non_empty=True)
    sets = []
    for oname, raw in r.table(options or {}, "options").items():
        key = key_path("options", oname)
        entries = r.table(raw, key)
        if not entries:
            raise r.error(key, "an option set needs at least one choice")
        sets.append(OptionSet(oname, tuple(_choice(r, c, v, key_path(key, c)) for c, v in entries.items())))
    space = Space(profile, r.text_field(t, "name", "base") or profile,
                  _price(r, t["price"], "base.price") if "price" in t else None,
                  r.text_field(t, "signature", "base"), tuple(sets))
    if space.size > MAX_CANDIDATES:
        raise r.error("options", f"the option sets make {space.size:,} candidates; at most "
                                 f"{MAX_CANDIDATES:,} are evaluated (fewer choices, or split the plan)")
    return space


def _candidate(r: Reader, raw, i: int) -> CandidateSpec:
    key = f"candidates[{i}]"
    t = r.table(raw, key, ("profile", "name", "price", "signature"), required=("profile",))
    return CandidateSpec(r.text(t["profile"], key_path(key, "profile"), non_empty=True),
                         r.text_field(t, "name", key),
                         _price(r, t["price"], key_path(key, "price")) if "price" in t else None,
                         r.text_field(t, "signature", key), key)


def plan_from_document(doc: Mapping, *, file: str | None = None, folder: Path | None = None) -> PlanSpec:
    """A :class:`PlanSpec` from a parsed plan document (checked here, once)."""
    r = Reader(file, InputError)
    r.table(doc, None, ("schema", "name", "description", "needs", "candidates", "base", "options"),
            required=("needs",))
    if doc.get("schema", 1) != 1:
        raise r.error("schema", f"expected 1, got {shown(doc.get('schema'))}")
    needs = tuple(_need(r, n, i) for i, n in enumerate(r.list(doc["needs"], "needs", non_empty=True)))
    cands = tuple(_candidate(r, c, i) for i, c in enumerate(r.list(doc.get("candidates", []), "candidates")))
    if "options" in doc and "base" not in doc:
        raise r.error("base", "missing: option sets need a base profile ([base] profile = ...)")
    space = _space(r, doc["base"], doc.get("options")) if "base" in doc else None
    return PlanSpec(needs, cands, space, r.text_field(doc, "name", None) or (Path(file).stem if file else "plan"),
                    r.text_field(doc, "description", None), file, folder)


def load_plan(path: str | Path) -> PlanSpec:
    """Read a plan file (TOML)."""
    path = Path(path)
    text = read_text(path, InputError)
    try:
        doc = parse_bounded(tomllib.loads, text, InputError, file=str(path))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"TOML syntax error: {exc}", file=str(path)) from None
    return plan_from_document(doc, file=str(path), folder=path.resolve().parent)
