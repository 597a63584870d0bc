"""One self-contained HTML page: the link graph, the ceiling table with formulas, the ladder,
the verdict and the advice, and (with a signature) the measured figures beside the theory.

An edge module (layer 4): :func:`build_report` only formats objects the models computed --
:func:`pinchpoint.solve.ceilings.all_ceilings` (solved once: every table, plot and the what-if
panel reads the same ceilings), a :class:`pinchpoint.diagnose.Verdict` -- and draws them with
:mod:`pinchpoint.report.plots_report`.  The plots are inline SVG, the style sheet and the script
of the link graph's hover and zoom and of the what-if panel (:mod:`pinchpoint.report.interactive`)
are inline, and nothing is loaded from the network, so the page works offline and can be mailed
as one file.  Every piece of text
from a profile, a signature or a verdict goes through :func:`html.escape`.
:func:`write_report` writes the page atomically (:func:`pinchpoint.paths.atomic_write`).
"""

from __future__ import annotations

import html
from pathlib import Path

from tqdm import tqdm

from pinchpoint import __version__
from pinchpoint.errors import InputError
from pinchpoint.graph import graph
from pinchpoint.paths import atomic_write
from pinchpoint.report import interactive, probe_view
from pinchpoint.solve.ceilings import all_ceilings, is_forest

#: Rows of a signature kernel shown in the report before the table is cut short.
MAX_SIGNATURE_ROWS = 60

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; margin: 2em auto;
       max-width: 1180px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2em;
       margin-top: 1.6em; }
.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.88em; margin: 0.6em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
td.wrap { overflow-wrap: anywhere; min-width: 12em; } td:first-child { white-space: nowrap; }
.scroll { overflow-x: auto; }
th { background: #f0f0f0; } td.num { text-align: right; white-space: nowrap; }
tr.binding td { background: #fde0dd; font-weight: 600; }
code, .formula { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.92em; }
figure { margin: 0.8em 0; } figure svg { width: 100%; max-width: 1000px; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
.verdict { border-left: 6px solid #888; padding: 0.6em 1em; background: #f8f8f8; }
.verdict.at-ceiling { border-color: #2ca02c; } .verdict.below-ceiling { border-color: #ff7f0e; }
.verdict.far-below-all { border-color: #d62728; }
.verdict.above-ceiling { border-color: #9467bd; background: #f3eefa; }
.verdict .big { font-size: 1.25em; font-weight: 700; }
.warning { border-left: 6px solid #ff7f0e; background: #fff4e5; padding: 0.5em 1em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
"""


def _e(x) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _rate(value, network: bool) -> str:
    from pinchpoint.physics.units import format_rate

    if value is None:
        return "-"
    return format_rate(value, "network" if network else "memory")


def _table(table_id: str, header: list[str], rows: list[tuple[list[str], bool]], numeric=(), wrap=()) -> str:
    """An HTML table; cells are escaped here; rows flagged True are marked as binding; columns in
    ``numeric`` are right-aligned, columns in ``wrap`` (formulas, paths) may break anywhere."""
    out = [f'<div class="scroll"><table id="{_e(table_id)}">', "<thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header)
           + "</tr></thead>", "<tbody>"]
    for cells, binding in rows:
        tds = "".join(f'<td class="num">{_e(c)}</td>' if i in numeric else
                      f'<td class="wrap">{_e(c)}</td>' if i in wrap else f"<td>{_e(c)}</td>"
                      for i, c in enumerate(cells))
        out.append(f'<tr class="binding">{tds}</tr>' if binding else f"<tr>{tds}</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _figure(fig_id: str, svg_text: str, caption: str) -> str:
    # svg_text is matplotlib's own SVG output (it escapes the text it holds); the caption is ours.
    return f'<figure id="{_e(fig_id)}">\n{svg_text}\n<figcaption>{_e(caption)}</figcaption>\n</figure>'


# --- sections --------------------------------------------------------------------------------

def _ceiling_section(profile, ceilings, flow) -> str:
    from pinchpoint.report.tables import link_rows
    from pinchpoint.graph.resource_ids import uses_network
    from pinchpoint.solve.symbolic import flow_substituted, link_substituted

    rows = []
    for c in ceilings:
        net = uses_network(profile, c.usage)
        nxt = f"x{c.growth:.3g} -> {', '.join(c.next_binding)}" if c.growth else "-"
        substituted = flow_substituted(profile, c) if c.name in profile.flows else ""
        rows.append(([c.name, _rate(c.ceiling_bytes_per_s, net), _rate(c.effective_ceiling_bytes_per_s, net),
                      ", ".join(c.binding), nxt, c.formula, substituted, " -> ".join(c.path)],
                     c.name == flow))
    flows = _table("ceiling-table", ["flow", "ceiling", "effective", "binding link", "to move it",
                                     "formula", "with the values", "path"], rows, numeric=(1, 2),
                   wrap=(5, 6, 7))
    binding = {l for c in ceilings for l in c.binding}
    lrows = []
    for r, link in zip(link_rows(profile, binding), profile.links.values()):
        eff = link.definition.efficiency_formula or ""
        lrows.append(([link.id, r[1], r[2], r[3], r[4], r[5], r[6] + (f"; effective: {eff}" if eff else ""),
                       link_substituted(profile, link.id)], link.id in binding))
    links = _table("link-table", ["link", "kind", "between", "duplex", "capacity", "effective", "formula",
                                  "with the values"], lrows, numeric=(4, 5), wrap=(6, 7))
    return ("<h2>Ceilings</h2>\n<p>Every flow's theoretical ceiling with the formula behind it; the highlighted "
            "row is the flow in focus.  'effective' is after protocol overhead (PCI-X bursts, "
            "HyperTransport packets, PCIe TLPs).</p>\n" + flows
            + "\n<h3>Links</h3>\n" + _maybe_folded(f"<p>Highlighted: links that bind at least one flow.</p>\n{links}",
                                                    f"{len(lrows)} links (show)", len(lrows) > FOLD_ROWS))


#: Tables longer than this are folded (a <details> element) so the ladder and the what-if panel
#: stay near the top: an eight-GPU board has 71 links.
FOLD_ROWS = 30


def _maybe_folded(html_text: str, summary: str, fold: bool) -> str:
    return f"<details><summary>{_e(summary)}</summary>\n{html_text}\n</details>" if fold else html_text


def _verdict_section(verdict) -> str:
    from pinchpoint.physics.units import format_rate

    net = lambda x: format_rate(x, "network")  # noqa: E731
    side = f", {verdict.side}'s figure" if verdict.side else ""
    parts = [f'<h2>Verdict</h2>\n<div id="verdict" class="verdict {_e(verdict.verdict)}">',
             f'<p class="big">{_e(verdict.verdict)}: limited by {_e(verdict.limited_by)}</p>',
             f"<p>measured {_e(net(verdict.measured_bytes_per_s))} ({_e(verdict.protocol.upper())}{_e(side)}) = "
             f"{_e(f'{verdict.efficiency:.1%}')} of the binding ceiling, {_e(verdict.binding.name)} at "
             f"{_e(net(verdict.binding.ceiling_bytes_per_s))}</p>"]
    if verdict.causes:
        parts.append("<ul>" + "".join(f"<li>{_e(c)}</li>" for c in verdict.causes) + "</ul>")
    parts.append("</div>")
    rows = []
    for c in verdict.ceilings:
        rows.append(([c.name, c.kind, net(c.ceiling_bytes_per_s),
                      net(c.raw_ceiling_bytes_per_s) if c.raw_ceiling_bytes_per_s is not None else "",
                      f"{verdict.measured_bytes_per_s / c.ceiling_bytes_per_s:.0%}", c.formula, c.note],
                     c is verdict.binding))
    parts.append("<h3>Every ceiling on the measured figure</h3>")
    parts.append(_table("verdict-ceilings", ["ceiling", "kind", "payload rate", "raw", "measured / ceiling",
                                              "formula", "note"], rows, numeric=(2, 3, 4), wrap=(5, 6)))
    parts.append('<h2>Advice</h2>\n<div id="advice">')
    if verdict.advice:
        parts.append("<ul>" + "".join(f"<li>{_e(a)}</li>" for a in verdict.advice) + "</ul>")
    else:
        parts.append("<p>No change would raise the figure: it sits at the binding ceiling.</p>")
    if verdict.hypotheses:
        parts.append("<h3>Hypotheses (inputs missing: what would explain the figure)</h3><ul>"
                     + "".join(f"<li>{'<strong>fits:</strong> ' if h.fits else ''}{_e(h.text)}</li>"
                               for h in verdict.hypotheses) + "</ul>")
    if verdict.notes:
        parts.append("<h3>Notes</h3><ul>" + "".join(f"<li>{_e(n)}</li>" for n in verdict.notes) + "</ul>")
    parts.append("</div>")
    return "\n".join(parts)


def _no_verdict_section(profile, ceilings, flow, signature_name: str | None = None) -> str:
    from pinchpoint.graph.resource_ids import uses_network

    by_name = {c.name: c for c in ceilings}
    focus = by_name.get(flow) or (ceilings[0] if ceilings else None)
    items = []
    if focus is not None:
        net = uses_network(profile, focus.usage)
        items.append(f"flow {focus.name}: the ceiling is {_rate(focus.ceiling_bytes_per_s, net)}, set by "
                     f"{', '.join(focus.binding)}")
        if focus.growth:
            items.append(f"raising {', '.join(focus.binding)} helps up to x{focus.growth:.3g}; then "
                         f"{', '.join(focus.next_binding)} binds")
    items.append("no measured rate of a flow was given: add --measured RATE --flow FLOW (as for pinchpoint "
                 "diagnose) for a verdict on a measurement and advice")
    headline = (f"theory and the measurements of signature {signature_name} (below)" if signature_name
                else "theory only")
    return (f'<h2>Verdict</h2>\n<div id="verdict" class="verdict"><p class="big">{_e(headline)}</p><ul>'
            + "".join(f"<li>{_e(i)}</li>" for i in items) + '</ul></div>\n<h2>Advice</h2>\n<div id="advice"><p>'
            + _e("Measure the flow (iperf3 for the network, pinchpoint measure for memory) and compare it with "
                 "the ceiling above.") + "</p></div>")


def _signature_section(profile, signature, name, ceilings) -> str:
    from pinchpoint.report import plots_report

    host = signature.host
    facts = [("host", host.get("name")), ("CPU", host.get("cpu_model")), ("machine", host.get("machine")),
             ("OS", host.get("os")), ("created", signature.created), ("source", host.get("source"))]
    parts = [f'<h2>Measured: signature {_e(name)}</h2>', "<ul>"
             + "".join(f"<li>{_e(k)}: {_e(v)}</li>" for k, v in facts if v) + "</ul>"]
    from pinchpoint.inputs.host_match import clock_mismatch
    from pinchpoint.solve.measured_ceilings import measured_ceilings

    other_host = clock_mismatch(profile, signature)
    if other_host:
        parts.append('<p class="warning"><strong>Another machine</strong>: ' + _e(other_host) + "</p>")
    side = measured_ceilings(profile, signature)
    if side:
        rows = [([m.name, m.kind, _rate(m.measured_bytes_per_s, m.network),
                  _rate(m.theoretical_bytes_per_s, m.network),
                  f"{m.efficiency:.0%}" if m.efficiency is not None else "-", m.source], False) for m in side]
        parts.append("<h3>Measured beside theoretical</h3>")
        parts.append(_table("measured-vs-theory", ["link or flow", "kind", "measured", "theoretical",
                                                   "measured / theoretical", "measured by"], rows,
                            numeric=(2, 3, 4), wrap=(5,)))
        above = [m.name for m in side if m.efficiency is not None and m.efficiency > 1.05]
        if above:
            parts.append('<p class="warning"><strong>Measured above theoretical</strong> for '
                         + _e(", ".join(above)) + _e(": a measurement cannot beat its ceiling, so either the "
                                                    "signature comes from another machine than the profile "
                                                    "describes, or the profile understates the hardware.") + "</p>")
    lines = [(f"{l.id} ({l.kind})", l.capacity_bytes_per_s) for l in profile.links.values() if l.definition.memory_path]
    from pinchpoint.graph.resource_ids import uses_network

    lines += [(f"flow {c.name}", c.ceiling_bytes_per_s) for c in ceilings if not uses_network(profile, c.usage)]
    if "maps" in signature.kernels and any("working_set_bytes" in p.params and p.get("threads", 1) == 1
                                           for p in signature.points("maps")):
        ax = plots_report.staircase(signature, lines)
        parts.append(_figure("staircase", plots_report.svg(ax),
                             "MAPS bandwidth vs working set (cache sizes marked), with the profile's memory "
                             "ceilings as dashed lines"))
    for kernel, run in signature.kernels.items():
        pts = run.points
        rows = []
        for p in pts[:MAX_SIGNATURE_ROWS]:
            params = ", ".join(f"{k}={v}" for k, v in p.params.items())
            r = p.result
            if r.unit == "B/s":
                val, lo, hi = (_rate(x, False) for x in (r.median, r.min, r.max))
            else:
                val, lo, hi = (f"{x:.4g} {r.unit}" for x in (r.median, r.min, r.max))
            rows.append(([params, val, f"{lo} .. {hi}", str(len(r.repetitions))], False))
        more = f" (first {MAX_SIGNATURE_ROWS} of {len(pts)})" if len(pts) > MAX_SIGNATURE_ROWS else ""
        parts.append(f"<h3>{_e(kernel)}{_e(more)}</h3>")
        parts.append(_table(f"signature-{kernel}", ["parameters", "median", "min .. max", "n"], rows,
                            numeric=(1, 3)))
    if lines:
        parts.append("<p>Theoretical memory ceilings of the profile for comparison: "
                     + _e("; ".join(f"{n} {_rate(v, False)}" for n, v in lines)) + "</p>")
    return "\n".join(parts)


# --- the page --------------------------------------------------------------------------------

def _graph_section(profile, focus, flow) -> str:
    from pinchpoint.report import plots_report

    svg = plots_report.svg(plots_report.link_graph(profile, focus, flow=flow, effective=True))
    caption = ("Components and links laid out by topology (capacities per link; full-duplex links per "
               "direction).  " + (f"Red: the binding link of flow {flow}; blue: the rest of its path.  "
                                  if flow else "")
               + "Hover over a link for its formula and values; wheel or buttons to zoom, drag to move.")
    return ('<h2>Link graph</h2>\n<div class="zoombar"><button type="button" id="zoom-in">zoom in</button>'
            '<button type="button" id="zoom-out">zoom out</button><button type="button" id="zoom-reset">'
            'whole graph</button></div>\n<figure id="graph"><div id="graph-view">\n' + svg
            + f"\n</div><figcaption>{_e(caption)}</figcaption>\n</figure>")


def _ladder_section(profile, ceilings, focus, flow, verdict) -> str:
    from pinchpoint.graph.resource_ids import uses_network
    from pinchpoint.report import plots_report

    if verdict is not None:
        ax = plots_report.ceiling_ladder(verdict.ceilings, verdict.measured_bytes_per_s,
                                         binding=verdict.binding.name, network=True,
                                         title=f"ceilings on the measured figure ({verdict.verdict})")
        caption = ("One bar per ceiling on the measured figure (payload rate); red: the binding one; "
                   "black diamond and dashed line: the measured figure.")
    elif ceilings:
        network = {c.name: uses_network(profile, c.usage) for c in ceilings}
        ax = plots_report.flow_ladder(ceilings, network, focus.name if focus else None)
        caption = (f"One bar per flow's ceiling (network flows in bit/s, memory, bus and host flows in "
                   f"B/s); red: the flow in focus ({flow}).")
    else:
        return ""
    return "<h2>Ceiling ladder</h2>\n" + _figure("ladder", plots_report.svg(ax), caption)


def _body(profile, flow, verdict, signature, signature_name, title, bar, probe=None) -> tuple[list[str], str]:
    """The page's sections and its closing scripts; ``bar`` advances one step per part."""
    def step(name, value):
        bar.set_postfix_str(name)
        bar.update(1)
        return value

    ceilings = step("ceilings", all_ceilings(profile))
    focus = next((c for c in ceilings if c.name == flow), None)
    body = [f"<h1>pinchpoint report: {_e(title or profile.name)}</h1>", f'<p class="sub">{_e(profile.description)}</p>']
    if getattr(profile, "source", None):
        body.append(f'<p class="sub">source: {_e(profile.source)}</p>')
    body += [step("graph", _graph_section(profile, focus, flow)),
             step("tables", _ceiling_section(profile, ceilings, flow)),
             step("ladder", _ladder_section(profile, ceilings, focus, flow, verdict))]
    script = ""
    if ceilings:  # the what-if panel right below the ceilings it recomputes
        body.append(interactive.panel_html())
        script = step("what-if", interactive.embedded(profile, ceilings, flow, not is_forest(graph.build(profile))))
    body.append(_verdict_section(verdict) if verdict is not None else _no_verdict_section(
        profile, ceilings, flow, (signature_name or signature.name) if signature is not None else None))
    if signature is not None:
        body.append(step("signature", _signature_section(profile, signature, signature_name or signature.name,
                                                         ceilings)))
    if probe is not None:
        body.append(step("probe", probe_view.section_html(probe)))
    return body, script


def build_report(profile, *, verdict=None, flow: str | None = None, signature=None,
                 signature_name: str | None = None, title: str | None = None, progress: bool = False,
                 probe: dict | None = None) -> str:
    """The HTML page (text) for a profile, optionally with a verdict and a signature.

    Parameters
    ----------
    profile : Profile
    verdict : Verdict, optional
        From :func:`pinchpoint.diagnose.diagnose`: adds the verdict, the ceilings on the measured
        figure (ladder with the measured marker) and the advice.
    flow : str, optional
        The flow in focus (graph highlight, table highlight); default: the verdict's flow, else
        the profile's first flow.
    signature : Signature, optional
        Measured figures shown beside the theoretical memory ceilings (a MAPS staircase when the
        signature has MAPS points).
    probe : dict, optional
        A probe record (what ``pinchpoint probe --json`` printed, checked by
        :func:`pinchpoint.inputs.probe_record.check_probe_record`): a section with the host's
        facts, the run, the TCP_INFO limits and the probe's verdict
        (:func:`pinchpoint.report.probe_view.section_html`).
    progress : bool
        A tqdm bar on stderr, one step per part of the page.

    The ceilings are solved once (:func:`pinchpoint.solve.ceilings.all_ceilings`); every table,
    plot and the what-if panel (:mod:`pinchpoint.report.interactive`) reads them.

    Raises
    ------
    InputError
        ``flow`` is not a flow of the profile.
    """
    if flow is None and verdict is not None:
        flow = verdict.inputs.get("flow")
    if flow is not None and flow not in profile.flows:
        raise InputError(f"no flow {flow!r} in profile {profile.name!r} "
                         f"(flows: {', '.join(profile.flows) or 'none'})", key="flow")
    if flow is None and profile.flows:
        flow = next(iter(profile.flows))
    steps = (["ceilings", "graph", "tables", "ladder", "what-if"] + (["signature"] if signature is not None else [])
             + (["probe"] if probe is not None else []))
    with tqdm(total=len(steps), desc="report", unit="part", disable=not progress, leave=False) as bar:
        body, script = _body(profile, flow, verdict, signature, signature_name, title, bar, probe)
    body.append(f"<footer>pinchpoint {_e(__version__)}: theoretical ceilings from the profile's declared values; "
                "measured figures from signatures and the given measurement.</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>pinchpoint report: {_e(title or profile.name)}</title>\n"
            f"<style>{_CSS}{interactive.CSS}{probe_view.CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n" + script
            + "</body>\n</html>\n")


def write_report(text: str, path) -> Path:
    """Write the page atomically; the folder must exist.

    Raises
    ------
    InputError
        The folder does not exist or the path is a folder.
    """
    path = Path(path)
    with atomic_write(path, "w", encoding="utf-8", key="-o") as fh:  # refuses folders, missing folders
        fh.write(text)
    return path
