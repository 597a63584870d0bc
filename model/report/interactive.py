"""The report's interactive parts: hover and zoom on the link graph, and a what-if panel that
recomputes every flow's ceiling in the page.

The page needs no network: the data are one JSON block and the code one inline script.  Each
link's capacity (raw, and after protocol overhead) is the link kind's own sympy formula printed
as JavaScript by sympy's printer (:func:`sympy.printing.jscode.jscode`), in the link's parameter
values ``v.lanes``, ``v.lane_rate`` ...; a flow's ceiling is the minimum over the resources it
uses of capacity / passes, parallel links adding their capacities
(:func:`pinchpoint.solve.ceilings.parallel_groups`), as :mod:`pinchpoint.solve.sweep` evaluates it.
The routing is the one solved at the profile's values: exact wherever each leg of a flow has one
route (every bundled profile); on graphs with several routes the panel says the routing is kept.

Nothing from an input file becomes code: the JavaScript is printed from the registered link
kinds' formulas; names, descriptions and values travel as JSON data (``<``, ``>`` and ``&`` escaped) and are
written into the page as text nodes.
"""

from __future__ import annotations

import functools
import json

from pinchpoint.graph.resource_ids import convention, link_of, uses_network
from pinchpoint.inputs.param_values import valid_values
from pinchpoint.physics import units
from pinchpoint.physics.linkkinds import KINDS
from pinchpoint.graph.names import natural_key
from pinchpoint.report.plots_planning import human_unit
from pinchpoint.solve.ceilings import parallel_groups
from pinchpoint.solve.generations import current_generation, generation_values, generations, has_generation
from pinchpoint.solve.symbolic import link_substituted


@functools.lru_cache(maxsize=256)
def _kind_code(kind: str, params: tuple[str, ...]) -> tuple[str, str]:
    """(raw, effective) capacity of a link kind as JavaScript expressions in ``v.PARAM`` [B/s]."""
    import sympy
    from sympy.printing.jscode import jscode

    d = KINDS[kind]
    p = {name: sympy.Symbol(f"v.{name}", positive=True) for name in params}
    raw = d.capacity(p)
    eff = raw * d.efficiency(p) if d.efficiency is not None else raw
    return jscode(raw), jscode(eff)


def _link_data(profile, link) -> dict:
    conv = convention(link.definition.network)
    eff = link.effective_capacity_bytes_per_s
    return {
        "id": link.id, "kind": link.kind, "between": list(link.between), "duplex": link.duplex,
        "network": link.definition.network, "formula": link.definition.formula,
        "substituted": link_substituted(profile, link.id),
        "capacity": units.format_rate(link.capacity_bytes_per_s, conv)
        + (" each way" if link.duplex == "full" else ""),
        "effective": units.format_rate(eff, conv) if link.definition.efficiency else "",
        "description": link.description or "",
        "values": {n: v.si for n, v in link.params.items()},
    }


def _display_unit(name: str, dimension: str, si: float) -> tuple[float, str]:
    """Factor from SI and unit of a control: bus widths in bit (as datasheets give them), the
    rest in a prefixed unit that suits the value."""
    if name == "width" and dimension == "size":
        return 8.0, "bit"
    return human_unit([si], dimension)


def _control(link, name: str) -> dict:
    """One what-if control: a select for values the hardware takes, else a number in a readable unit."""
    value = link.params[name]
    spec = link.definition.param(name)
    choices = valid_values(link.kind, name)
    out = {"link": link.id, "param": name, "si": value.si, "doc": spec.doc}
    factor, unit = _display_unit(name, spec.dimension, value.si)
    if choices:
        out["choices"] = [[c, f"{c * factor:g} {unit}" if unit == "bit" else units.format_quantity(c, spec.dimension)]
                          for c in choices]
        return out
    out.update(factor=factor, unit="" if unit == "1" else unit, integer=spec.integer)
    return out


def _generation_control(link) -> dict | None:
    if not has_generation(link):
        return None
    gens = {str(g): generation_values(link, g) for g in generations()}
    return {"link": link.id, "param": "generation", "current": current_generation(link), "values": gens,
            "doc": "PCIe generation: lane rate, line code and (generation 6) FLIT framing"}


def whatif_data(profile, ceilings, focus: str | None) -> dict:
    """Everything the page's script needs, as JSON-ready data."""
    links = list(profile.links.values())
    index = {l.id: i for i, l in enumerate(links)}
    code = [_kind_code(l.kind, tuple(l.params)) for l in links]
    flows = []
    for c in ceilings:
        terms = [[[index[link_of(r)] for r in rids], u] for rids, u in parallel_groups(profile, c.usage)]
        flows.append({"name": c.name, "network": uses_network(profile, c.usage), "terms": terms,
                      "ceiling": c.ceiling_bytes_per_s, "effective": c.effective_ceiling_bytes_per_s,
                      "binding": list(c.binding)})
    binding = sorted({b for c in ceilings for b in c.binding}, key=natural_key)
    focus_links = next((list(c.binding) for c in ceilings if c.name == focus), [])
    panel = []
    for lid in sorted(binding, key=lambda b: (b not in focus_links, natural_key(b))):
        link = profile.links[lid]
        gen = _generation_control(link)
        panel.append({"link": lid, "kind": link.kind, "open": lid in focus_links,
                      "generation": gen, "controls": [_control(link, n) for n in link.params]})
    return {"links": [_link_data(profile, l) for l in links],
            "components": [{"id": k, "kind": c.kind, "model": c.model or ""} for k, c in profile.components.items()],
            "flows": flows, "panel": panel, "code": code}


def _script(code) -> str:
    """The capacity functions, one pair per link, as JavaScript source (printed by jscode)."""
    raw = ",\n".join(f"function(v){{return {r};}}" for r, _ in code)
    eff = ",\n".join(f"function(v){{return {e};}}" for _, e in code)
    return f"const PP_RAW = [\n{raw}\n];\nconst PP_EFF = [\n{eff}\n];\n"


def embedded(profile, ceilings, focus: str | None, several_routes: bool) -> str:
    """The data block, the capacity functions and the page script, for the end of <body>."""
    data = whatif_data(profile, ceilings, focus)
    data["several_routes"] = several_routes
    # no <, > or & in the block at all: text from a profile can never close the script element
    text = (json.dumps(data, separators=(",", ":"), allow_nan=False)
            .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
    return (f'<script type="application/json" id="pp-data">{text}</script>\n'
            f"<script>\n{_script(data['code'])}{SCRIPT}</script>\n")


def panel_html() -> str:
    """The what-if section; the script fills it."""
    return ('<h2>What if</h2>\n<p>Change a parameter of a binding link: every flow\'s ceiling below is '
            'recomputed in this page from the link formulas (no network, no server).  '
            '<button type="button" id="whatif-reset">back to the profile\'s values</button></p>\n'
            '<p id="whatif-routes" class="warning" hidden></p>\n'
            '<div id="whatif-controls"></div>\n'
            '<div class="scroll"><table id="whatif-table"><thead><tr><th>flow</th><th>profile</th>'
            '<th>what if (effective)</th><th>what if (raw)</th><th>binding</th><th>change</th></tr></thead>'
            '<tbody></tbody></table></div>\n')


CSS = """
#pp-tip { position: fixed; pointer-events: none; background: #fffff4; border: 1px solid #999; padding: 0.4em 0.6em;
          font-size: 0.82em; max-width: 34em; box-shadow: 0 2px 6px rgba(0,0,0,0.2); z-index: 10; }
#pp-tip b { display: block; } #pp-tip code { font-size: 0.95em; overflow-wrap: anywhere; }
.zoombar { margin: 0.3em 0; } .zoombar button { margin-right: 0.3em; }
#graph-view { overflow: hidden; border: 1px solid #ddd; cursor: grab; }
#graph-view svg { width: auto; max-width: 100%; height: auto; display: block; margin: 0 auto; }
#whatif-controls details { border: 1px solid #ddd; margin: 0.3em 0; padding: 0.2em 0.6em; }
#whatif-controls label { display: inline-block; margin: 0.2em 1.2em 0.2em 0; font-size: 0.9em; }
#whatif-controls input { width: 8em; }
td.up { color: #1a7f37; font-weight: 600; } td.down { color: #b42318; font-weight: 600; }
"""

SCRIPT = r"""
(function () {
  const D = JSON.parse(document.getElementById('pp-data').textContent);
  const P = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  function fmt(bytes, network) {
    let v = network ? bytes * 8 : bytes, k = 0;
    while (Math.abs(v) >= 1000 && k < P.length - 1) { v /= 1000; k++; }
    return (+v.toPrecision(4)).toString() + ' ' + P[k] + (network ? 'bit/s' : 'B/s');
  }
  function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls; return e; }

  // --- hover and zoom on the link graph ---
  const tip = el('div'); tip.id = 'pp-tip'; tip.hidden = true; document.body.appendChild(tip);
  function show(evt, lines) { tip.replaceChildren(); lines.forEach(function (l, i) {
      tip.appendChild(el(i ? 'div' : 'b', l)); }); tip.hidden = false; move(evt); }
  function move(evt) { tip.style.left = (evt.clientX + 14) + 'px'; tip.style.top = (evt.clientY + 14) + 'px'; }
  D.links.forEach(function (l, i) {
    const g = document.getElementById('pp-link-' + i); if (!g) return;
    const label = document.getElementById('pp-label-' + i);
    const lines = [l.id + ' (' + l.kind + ', ' + l.between.join(' \u2013 ') + ', ' + l.duplex + ' duplex)',
      'capacity = ' + l.formula, '= ' + l.substituted, '= ' + l.capacity];
    if (l.effective) lines.push('after protocol overhead: ' + l.effective);
    if (l.description) lines.push(l.description);
    [g, label].forEach(function (x) { if (!x) return; x.style.cursor = 'help';
      x.addEventListener('mouseenter', function (e) { show(e, lines); });
      x.addEventListener('mousemove', move);
      x.addEventListener('mouseleave', function () { tip.hidden = true; }); });
  });
  D.components.forEach(function (c, i) {
    const g = document.getElementById('pp-node-' + i); if (!g) return;
    g.addEventListener('mouseenter', function (e) { show(e, [c.id + ' (' + c.kind + ')', c.model]); });
    g.addEventListener('mousemove', move);
    g.addEventListener('mouseleave', function () { tip.hidden = true; });
  });
  const view = document.getElementById('graph-view');
  const svg = view ? view.querySelector('svg') : null;
  if (svg) {
    const w = parseFloat(svg.getAttribute('width')), h = parseFloat(svg.getAttribute('height'));
    if (!svg.getAttribute('viewBox')) svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    const box0 = svg.getAttribute('viewBox').split(/\s+/).map(Number);
    let box = box0.slice(), drag = null;
    function apply() { svg.setAttribute('viewBox', box.join(' ')); }
    function zoom(f, cx, cy) { const nw = box[2] * f, nh = box[3] * f;
      box = [cx - (cx - box[0]) * f, cy - (cy - box[1]) * f, nw, nh]; apply(); }
    function point(e) { const r = svg.getBoundingClientRect();
      return [box[0] + (e.clientX - r.left) / r.width * box[2], box[1] + (e.clientY - r.top) / r.height * box[3]]; }
    view.addEventListener('wheel', function (e) { e.preventDefault(); const p = point(e);
      zoom(e.deltaY < 0 ? 0.8 : 1.25, p[0], p[1]); }, {passive: false});
    view.addEventListener('mousedown', function (e) { drag = [e.clientX, e.clientY, box[0], box[1]]; });
    window.addEventListener('mouseup', function () { drag = null; });
    window.addEventListener('mousemove', function (e) { if (!drag) return; const r = svg.getBoundingClientRect();
      box[0] = drag[2] - (e.clientX - drag[0]) / r.width * box[2];
      box[1] = drag[3] - (e.clientY - drag[1]) / r.height * box[3]; apply(); });
    document.getElementById('zoom-in').onclick = function () { zoom(0.7, box[0] + box[2] / 2, box[1] + box[3] / 2); };
    document.getElementById('zoom-out').onclick = function () { zoom(1 / 0.7, box[0] + box[2] / 2, box[1] + box[3] / 2); };
    document.getElementById('zoom-reset').onclick = function () { box = box0.slice(); apply(); };
  }

  // --- what if ---
  const controls = document.getElementById('whatif-controls');
  if (!controls) return;
  if (D.several_routes) { const n = document.getElementById('whatif-routes'); n.hidden = false;
    n.textContent = 'This graph has more than one route between some components: the panel keeps the routing ' +
      'of the profile\'s values, so a ceiling may be lower than pinchpoint sweep or ceilings give after a change.'; }
  const values = D.links.map(function (l) { return Object.assign({}, l.values); });
  const inputs = [];
  D.panel.forEach(function (entry) {
    const box = el('details'); box.open = entry.open;
    box.appendChild(el('summary', entry.link + ' (' + entry.kind + ')'));
    const li = D.links.findIndex(function (l) { return l.id === entry.link; });
    if (entry.generation) {
      const g = entry.generation, lab = el('label', 'generation '), sel = el('select');
      sel.id = 'whatif-' + entry.link + '-generation'; sel.dataset.link = entry.link; sel.dataset.param = 'generation';
      if (g.current === null) sel.appendChild(el('option', 'as stated'));
      Object.keys(g.values).forEach(function (k) { const o = el('option', 'gen ' + k); o.value = k;
        if (String(g.current) === k) o.selected = true; sel.appendChild(o); });
      sel.title = g.doc;
      sel.addEventListener('change', function () { if (!(sel.value in g.values)) return;
        Object.assign(values[li], g.values[sel.value]);
        inputs.forEach(function (x) { if (x.li === li && x.param in g.values[sel.value]) x.set(values[li][x.param]); });
        update(); });
      lab.appendChild(sel); box.appendChild(lab);
    }
    entry.controls.forEach(function (c) {
      const lab = el('label', c.param + ' '); lab.title = c.doc;
      let input;
      if (c.choices) {
        input = el('select');
        c.choices.forEach(function (ch) { const o = el('option', ch[1]); o.value = ch[0];
          if (Math.abs(ch[0] - c.si) <= 1e-9 * Math.abs(c.si)) o.selected = true; input.appendChild(o); });
        if (!c.choices.some(function (ch) { return Math.abs(ch[0] - c.si) <= 1e-9 * Math.abs(c.si); })) {
          const o = el('option', 'as stated'); o.value = c.si; o.selected = true; input.prepend(o); }
      } else {
        input = el('input'); input.type = 'number'; input.step = 'any'; input.value = +(c.si * c.factor).toPrecision(12);
      }
      input.id = 'whatif-' + c.link + '-' + c.param; input.dataset.link = c.link; input.dataset.param = c.param;
      const read = function () { const x = parseFloat(input.value); return c.choices ? x : x / c.factor; };
      inputs.push({li: li, param: c.param, input: input, set: function (si) {
        input.value = c.choices ? si : +(si * c.factor).toPrecision(12); }});
      input.addEventListener('change', function () { const x = read();
        if (isFinite(x) && x >= 0) { values[li][c.param] = x; update(); } });
      lab.appendChild(input); if (c.unit) lab.appendChild(document.createTextNode(' ' + c.unit));
      box.appendChild(lab);
    });
    controls.appendChild(box);
  });
  const body = document.querySelector('#whatif-table tbody');
  const rows = D.flows.map(function (f, i) {
    const tr = el('tr'); tr.id = 'whatif-flow-' + i; tr.dataset.flow = f.name;
    const cells = [f.name, fmt(f.effective, f.network), '', '', '', ''].map(function (t, k) {
      const td = el('td', t, k > 0 && k < 4 ? 'num' : ''); tr.appendChild(td); return td; });
    body.appendChild(tr); return cells;
  });
  function ceiling(f, caps) {
    let best = Infinity, at = -1;
    f.terms.forEach(function (t, k) { let s = 0; t[0].forEach(function (li) { s += caps[li]; });
      const v = s / t[1]; if (v < best) { best = v; at = k; } });
    return [best, at];
  }
  function update() {
    const raw = values.map(function (v, i) { return PP_RAW[i](v); });
    const eff = values.map(function (v, i) { return PP_EFF[i](v); });
    D.flows.forEach(function (f, i) {
      const e = ceiling(f, eff), r = ceiling(f, raw), c = rows[i];
      c[2].textContent = fmt(e[0], f.network); c[2].dataset.bytesPerS = e[0];
      c[3].textContent = fmt(r[0], f.network); c[3].dataset.bytesPerS = r[0];
      c[4].textContent = f.terms[e[1]][0].map(function (li) { return D.links[li].id; }).join(' + ');
      const ratio = e[0] / f.effective;
      c[5].textContent = Math.abs(ratio - 1) < 1e-9 ? '' : 'x' + (+ratio.toPrecision(3));
      c[5].className = ratio > 1 + 1e-9 ? 'up' : ratio < 1 - 1e-9 ? 'down' : '';
    });
  }
  document.getElementById('whatif-reset').onclick = function () {
    D.links.forEach(function (l, i) { values[i] = Object.assign({}, l.values); });
    inputs.forEach(function (x) { x.set(values[x.li][x.param]); });
    controls.querySelectorAll('select[data-param=generation]').forEach(function (s) {
      const e = D.panel.find(function (p) { return p.link === s.dataset.link; });
      s.value = e.generation.current === null ? s.options[0].value : String(e.generation.current); });
    update();
  };
  update();
})();
"""

__all__ = ["CSS", "embedded", "panel_html", "whatif_data"]
