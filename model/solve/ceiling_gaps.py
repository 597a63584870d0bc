"""Why a profile answers no ceiling, and what to add or measure so that it does.

``pinchpoint detect`` writes what the machine reveals and lists the rest under ``unknown``; on a
virtual machine that is often no capacity at all (no memory rate without ``--measure``, a virtio
NIC without a speed), so the profile has components but no links, and no flows.  Rather than two
empty tables, the CLI prints these sentences.  Layer 3: pure, no I/O.
"""

from __future__ import annotations

#: What each unknown parameter would give, and how to get it (component kind -> param -> hint).
_HOW = {
    ("memory", "rate"): "run `pinchpoint detect --measure` (measures the memory bandwidth into a "
                        "memory link) or add a [links.memory] with kind = \"memory\" (width, clock, "
                        "transfers_per_clock, channels) or kind = \"link\" and a rate",
    ("nic", "line_rate"): "add line_rate (e.g. \"10 Gbit/s\", from `ethtool` or the spec sheet) and a "
                          "link between the NIC and the network",
    ("disk", "rate"): "add the disk's rate (spec sheet, or `pinchpoint import fio` of a fio run) and "
                      "a kind = \"disk\" link",
}


def ceiling_gaps(profile) -> tuple[str, ...]:
    """Sentences that say why ``profile`` has no link or no flow, and what would add one.

    Returns
    -------
    tuple of str
        Empty when the profile has at least one link and one flow (it answers something).
    """
    if profile.links and profile.flows:
        return ()
    out = [] if profile.links else _no_links(profile)
    if not profile.flows:
        ends = [cid for cid, c in profile.components.items() if c.kind in ("memory", "network", "disk")]
        example = f"source = \"{ends[0]}\", sink = \"{ends[-1]}\"" if len(ends) > 1 else \
            "source = \"network\", sink = \"memory\""
        out.append(f"profile {profile.name!r} has no flows: a ceiling is asked of a flow; add "
                   f"[flows.NAME] with {example} (or legs = [[...], ...]) over the links")
    return tuple(out)


def _no_links(profile) -> list[str]:
    """Why a profile without links answers nothing, and what each unknown value needs."""
    out = []
    comps = ", ".join(f"{cid} ({c.kind})" for cid, c in profile.components.items()) or "none"
    out.append(f"profile {profile.name!r} has no links, so no capacity and no ceiling: its "
               f"components are {comps}, but no capacity between any two of them is known")
    for cid, c in profile.components.items():
        for param in c.unknown:
            how = _HOW.get((c.kind, param))
            if how:
                out.append(f"{cid}.{param} is unknown: {how}")
    if not any(c.kind == "memory" and "rate" in c.unknown for c in profile.components.values()) \
            and any(c.kind == "memory" for c in profile.components.values()):
        out.append(f"memory: {_HOW[('memory', 'rate')]}")
    out.append("a link joins two components: [links.NAME] kind = ..., between = [\"a\", \"b\"] "
               "and its capacity (see README: the profile format)")
    return out
