"""Headless Chromium driven by Selenium for the console's end-to-end tests.

Debian's `chromium` and `chromium-driver` (scripts/install.sh); the driver's path is given
explicitly, since Selenium Manager would try to download a browser, which cannot work here. As
root Chromium needs --no-sandbox. Screenshots go to $TESSERA_ARTIFACTS (default <repo>/out/artifacts)
under console/, kept after the run.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from helpers import REPO

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER_CANDIDATES = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
ARTIFACTS = Path(os.environ.get("TESSERA_ARTIFACTS", str(REPO / "out" / "artifacts"))) / "console"


def find(candidates, name: str) -> str | None:
    for path in candidates:
        if os.path.exists(path):
            return path
    return shutil.which(name)


def start_chromium(width: int = 1400, height: int = 1000):
    """A headless Chromium session; the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = find(CHROMIUM_CANDIDATES, "chromium"), find(DRIVER_CANDIDATES, "chromedriver")
    if not browser or not driver:
        raise AssertionError("chromium / chromedriver not found: run scripts/install.sh (chromium, chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", f"--window-size={width},{height}", "--disable-gpu",
                     "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    # Console messages (CSP violations show there) are read back by the tests.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def screenshot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
