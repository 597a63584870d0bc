"""Read a Callgrind profile (``callgrind.out``) into per-instruction event counts.

Callgrind (Valgrind's call-graph tool; Weidendorfer, "Sequential Performance Analysis with
Callgrind and KCachegrind", Parallel Tools Workshop 2008) with ``--cache-sim=yes
--simulate-wb=yes --dump-instr=yes`` writes, for every executed instruction, the events
``Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw``: instructions, data reads and
writes, first-level and last-level misses, and last-level misses that evict a dirty line
(a write-back).  With ``--branch-sim=yes`` it adds ``Bc Bcm Bi Bim``: conditional branches
executed and mispredicted, indirect branches executed and mispredicted, as its model of a
simple predictor predicts them (2-bit counters; a model, not the machine's predictor); those
events are optional here.  With ``--collect-jumps=yes`` it writes, before the position of each
jump that ran, ``jcnd=T/E target`` (a conditional jump executed E times, taken T times; the
order read off Callgrind 3.19's output, where T <= E) or ``jump=N target`` (an unconditional
jump taken N times); those are kept per instruction (:attr:`CallgrindProfile.jumps`), with the
calls (``cfn=`` then ``calls=COUNT``: who called whom from where, how often).  The format is documented in the Valgrind manual, "Callgrind Format
Specification" (https://valgrind.org/docs/manual/cl-format.html): name compression
``fn=(id) name``, relative positions ``+n``/``-n``/``*``, and ``calls=`` lines whose
following cost line is the callee's *inclusive* cost, which is not the caller's own.

Pure: takes the text, returns data.  No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.errors import MeasurementError

#: Events this module needs in a profile (Callgrind with --cache-sim=yes --simulate-wb=yes).
NEEDED_EVENTS = ("Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "DLdmr", "DLdmw")
#: Name-compression key -> its name space (the manual: ob/cob, fl/fi/fe/cfi/cfl, fn/cfn).
_SPACE = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
          "jfi": "fl", "jfe": "fl", "fn": "fn", "cfn": "fn"}


@dataclass
class CallgrindProfile:
    """Self (exclusive) costs of one Callgrind run.

    Attributes
    ----------
    events : tuple of str
        Event names in column order.
    costs : dict
        (object file, function, instruction address) -> list of event counts.
    desc : dict
        The ``desc:`` lines (the simulated cache geometry among them).
    """

    events: tuple[str, ...]
    costs: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)
    desc: dict[str, str] = field(default_factory=dict)
    #: per thread (Callgrind --separate-threads=yes): (object, function) -> instructions
    thread_ir: tuple[dict[tuple[str, str], float], ...] = ()
    #: (object, function, jump's address) -> [conditional jumps taken, unconditional jumps]
    #: (Callgrind --collect-jumps=yes; empty without it)
    jumps: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)
    #: calls made: (object, function, call-site address, (callee object, callee function)) -> count
    calls: dict[tuple[str, str, int, tuple[str, str]], float] = field(default_factory=dict)

    def reachable(self, roots) -> set[str]:
        """The functions ``roots`` (names) and every function they call, transitively."""
        edges = {(caller, callee[1]) for _, caller, _, callee in self.calls}
        seen, todo = set(roots), list(roots)
        while todo:
            fn = todo.pop()
            for caller, callee in edges:
                if caller == fn and callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        return seen

    def threads(self, select=None, *, share: float = 0.1) -> int:
        """Threads that ran at least ``share`` of the busiest thread's instructions among
        those ``select((obj, fn))`` accepts (all): the threads a phase ran on."""
        per = [sum(v for k, v in t.items() if select is None or select(k))
               for t in self.thread_ir]
        top = max(per, default=0.0)
        return max(1, sum(1 for v in per if top > 0 and v >= share * top))

    def index(self, event: str) -> int:
        return self.events.index(event)

    def totals(self, select=None) -> dict[str, float]:
        """Sum of each event over the instructions ``select((obj, fn, addr))`` accepts (all)."""
        out = [0.0] * len(self.events)
        for key, c in self.costs.items():
            if select is None or select(key):
                for i, v in enumerate(c):
                    out[i] += v
        return dict(zip(self.events, out))

    def functions(self) -> dict[tuple[str, str], dict[str, float]]:
        """(object, function) -> event totals."""
        out: dict[tuple[str, str], list[float]] = {}
        for (obj, fn, _), c in self.costs.items():
            acc = out.setdefault((obj, fn), [0.0] * len(self.events))
            for i, v in enumerate(c):
                acc[i] += v
        return {k: dict(zip(self.events, v)) for k, v in out.items()}


def _position(token: str, last: int, where: str) -> int:
    try:
        if token == "*":
            return last
        if token[0] in "+-":
            return last + int(token, 0)
        return int(token, 0)
    except (ValueError, IndexError):
        raise MeasurementError(f"{where}: {token!r} is not a callgrind position") from None


def _call_count(rest: str, where: str) -> float:
    """The count of a ``calls=COUNT TARGET`` line."""
    try:
        return float(int(rest.split()[0]))
    except (ValueError, IndexError):
        raise MeasurementError(f"{where}: 'calls={rest}' has no call count") from None


def merge_threads(texts, files) -> CallgrindProfile:
    """One profile from the per-thread profiles of a run (costs summed, each thread's
    instructions per function kept in ``thread_ir``).  Name compression may span the files
    of one run, so they share one table of names."""
    names: dict = {}
    merged: CallgrindProfile | None = None
    per_thread = []
    for text, file in zip(texts, files):
        prof = parse_callgrind(text, file=file, names=names)
        per_thread.append({k: v["Ir"] for k, v in prof.functions().items()})
        if merged is None:
            merged = prof
            continue
        if prof.events != merged.events:
            raise MeasurementError(f"{file}: events {' '.join(prof.events)} differ from the "
                                   f"other threads' profiles")
        for table, other in ((merged.costs, prof.costs), (merged.jumps, prof.jumps)):
            for key, c in other.items():
                acc = table.setdefault(key, [0.0] * len(c))
                for i, v in enumerate(c):
                    acc[i] += v
        for key, n in prof.calls.items():
            merged.calls[key] = merged.calls.get(key, 0.0) + n
    if merged is None:
        raise MeasurementError("Callgrind wrote no profile")
    merged.thread_ir = tuple(per_thread)
    return merged


class _Parser:
    """State of one pass over a Callgrind file (the format's name tables and positions)."""

    def __init__(self, file: str, names):
        self.file = file
        self.names = {} if names is None else names
        self.positions = ["line"]
        self.current = {"ob": "", "fn": ""}
        self.prof: CallgrindProfile | None = None
        self.desc: dict[str, str] = {}
        self.last = [0] * 2
        self.skip_next_cost = False
        self.jump: tuple[int, float] | None = None  # (column, count) of a jump line's jump
        self.callee = ("", "")  # (cob, cfn) of the last call named
        self.call_count = 0.0

    def jump_line(self, head: str, rest: str, where: str) -> None:
        """``jcnd=T/E target`` or ``jump=N target``: the jump at the next line's position."""
        count = rest.split(None, 1)[0] if rest.strip() else ""
        try:
            self.jump = (0, float(int(count.split("/")[0]))) if head == "jcnd" else (1, float(int(count)))
        except ValueError:
            raise MeasurementError(f"{where}: {head}={rest!r} has no jump count") from None

    def name(self, head: str, rest: str) -> None:
        """``fn=(id) name`` and the like: define or look up a compressed name."""
        rest, kind = rest.strip(), _SPACE[head]
        name = rest
        if rest.startswith("("):
            ident, _, name = rest[1:].partition(")")
            name = name.strip()
            if name:
                self.names[(kind, ident)] = name
            else:
                name = self.names.get((kind, ident), f"({ident})")
        if head in ("ob", "fn"):
            self.current[head] = name
            self.callee = (self.current["ob"], self.callee[1])  # cob= only for another object
        elif head in ("cob", "cfn"):
            self.callee = (name, self.callee[1]) if head == "cob" else (self.callee[0], name)

    def header(self, key: str, value: str) -> None:
        value = value.strip()
        if key == "events":
            events = tuple(value.split())
            missing = [e for e in NEEDED_EVENTS if e not in events]
            if missing:
                raise MeasurementError(f"{self.file}: the profile lacks the events "
                                       f"{', '.join(missing)} (run callgrind with "
                                       f"--cache-sim=yes --simulate-wb=yes)")
            if self.positions[:1] != ["instr"]:
                raise MeasurementError(f"{self.file}: no 'positions: instr' line; the trace needs "
                                       f"instruction addresses (callgrind --dump-instr=yes)")
            self.prof = CallgrindProfile(events, desc=self.desc)
        elif key == "positions":
            self.positions = value.split()
            if self.positions[:1] != ["instr"]:
                raise MeasurementError(f"{self.file}: positions are {value!r}; the trace needs "
                                       f"instruction addresses (callgrind --dump-instr=yes)")
            self.last = [0] * len(self.positions)
        elif key == "desc":
            k, _, v = value.partition(":")
            self.desc[k.strip()] = v.strip()

    def cost(self, line: str, where: str) -> None:
        prof = self.prof
        if prof is None:
            raise MeasurementError(f"{where}: {line[:40]!r} before an 'events:' line; not a "
                                   f"callgrind profile")
        tokens = line.split()
        npos = len(self.positions)
        pos = [_position(t, self.last[i], where) for i, t in enumerate(tokens[:npos])]
        self.last[:len(pos)] = pos
        if self.jump is not None:  # the position of the jump the line before counted
            col, n = self.jump
            self.jump = None
            acc = prof.jumps.setdefault((self.current["ob"], self.current["fn"], pos[0]), [0.0, 0.0])
            acc[col] += n
        if self.skip_next_cost:  # a call's inclusive cost: not the caller's own
            self.skip_next_cost = False
            key = (self.current["ob"], self.current["fn"], pos[0], self.callee)
            prof.calls[key] = prof.calls.get(key, 0.0) + self.call_count
            self.callee = (self.current["ob"], self.callee[1])
            return
        try:
            vals = [float(int(t)) for t in tokens[npos:]]
        except ValueError:
            raise MeasurementError(f"{where}: {line!r} is not a cost line") from None
        key = (self.current["ob"], self.current["fn"], pos[0])
        acc = prof.costs.get(key)
        if acc is None:
            acc = prof.costs[key] = [0.0] * len(prof.events)
        for i, v in enumerate(vals[:len(prof.events)]):
            acc[i] += v


def parse_callgrind(text: str, *, file: str = "callgrind.out", names=None) -> CallgrindProfile:
    """Parse Callgrind output text (with ``positions: instr line``); ``names``: a name
    compression table shared with other files of the same run.

    Raises
    ------
    MeasurementError
        No ``events:`` line, positions other than instruction addresses, or an event this
        module needs is missing (the run lacked ``--cache-sim=yes --simulate-wb=yes``).
    """
    st = _Parser(file, names)
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, rest = line.partition("=")
        if sep and head in _SPACE:
            st.name(head, rest)
        elif sep and head == "calls":
            st.skip_next_cost = True
            st.call_count = _call_count(rest, f"{file} line {lineno}")
        elif sep and head in ("jump", "jcnd"):
            st.jump_line(head, rest, f"{file} line {lineno}")
        elif ":" in line and line[0] not in "+-*0123456789":
            key, _, value = line.partition(":")
            st.header(key, value)
        else:
            st.cost(line, f"{file} line {lineno}")
    if st.prof is None:
        raise MeasurementError(f"{file}: no 'events:' line; not a callgrind profile")
    st.prof.thread_ir = ({k: v["Ir"] for k, v in st.prof.functions().items()},)
    return st.prof
