"""The kinds of component a profile can declare: their numeric parameters, whether traffic may pass
through them, and whether they are a device (the end of a DMA).

Forwarding follows what the hardware does with a packet or a transaction it does not consume:
switches (PCIe, NVSwitch, Ethernet), root complexes and CPUs' I/O hubs, bridges and memory
controllers route it on; an accelerator, a NIC, a memory or a disk is where traffic starts or
ends.  A GPU does not relay a host's copy to another GPU over NVLink, and a NIC does not bridge
two of its neighbours.  A profile may say otherwise for one component (``forwards = true`` on a
DPU, whose cores do route).  ``device`` is the generic kind: it forwards, as a plain graph node.
"""

from __future__ import annotations

from pinchpoint.physics.kind_types import Param


class ComponentKind:
    """A kind of component: its parameters, and how traffic treats it.  ``forwards``: traffic
    between two other components may pass through it; ``device``: a device that moves data by DMA
    (a NIC, a GPU, a disk: see Flow.initiator).  A plain class: a dataclass costs a millisecond
    of every process's start-up to define."""

    __slots__ = ("name", "params", "forwards", "device", "doc")

    def __init__(self, name: str, params: tuple[Param, ...], forwards: bool, device: bool = False, doc: str = ""):
        self.name, self.params, self.forwards, self.device, self.doc = name, params, forwards, device, doc

    def __repr__(self) -> str:
        return f"ComponentKind({self.name!r}, forwards={self.forwards}, device={self.device})"


COMPONENT_KINDS: dict[str, ComponentKind] = {k.name: k for k in (
    ComponentKind("cpu", (
        Param("clock", "frequency", "nominal core clock"),
        Param("current_clock", "frequency", "clock in use now (power saving lowers it)", required=False),
        Param("cores", "dimensionless", "cores per package", default=1.0, integer=True),
        Param("threads_per_core", "dimensionless", "hardware threads per core", default=1.0, integer=True),
        Param("fsb_ratio", "dimensionless", "core clock / FSB clock", required=False),
        Param("flops_per_cycle", "dimensionless", "double-precision flops per cycle per core", required=False),
        Param("cycles_per_byte", "dimensionless", "network stack cost per payload byte", required=False),
        Param("cycles_per_packet", "dimensionless", "network stack cost per packet", required=False),
    ), forwards=True, doc="a processor package with its root complex and memory controller"),
    ComponentKind("memory", (
        Param("size", "size", "installed memory", required=False),
        Param("latency", "time", "load-to-use latency", required=False),
    ), forwards=False, doc="DRAM or HBM: where data rests"),
    ComponentKind("nic", (
        Param("line_rate", "bandwidth", "line rate of the port"),
        Param("max_mtu", "size", "largest MTU the NIC supports", required=False),
        Param("mtu", "size", "MTU configured", required=False),
    ), forwards=False, device=True, doc="a network adapter"),
    ComponentKind("disk", (
        Param("size", "size", "capacity", required=False),
        Param("rate", "bandwidth", "sustained transfer rate", required=False),
    ), forwards=False, device=True, doc="a storage device"),
    ComponentKind("accelerator", (
        Param("memory_size", "size", "memory on the device (HBM, GDDR)", required=False),
        Param("clock", "frequency", "core clock", required=False),
        Param("sms", "dimensionless", "streaming multiprocessors (compute units)", required=False, integer=True),
    ), forwards=False, device=True, doc="a GPU or other accelerator"),
    ComponentKind("switch", (
        Param("ports", "dimensionless", "ports (links join them; a crossbar: every port at full rate)",
              required=False, integer=True),
    ), forwards=True, doc="a PCIe, NVLink or network switch"),
    ComponentKind("bridge", (), forwards=True, doc="a bus bridge"),
    ComponentKind("controller", (), forwards=True, doc="a memory or I/O controller (north bridge, hub)"),
    ComponentKind("network", (), forwards=False, doc="the network beyond a port"),
    ComponentKind("device", (), forwards=True, device=True, doc="a generic component"),
)}


def component_kind(name: str) -> ComponentKind:
    """The component kind called ``name`` (KeyError if there is none)."""
    return COMPONENT_KINDS[name]
