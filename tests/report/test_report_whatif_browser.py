"""Acceptance in a real browser: the report's what-if panel and the graph's hover.

Debian's chromium driven by chromium-driver through selenium.  A test moves a control of the
panel and reads the new ceiling the page computed; the expected value is what ``pinchpoint
ceilings --json`` computes for a profile file that states the new value (a child profile that
extends the bundled one), so the page's JavaScript is checked against the solver, not against
itself.  Skipped with a reason when chromium, chromium-driver or selenium is missing.
"""

from __future__ import annotations

import json
import shutil
import tempfile

import pytest

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = [pytest.mark.needs_tool, pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
              pytest.mark.skipif(DRIVER is None,
                                 reason="chromedriver is not installed (apt-get install chromium-driver)")]

#: Chromium as root in a container: no sandbox, no GPU, nothing from the network.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--window-size=1280,2000")


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    with tempfile.TemporaryDirectory(prefix="pinchpoint-chromium-") as profile_dir:
        for flag in FLAGS + (f"--user-data-dir={profile_dir}",):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def _report(cli, tmp_path, profile, flow):
    page = tmp_path / f"{profile}.html"
    r = cli("report", profile, "--flow", flow, "-o", str(page))
    assert r.returncode == 0, r.stderr
    return page


def _expected(cli, tmp_path, parent: str, link: str, lines: str, flow: str) -> dict:
    """The flow's ceilings from ``pinchpoint ceilings --json`` on a child profile file."""
    child = tmp_path / "child.toml"
    child.write_text(f'schema = 1\nextends = "{parent}"\nname = "what-if"\n\n[links.{link}]\n{lines}\n',
                     encoding="utf-8")
    r = cli("ceilings", str(child), "--flow", flow, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    return next(f for f in doc["flows"] if f["name"] == flow)


def _row(driver, flow: str):
    row = driver.find_element(By.CSS_SELECTOR, f'#whatif-table tr[data-flow="{flow}"]')
    cells = row.find_elements(By.TAG_NAME, "td")
    return (float(cells[2].get_attribute("data-bytes-per-s")), float(cells[3].get_attribute("data-bytes-per-s")),
            cells[4].text, cells[5].text)


def test_pcix_clock_what_if_equals_ceilings_of_that_profile(browser, cli, tmp_path):
    page = _report(cli, tmp_path, "powermac-g5", "nic-rx")
    browser.get(page.as_uri())
    effective, raw, binding, _ = _row(browser, "nic-rx")
    start = _expected(cli, tmp_path, "powermac-g5", "pcix", 'clock = "133 MHz"', "nic-rx")
    assert effective == pytest.approx(start["effective_ceiling_bytes_per_s"], rel=1e-9)  # the profile's own values
    box = browser.find_element(By.ID, "whatif-pcix-clock")
    box.clear()
    box.send_keys("66", Keys.TAB)  # MHz: PCI-X 66
    effective, raw, binding, change = _row(browser, "nic-rx")
    want = _expected(cli, tmp_path, "powermac-g5", "pcix", 'clock = "66 MHz"', "nic-rx")
    assert effective == pytest.approx(want["effective_ceiling_bytes_per_s"], rel=1e-9)
    assert raw == pytest.approx(want["ceiling_bytes_per_s"], rel=1e-9)
    assert binding in want["binding"] and change.startswith("x0.")


def test_mmrbc_select_what_if(browser, cli, tmp_path):
    page = _report(cli, tmp_path, "powermac-g5", "nic-rx")
    browser.get(page.as_uri())
    Select(browser.find_element(By.ID, "whatif-pcix-burst")).select_by_visible_text("512 B")
    effective, _, _, _ = _row(browser, "nic-rx")
    want = _expected(cli, tmp_path, "powermac-g5", "pcix", 'burst = "512 B"', "nic-rx")
    assert effective == pytest.approx(want["effective_ceiling_bytes_per_s"], rel=1e-9)
    browser.find_element(By.ID, "whatif-reset").click()
    back = _expected(cli, tmp_path, "powermac-g5", "pcix", 'clock = "133 MHz"', "nic-rx")
    assert _row(browser, "nic-rx")[0] == pytest.approx(back["effective_ceiling_bytes_per_s"], rel=1e-9)


def test_what_if_gen4(browser, cli, tmp_path):
    """The support engineer's question: the H100 host's GPU link at PCIe 4.0 instead of 5.0."""
    page = _report(cli, tmp_path, "h100-pcie-host", "h2d")
    browser.get(page.as_uri())
    Select(browser.find_element(By.ID, "whatif-pcie-generation")).select_by_value("4")
    effective, raw, binding, change = _row(browser, "h2d")
    want = _expected(cli, tmp_path, "h100-pcie-host", "pcie", "generation = 4", "h2d")
    assert effective == pytest.approx(want["effective_ceiling_bytes_per_s"], rel=1e-9)
    assert raw == pytest.approx(want["ceiling_bytes_per_s"], rel=1e-9)
    assert binding == "pcie" and change == "x0.5"  # half the lane rate, the same line code


def test_hover_shows_the_link_formula_and_values(browser, cli, tmp_path):
    page = _report(cli, tmp_path, "powermac-g5", "nic-rx")
    browser.get(page.as_uri())
    links = json.loads(browser.find_element(By.ID, "pp-data").get_attribute("textContent"))["links"]
    i = next(k for k, l in enumerate(links) if l["id"] == "pcix")
    line = browser.find_element(By.CSS_SELECTOR, f"#pp-link-{i} path")
    ActionChains(browser).move_to_element(line).perform()
    tip = browser.find_element(By.ID, "pp-tip")
    assert tip.is_displayed()
    assert "width*clock" in tip.text and "(64 bit)" in tip.text and "1.064 GB/s" in tip.text
    box = "return document.querySelector('#graph-view svg').getAttribute('viewBox')"
    before = browser.execute_script(box)
    browser.find_element(By.ID, "zoom-in").click()
    after = browser.execute_script(box)
    assert float(after.split()[2]) == pytest.approx(0.7 * float(before.split()[2]))
