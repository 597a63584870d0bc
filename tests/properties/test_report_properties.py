"""Properties of the report and its pictures, on random profiles and random text."""

from __future__ import annotations

from html.parser import HTMLParser

import matplotlib
import matplotlib.colors as mcolors
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

matplotlib.use("Agg")

from pinchpoint.report import plots_report  # noqa: E402
from pinchpoint.solve.ceilings import all_ceilings  # noqa: E402
from pinchpoint.diagnose import Limit  # noqa: E402
from pinchpoint.inputs.profile import profile_from_document  # noqa: E402
from pinchpoint.report.page import _table  # noqa: E402

from .strategies import profile_documents  # noqa: E402

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def _red(artist_colour) -> bool:
    return mcolors.to_hex(artist_colour) == plots_report.BINDING


@SETTINGS
@given(doc=profile_documents(), data=st.data())
def test_link_graph_marks_exactly_the_binding_links(doc, data):
    import matplotlib.pyplot as plt

    profile = profile_from_document(doc)
    ceiling = data.draw(st.sampled_from(all_ceilings(profile)))
    ax = plots_report.link_graph(profile, ceiling)
    assert len(ax.lines) == len(profile.links)
    red = [l for l in ax.lines if _red(l.get_color())]
    assert len(red) == len(set(ceiling.binding))
    assert set(plots_report.graph_positions(profile, ceiling.name if ceiling.name in profile.flows else None)) \
        == set(profile.components)
    plt.close(ax.figure)


@SETTINGS
@given(values=st.lists(st.floats(1e3, 1e12), min_size=1, max_size=8),
       measured=st.one_of(st.none(), st.floats(1e3, 1e12)))
def test_ladder_one_bar_each_lowest_on_top_and_red(values, measured):
    import matplotlib.pyplot as plt

    rungs = [Limit(f"c{i}", "link", v, "") for i, v in enumerate(values)]
    ax = plots_report.ceiling_ladder(rungs, measured)
    bars = ax.patches
    assert len(bars) == len(values)
    top = max(bars, key=lambda b: b.get_y())
    # network rates in bit/s with the prefix the axis label names (kbit/s .. Tbit/s)
    unit = ax.get_xlabel().split("[")[1].rstrip("]")
    assert unit.endswith("bit/s")
    per_unit = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[unit[:-len("bit/s")]] / 8  # B/s per unit
    assert top.get_width() * per_unit == pytest.approx(min(values))
    assert _red(top.get_facecolor())
    assert sum(_red(b.get_facecolor()) for b in bars) == 1
    assert ax.get_xlim()[1] * per_unit >= max(values + [measured or 0]) * (1 - 1e-12)
    plt.close(ax.figure)


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells, self._cell, self.tags = [], None, []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td":
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc"))), min_size=3, max_size=3),
                     min_size=1, max_size=5))
def test_table_cells_round_trip_through_an_html_parser(rows):
    """Whatever the text (<script>, &, quotes), the page shows it as text and adds no element."""
    page = _table("t", ["a", "b", "c"], [(r, False) for r in rows], numeric=(1,), wrap=(2,))
    p = _Cells()
    p.feed(page)
    assert p.cells == [c for r in rows for c in r]
    assert set(p.tags) <= {"div", "table", "thead", "tbody", "tr", "th", "td"}
