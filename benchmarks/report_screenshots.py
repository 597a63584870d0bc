"""Screenshots of the HTML report in headless Chromium, to look at as a reader would.

Writes, for each profile, the report and a full-page PNG into a folder outside the repository
(default: a new folder under the system's temporary folder), and prints the paths.  Nothing is
kept in the repository.

    python3 benchmarks/report_screenshots.py [--out DIR] [PROFILE ...]

Default profiles: powermac-g5, h100-pcie-host, hgx-h100-8gpu.  Needs Debian's ``chromium``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROFILES = ("powermac-g5", "h100-pcie-host", "hgx-h100-8gpu")
#: Chromium run as root in a container: no sandbox, no GPU, nothing from the network.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--hide-scrollbars")


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("chromium is not installed (apt-get install chromium)")


def screenshot(browser: str, page: Path, png: Path, width: int, height: int) -> None:
    with tempfile.TemporaryDirectory(prefix="pinchpoint-chromium-") as profile_dir:
        subprocess.run([browser, *FLAGS, f"--user-data-dir={profile_dir}", f"--window-size={width},{height}",
                        f"--screenshot={png}", page.as_uri()], check=True, capture_output=True, timeout=180)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profiles", nargs="*", default=list(PROFILES))
    ap.add_argument("--out", type=Path, help="folder for the pages and PNGs (default: a new temporary folder)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=4200)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="pinchpoint-screenshots-"))
    out.mkdir(parents=True, exist_ok=True)
    browser = chromium()
    for name in args.profiles:
        page = out / f"{name}.html"
        subprocess.run([sys.executable, "-m", "pinchpoint.cli", "-q", "report", name, "-o", str(page)], check=True)
        png = out / f"{name}.png"
        screenshot(browser, page, png, args.width, args.height)
        print(png)


if __name__ == "__main__":
    main()
