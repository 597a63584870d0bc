"""How a leg's bytes count against the links: raw (every crossing counts one byte) or effective
(the link's protocol costs for the kind of transfer).

Effective pricing is where a link's kind says how it carries writes and reads
(:meth:`pinchpoint.inputs.profile.Link.costs`): a PCIe write costs MPS + 24 bytes per MPS of payload
on the data's direction and the DLLPs that answer it on the other; a read costs completions (3DW
headers) on the data's direction and the requests on the other.  Capacities stay raw: each leg's
crossings are weighted by these costs, so writes and reads, and the two directions of one link,
share it as the link does ("DLLPs counted once, on the direction that carries them").  Max-flow
(one leg) needs no weights: it runs on capacities divided by the data direction's cost, which is
the same problem, since one flow never loads the other direction enough to bind it.
"""

from __future__ import annotations


class Pricing:
    """Raw or effective pricing of one profile's links (the dicts it makes are shared by every
    flow of one ``all_ceilings``, so the arc arrays made from them are too)."""

    def __init__(self, profile, effective: bool):
        self.profile, self.effective = profile, effective
        self._caps: dict[str, dict[str, float]] = {}

    def costs(self, link_id: str, op: str) -> tuple[float, float]:
        """Raw bytes per payload byte of ``op`` (data direction, other direction)."""
        if not self.effective:
            return 1.0, 0.0
        return self.profile.links[link_id].costs(op)

    def read_bound(self, link_id: str, op: str) -> float | None:
        """One requester's bound on reads through the link [B/s], where its profile gives one."""
        if not self.effective or op != "read":
            return None
        return self.profile.links[link_id].read_bound_bytes_per_s

    def capacities(self, op: str) -> dict[str, float] | None:
        """Link id -> capacity for max-flow (None: raw): the effective capacity of ``op``, and
        where the link bounds a requester's reads, that bound."""
        if not self.effective:
            return None
        caps = self._caps.get(op)
        if caps is None:
            caps = {lid: link.effective_for(op) for lid, link in self.profile.links.items()}
            if op == "read":
                for lid, link in self.profile.links.items():
                    bound = link.read_bound_bytes_per_s if link.definition.read_bound is not None else None
                    if bound is not None:
                        caps[lid] = min(caps[lid], bound)
            # one dict per kind of transfer, whichever thread made it first: the arcs keep one
            # capacity array per dict (pinchpoint.graph.maxflow.Arcs.capacities)
            caps = self._caps.setdefault(op, caps)
        return caps


RAW = "raw"
EFFECTIVE = "effective"
