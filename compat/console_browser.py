"""Driving the console (`/_/`) in a real browser: Debian's chromium and chromium-driver through selenium.

``console_server`` (module scope) starts ``hearth serve`` outside ``--dev`` with the admin token ``ADMIN_TOKEN``;
``browser`` (module scope) is a headless Chromium; ``signed_in(browser, url)`` signs in through the sign-in page.
``screenshot(browser, name)`` keeps a PNG of the page in ``docs/console/`` (``$HEARTH_CONSOLE_SCREENSHOTS`` to put
them elsewhere), which the README shows. Every wait is bounded.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

import pytest
import requests

from hearth_process import hearth_process

ADMIN_TOKEN = "console-test-admin-token"
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
WAIT = 15.0
ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = Path(os.environ.get("HEARTH_CONSOLE_SCREENSHOTS", ROOT / "docs" / "console"))
CHROMIUM = os.environ.get("HEARTH_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HEARTH_CHROMEDRIVER", shutil.which("chromedriver") or "/usr/bin/chromedriver")


def _webdriver():
    try:
        from selenium import webdriver
    except ImportError:
        pytest.fail("selenium is not installed (compat/requirements.txt)", pytrace=False)
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        pytest.fail(f"Chromium ({CHROMIUM}) and its driver ({CHROMEDRIVER}) are needed: apt-get install chromium chromium-driver",
                    pytrace=False)
    return webdriver


def new_browser(width: int = 1280, height: int = 900):
    """A headless Chromium with its own profile; the caller quits it."""
    webdriver = _webdriver()
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},{height}",
                "--lang=en-US", "--no-first-run", "--disable-extensions", "--disable-background-networking"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


@pytest.fixture(scope="module")
def browser():
    driver = new_browser()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def console_server(tmp_path_factory):
    """``hearth serve`` (not --dev) with ``ADMIN_TOKEN``; yields its base URL."""
    tmp = tmp_path_factory.mktemp("console")
    env = {"HEARTH_ADMIN_TOKEN": ADMIN_TOKEN}
    with hearth_process([], tmp / "data", tmp / "server.log", env=env, probe="/.json", probe_headers=ADMIN_HEADERS) as (url, _, _):
        yield url


def wait_until(browser, condition: Callable, timeout: float = WAIT, message: str = ""):
    """Waits for ``condition(browser)`` to be truthy; returns its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout, poll_frequency=0.1).until(condition, message)


def find(browser, css: str, timeout: float = WAIT, text: str | None = None):
    """The first visible element matching ``css`` (whose text contains ``text``, when given), waiting for it."""
    from selenium.webdriver.common.by import By

    def present(b):
        for element in b.find_elements(By.CSS_SELECTOR, css):
            try:
                if element.is_displayed() and (text is None or text in element.text):
                    return element
            except Exception:  # noqa: BLE001 - a stale element: look again
                continue
        return False

    return wait_until(browser, present, timeout, f"no visible {css!r}" + (f" containing {text!r}" if text else ""))


def signed_in(browser, url: str, token: str = ADMIN_TOKEN, page: str = "/_/overview") -> None:
    """Signs in through the sign-in page (when not signed in already) and opens ``page``."""
    browser.get(url + page)
    if "/_/login" in browser.current_url:
        field = find(browser, "#credential")
        field.clear()
        field.send_keys(token)
        find(browser, "#signin").click()
        wait_until(browser, lambda b: "/_/login" not in b.current_url, message="still on the sign-in page")
    find(browser, "#nav")


def screenshot(browser, name: str) -> Path:
    """Saves the page as ``<SCREENSHOTS>/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    return path


def browser_errors(browser) -> list[str]:
    """Severe messages of the page's console (script errors), ignoring failed requests the test caused on purpose."""
    return [entry["message"] for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"
            and "Failed to load resource" not in entry["message"]]


def admin(method: str, url: str, **kwargs) -> requests.Response:
    """A request with the admin token, bounded."""
    kwargs.setdefault("timeout", 10)
    headers = {**ADMIN_HEADERS, **kwargs.pop("headers", {})}
    return requests.request(method, url, headers=headers, **kwargs)
