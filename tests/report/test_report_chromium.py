"""Acceptance: the HTML report renders in headless Chromium with the ceiling table, the graph and
the ladder.  Skipped with a reason when Chromium is not installed (.ci/run installs the
Debian package ``chromium``)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
                 if p and Path(p).is_file()), None)

pytestmark = [pytest.mark.needs_tool, pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")]

WIDTH, HEIGHT = 1280, 2000


def _chromium(url: str, *extra: str, timeout: float = 120) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="pinchpoint-chromium-") as profile_dir:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", f"--user-data-dir={profile_dir}", f"--window-size={WIDTH},{HEIGHT}",
             *extra, url],
            capture_output=True, text=True, timeout=timeout)


class _Dom(HTMLParser):
    """What the rendered DOM holds: ids with their tag, svgs inside each figure, ceiling-table rows."""

    def __init__(self):
        super().__init__()
        self.ids, self.svg_in, self._figure, self.rows, self._in_table, self._row = {}, {}, None, [], False, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.setdefault(a["id"], tag)
        if tag == "figure":
            self._figure = a.get("id")
        elif tag == "svg" and self._figure:
            self.svg_in[self._figure] = self.svg_in.get(self._figure, 0) + 1
        elif tag == "table":
            self._in_table = a.get("id") == "ceiling-table"
        elif tag == "tr" and self._in_table:
            self._row = []

    def handle_endtag(self, tag):
        if tag == "figure":
            self._figure = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(" ".join(self._row))
            self._row = None
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data):
        if self._row is not None and data.strip():
            self._row.append(data.strip())


def _png_pixels(path: Path):
    import matplotlib.image as mpimg

    return mpimg.imread(str(path))  # float array, height x width x channels


def test_report_renders_in_chromium(tmp_path, cli):
    page = tmp_path / "g5.html"
    # the UvA G5 report (2004), 4.4.1: iperf TCP 3.5 Gbit/s, 16 streams, MSS 9000, MMRBC raised to 4096
    r = cli("report", "powermac-g5", "--measured", "3.5 Gbit/s", "--flow", "nic-rx", "--mtu", "9000",
            "--streams", "16", "--mmrbc", "4096", "--signature", "powermac-g5-xbench", "-o", str(page))
    assert r.returncode == 0, r.stderr

    shot = tmp_path / "shot.png"
    r = _chromium(page.as_uri(), f"--screenshot={shot}")
    assert shot.is_file(), r.stderr[-2000:]
    # a real rendering, not a blank page: a size a blank PNG never has, the window's size,
    # many colours (text, red binding bar, blue bars), and not one colour everywhere
    assert shot.stat().st_size > 50_000
    px = _png_pixels(shot)
    assert px.shape[:2] == (HEIGHT, WIDTH)
    rgb = (px[..., :3] * 255).round().astype("uint8").reshape(-1, 3)
    colours = {tuple(c) for c in rgb[::7]}
    assert len(colours) > 50
    assert float(px[..., :3].std()) > 0.05
    # the binding bar's red (#d62728 = 214, 39, 40) is on screen
    red = ((abs(rgb[:, 0].astype(int) - 214) < 12) & (abs(rgb[:, 1].astype(int) - 39) < 12)
           & (abs(rgb[:, 2].astype(int) - 40) < 12)).sum()
    assert red > 200

    dom = _chromium(page.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    d = _Dom()
    d.feed(dom.stdout)
    assert d.ids.get("ceiling-table") == "table"
    assert d.svg_in.get("graph") == 1 and d.svg_in.get("ladder") == 1
    assert d.ids.get("verdict") == "div" and d.ids.get("advice") == "div"
    assert any(row.startswith("nic-rx 8.512 Gbit/s") and "pcix" in row for row in d.rows)
    assert "far-below-all" in dom.stdout
