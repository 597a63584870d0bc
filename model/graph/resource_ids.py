"""Resource ids, parsed and formatted in one place, and the unit convention of a set of them.

A resource is what traffic consumes (see :mod:`pinchpoint.graph.graph`): a half-duplex link, named by
the link's id (``"pcix"``), or one direction of a full-duplex link, ``"LINK:FROM>TO"``
(``"ht:pcix-bridge>u3"``).  Link and component ids are letters, digits, ``-`` and ``_`` (the
profile reader checks), so ``:`` and ``>`` never occur inside them.
"""

from __future__ import annotations

from typing import NamedTuple


class ResourceId(NamedTuple):
    """A link and, for one direction of a full-duplex link, (from, to)."""

    link: str
    direction: tuple[str, str] | None = None

    @classmethod
    def parse(cls, text: str) -> "ResourceId":
        """``"ht:a>b"`` -> ResourceId("ht", ("a", "b")); ``"pcix"`` -> ResourceId("pcix")."""
        link, sep, way = text.partition(":")
        if not sep:
            return cls(link)
        src, arrow, dst = way.partition(">")
        if not arrow:
            raise ValueError(f"{text!r} is not a resource id (LINK or LINK:FROM>TO)")
        return cls(link, (src, dst))

    def __str__(self) -> str:
        return self.link if self.direction is None else f"{self.link}:{self.direction[0]}>{self.direction[1]}"


def resource_id(link_id: str, direction: tuple[str, str] | None) -> str:
    """The id of a link's resource: ``link_id`` (shared by both ways) or ``link_id:from>to``."""
    return str(ResourceId(link_id, direction))


def link_of(rid: str) -> str:
    """The link a resource id belongs to (cheap: called once per resource of every ceiling)."""
    return rid.partition(":")[0]


def direction_of(rid: str) -> str | None:
    """``"from>to"`` of a one-way resource, None for a link shared by both directions."""
    _, sep, way = rid.partition(":")
    return way if sep else None


def convention(network: bool) -> str:
    """How a rate prints: ``"network"`` (bit/s) for network links, ``"memory"`` (B/s) otherwise
    (see :func:`pinchpoint.physics.units.format_rate`)."""
    return "network" if network else "memory"


def uses_network(profile, rids) -> bool:
    """True if any of the resources ``rids`` of ``profile`` is on a network link: its figures
    then print in bit/s."""
    return any(profile.links[link_of(r)].definition.network for r in rids)


def reverse_of(rid: str) -> str:
    """The resource of the other direction: ``link:b>a`` for ``link:a>b``; a link shared by both
    directions is its own reverse."""
    r = ResourceId.parse(rid)
    return rid if r.direction is None else str(ResourceId(r.link, (r.direction[1], r.direction[0])))
