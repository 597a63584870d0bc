"""What diagnose works out before any ceiling: the line rate, the MTU, the window, the host profile.

Each value comes with where it came from ("given", "profile g5, link eth", "default"), which the
verdict reports.
"""

from __future__ import annotations

from pinchpoint.physics import framing, tcp
from pinchpoint.errors import InputError
from pinchpoint.diagnose import os_defaults
from pinchpoint.diagnose.inputs import DEFAULT_MTU, DiagnoseInputs
from pinchpoint.diagnose.wording import size as _size
from pinchpoint.graph.resource_ids import link_of


def resolve_line(inputs: DiagnoseInputs, profile) -> tuple[float | None, str]:
    """The raw line rate [B/s] and where it came from: given, or the flow's first network link."""
    if inputs.line_bytes_per_s is not None:
        return inputs.line_bytes_per_s, "given"
    if profile is not None:
        for lid in flow_links(profile, inputs.flow):
            link = profile.links[lid]
            if link.definition.network:
                return link.capacity_bytes_per_s, f"profile {profile.name}, link {lid}"
    return None, ""


def flow_links(profile, flow: str) -> list[str]:
    """The links a flow crosses (routing does not depend on MMRBC or other efficiency params)."""
    c = flow_ceiling(profile, flow)
    return list(dict.fromkeys(link_of(r) for r in c.usage))


_CEILING_CACHE: dict = {}


def flow_ceiling(profile, flow: str):
    """pinchpoint.solve.ceilings.flow_ceiling, memoised on the profile itself for one process.

    A profile is deeply frozen and hashes by its contents (its hash is computed once), so equal
    profiles share an answer and a profile freed and another allocated at its address (the
    hazard of keying on ``id``) cannot be mistaken for it."""
    from pinchpoint.solve.ceilings import flow_ceiling as compute

    key = (profile, flow)
    hit = _CEILING_CACHE.get(key)
    if hit is not None:
        return hit
    c = compute(profile, flow)
    if len(_CEILING_CACHE) > 64:
        _CEILING_CACHE.clear()
    _CEILING_CACHE[key] = c
    return c


def resolve_mtu(inputs: DiagnoseInputs, profile) -> tuple[float, str]:
    """The MTU [B] and where it came from: given, MSS + headers, the profile's NIC, or the medium's default."""
    if inputs.mtu_bytes is not None:
        return inputs.mtu_bytes, "given"
    if inputs.mss_bytes is not None and inputs.medium == "ethernet":
        headers = framing.transport_headers(inputs.protocol, inputs.ip_version, inputs.timestamps)
        return inputs.mss_bytes + headers, "MSS + headers"
    if profile is not None:
        for c in profile.components.values():
            if c.kind == "nic" and c.get("mtu"):
                return c.get("mtu"), f"profile {profile.name}, {c.id}.mtu"
    return DEFAULT_MTU[inputs.medium], "default"


def buffer_defaults(inputs):
    """The OS buffer settings that bound the window: live values, the named OS's defaults, or None."""
    if inputs.buffer_defaults is not None:
        return inputs.buffer_defaults
    if inputs.os is not None:
        return os_defaults.defaults_for(inputs.os)
    return None


def window(inputs) -> tuple[float | None, str]:
    """The TCP window [B] and how it is written: given, derived from a socket buffer, or the
    largest an OS's default buffers let autotuning reach."""
    if inputs.window_bytes is not None:
        return inputs.window_bytes, _size(inputs.window_bytes)
    if inputs.buffer_bytes is not None:
        w = tcp.window_from_buffer(inputs.buffer_bytes, inputs.adv_win_scale, inputs.buffer_requested)
        share = 1 - 2.0 ** (-inputs.adv_win_scale)
        if inputs.buffer_requested:
            text = (f"({_size(inputs.buffer_bytes)} requested, doubled by Linux to "
                    f"{_size(2 * inputs.buffer_bytes)}, x {share:g} for tcp_adv_win_scale {inputs.adv_win_scale})")
        else:
            text = f"({_size(inputs.buffer_bytes)} buffer x {share:g} for tcp_adv_win_scale {inputs.adv_win_scale})"
        return w, text
    defaults = buffer_defaults(inputs)
    if defaults is not None:
        return defaults.autotuned_window_bytes, (f"({_size(defaults.tcp_rmem[2])} tcp_rmem max x "
                                                 f"{defaults.window_share:g}, {defaults.os} {defaults.kernels}, "
                                                 f"{defaults.source})")
    return None, ""


def host_profile(inputs):
    """The profile with the given MMRBC set on every PCI-X link the flow crosses."""
    profile = inputs.profile
    if profile is None or inputs.mmrbc_bytes is None:
        return profile
    pcix = [lid for lid in flow_links(profile, inputs.flow) if profile.links[lid].kind == "pci-x"]
    if not pcix:
        raise InputError(f"flow {inputs.flow!r} of profile {profile.name!r} crosses no pci-x link "
                         "(MMRBC is a PCI-X setting)", file=inputs.origin, key="mmrbc_bytes")
    for lid in pcix:
        profile = profile.with_link_param(lid, "burst", float(inputs.mmrbc_bytes))
    return profile

