"""What a kind of link is made of: its parameters (:class:`Param`) and the one registry entry
(:class:`LinkKind`) that holds everything that differs between kinds.

The entries themselves are in :mod:`pinchpoint.physics.linkkinds` (and the PCIe family's parts in
:mod:`pinchpoint.physics.pcie_family`); these types sit below both, so that neither imports the other.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Mapping, Protocol

from pinchpoint.physics.linkkind_samples import sample_table

#: The two ways a transfer crosses a link that prices them differently (PCIe): ``"write"`` (posted:
#: the data travels with the request) and ``"read"`` (requests one way, completions with the data
#: the other way).  Links whose kind makes no difference price both alike.
OPS = ("write", "read")


@dataclass(frozen=True)
class Param:
    """One parameter of a link or component kind.

    ``dimension`` is a key of :data:`pinchpoint.physics.units.DIMENSIONS`; ``integer`` parameters take
    plain whole numbers (lanes, generation); ``default`` (an SI float) is used when absent.
    """

    name: str
    dimension: str
    doc: str
    default: float | None = None
    integer: bool = False
    required: bool = True
    positive: bool = True
    minimum: float | None = None  # smallest valid value, SI, inclusive
    maximum: float | None = None  # largest valid value (fractions: 1)
    maximum_included: bool = True  # False: values must stay below ``maximum``
    choices: tuple[float, ...] = ()  # the only values allowed (PCIe lane counts)
    # any finite value above zero will do (most rates, sizes, clocks): problem() answers at once,
    # as it is asked of every value of every link
    _plain: bool = field(init=False, repr=False, compare=False, default=False)

    def __post_init__(self):
        object.__setattr__(self, "_plain", self.positive and not self.integer and not self.choices
                           and self.minimum is None and self.maximum is None)

    @property
    def optional(self) -> bool:
        return self.default is not None or not self.required

    # long: the one place where valid ranges live: one check per rule (finite, positive, integer, bounds, choices)
    def problem(self, si: float, *, whole: bool = True) -> str | None:
        """Why ``si`` [SI units] is not a valid value of this parameter, or None when it is.

        The one place where valid ranges live: every value is finite; positive parameters
        (rates, sizes, clocks, counts) are above zero, the others at least zero; integer ones
        whole and one of their ``choices`` where given (unless ``whole`` is False: what-if
        questions may ask about 5.3 lanes); within ``minimum`` .. ``maximum`` (a share of 1
        leaves no time for data).  (One rule a line, in the order a message should name them:
        kept as one function on purpose.)
        """
        if self._plain and 0 < si < math.inf:  # nan fails both comparisons
            return None
        if not math.isfinite(si):
            return "is not finite"
        if self.positive and si <= 0:
            return "must be greater than zero"
        if si < 0:
            return "must not be negative"
        if whole and self.integer and si != int(si):
            return "must be a whole number"
        if whole and self.choices and si not in self.choices:
            return "expected one of " + ", ".join(f"{c:g}" for c in self.choices)
        if self.minimum is not None and si < self.minimum:
            return f"must be at least {self.minimum:g}"
        if self.maximum is not None:
            if si > self.maximum or (si == self.maximum and not self.maximum_included):
                return f"must be {'at most' if self.maximum_included else 'below'} {self.maximum:g}"
        return None


class LinkReader(Protocol):
    """What a kind's ``defaults`` hook may use to read its text keys from a link's table: errors
    located at ``links.ID.SUBKEY`` and the document reader's own checks (the profile reader passes
    one in)."""

    def error(self, subkey: str, message: str) -> Exception: ...

    def check_keys(self, table: Mapping, allowed: set[str], subkey: str) -> None: ...

    def text(self, table: Mapping, name: str, subkey: str) -> str | None: ...


@dataclass(frozen=True)
class LinkKind:
    """A kind of link: everything that differs from one kind to another, in one entry.

    Adding a kind (NVLink, CXL ...) means adding one entry to
    :data:`pinchpoint.physics.linkkinds.KINDS`, or calling :func:`pinchpoint.physics.linkkinds.register`
    from outside the package: the profile reader, graph, ceilings, explanations, what-if and
    sweeps, diagnose's advice, the report and the property tests' strategies read it from there.

    Hooks beyond the formula (all optional):

    ``efficiency(values)``
        the share of the raw capacity left for payload written one way (posted writes);
        ``read_efficiency(values)`` the same for reads, where they differ (PCIe: completions
        bring the data); ``reverse_cost(values, op)`` the bytes the other direction carries per
        payload byte (PCIe: read requests, ACK and flow-control DLLPs), as a share of its raw
        capacity; ``read_bound(values)`` a bound on one requester's reads through the link
        [B/s] (outstanding requests x round trip), or None.
    ``text_keys``
        keys of a link's table that are not parameters but fill parameter defaults
        (a PCIe ``generation``); ``defaults(table, reader)`` returns the table with them filled.
    ``check(values)``
        a problem of the parameters together, as ``(parameter, message)``, or None (a CXL flit
        carries at most its own size); single values are checked by :meth:`Param.problem`.
    ``owners``
        parameters a component at one end states for the link (component kind -> (the
        component's parameter, the link's parameter)): an Ethernet port's rate is its NIC's
        ``line_rate``; the reader fills the link from it, or refuses a disagreement naming both.
    ``peer``
        a device-to-device fabric (NVLink): traffic between two devices it joins stays on it.
    ``bound_advice(values, raw_bytes_per_s, net)``
        what diagnose advises when a link of this kind binds a measured figure (None: nothing
        beyond ``advice``); ``net`` formats a rate.
    ``memory`` / ``memory_path``
        the link is DRAM itself (a measured memory bandwidth stands beside its capacity) /
        carries a CPU's memory traffic (drawn as a theoretical memory ceiling in reports).
    ``sample``
        a random valid parameter table (document form) for property tests, drawn with a
        ``random.Random``: a callable ``sample(rng)``, or an object with ``draw(kind, rng)``;
        default: :func:`pinchpoint.physics.linkkind_samples.sample_table`.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    capacity: Callable[[Mapping], object]
    formula: str
    duplex: Callable[[Mapping], str] = field(default=lambda p: "full")
    efficiency: Callable[[Mapping], object] | None = None
    efficiency_formula: str = ""
    # the efficiency where a profile states a transfer size (and cost): per transfer, not a stream
    transfer_formula: str = ""
    network: bool = False  # format figures in bit/s rather than B/s
    source: str = ""
    advice: str = ""  # what raises this link's ceiling, for verdicts and reports
    # effective capacity each way [B/s] while writes go one way and reads the other (None: the
    # directions are independent); kept for callers: the solvers count the reverse traffic itself
    both_ways: Callable[[Mapping], object] | None = None
    read_efficiency: Callable[[Mapping], object] | None = None
    read_efficiency_formula: str = ""
    reverse_cost: Callable[[Mapping, str], object] | None = None
    read_bound: Callable[[Mapping], float | None] | None = None
    owners: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    peer: bool = False
    example: Mapping[str, object] = field(default_factory=dict)  # a valid parameter table (tests use it)
    text_keys: frozenset[str] = frozenset()
    defaults: Callable[[dict, LinkReader], dict] | None = None
    check: Callable[[Mapping[str, float]], tuple[str, str] | None] | None = None
    bound_advice: Callable[[Mapping[str, float], float, Callable[[float], str]], str | None] | None = None
    memory: bool = False
    memory_path: bool = False
    sample: object | None = None
    valid_values: Mapping[str, tuple[float, ...]] = field(default_factory=dict)  # discrete values for solve
    by_name: Mapping[str, Param] = field(init=False, repr=False, compare=False, default=None)
    required: tuple[str, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self):
        by_name = {p.name: p for p in self.params}
        if len(by_name) != len(self.params):
            raise ValueError(f"link kind {self.name!r}: two parameters share a name")
        clash = self.text_keys & set(by_name)
        if clash:
            raise ValueError(f"link kind {self.name!r}: {sorted(clash)} is both a parameter and a text key")
        if self.text_keys and self.defaults is None:
            raise ValueError(f"link kind {self.name!r}: text keys need a defaults hook that reads them")
        unknown = set(self.example) - set(by_name) - self.text_keys
        if unknown:
            raise ValueError(f"link kind {self.name!r}: example has unknown keys {sorted(unknown)}")
        for kind, (_, param) in self.owners.items():
            if param not in by_name:
                raise ValueError(f"link kind {self.name!r}: owners names {param!r}, not a parameter")
        object.__setattr__(self, "by_name", by_name)
        object.__setattr__(self, "required", tuple(p.name for p in self.params if p.required))

    # The names the reader used before they were public (kept for outside callers).
    @property
    def _by_name(self) -> Mapping[str, Param]:
        return self.by_name

    @property
    def _required(self) -> tuple[str, ...]:
        return self.required

    def param(self, name: str) -> Param:
        return self.by_name[name]

    def has_param(self, name: str) -> bool:
        return name in self.by_name

    def efficiency_for(self, op: str) -> Callable[[Mapping], object] | None:
        """The efficiency of transfers of kind ``op`` ("write" or "read")."""
        if op == "read" and self.read_efficiency is not None:
            return self.read_efficiency
        return self.efficiency

    def random_table(self, rng: random.Random) -> dict:
        """A random valid parameter table of this kind (see ``sample``)."""
        if self.sample is None:
            return sample_table(self, rng)
        draw = getattr(self.sample, "draw", None)
        return draw(self, rng) if draw is not None else self.sample(rng)
