"""The console's Overview page in a real browser: live numbers (connections, requests and writes per second, sizes),
the last hour's chart and each database's size, refreshed while the page is open (docs/console.md, /.hearth/overview)."""

from __future__ import annotations

import json
import threading

import requests

from console_browser import ADMIN_HEADERS, admin, browser, browser_errors, console_server, find, screenshot, signed_in, wait_until  # noqa: F401


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return -1.0


def test_overview_shows_live_numbers(browser, console_server):
    url = console_server
    # Some data in two databases, so the sizes have something to show.
    assert admin("PUT", f"{url}/.settings/namespaces/shop.json").ok
    for i in range(20):
        assert admin("PUT", f"{url}/catalog/item{i}.json", json={"name": f"Item {i}", "price": i * 3, "tags": ["a", "b"]}).ok
        assert admin("PUT", f"{url}/orders/o{i}.json?ns=shop", json={"item": f"item{i}", "quantity": 2}).ok
    signed_in(browser, url, page="/_/overview")

    # Every card gets a number.
    wait_until(browser, lambda b: number(b.find_element("css selector", "#stat-requests").text) > 0,
               message="requests per second never above 0")
    assert find(browser, "#stat-connections").text == "0"
    assert find(browser, "#stat-database").text.endswith(("B", "KiB", "MiB"))
    assert find(browser, "#stat-storage").text.endswith(("B", "KiB", "MiB"))
    assert "database" in find(browser, "#stat-database-help").text
    ns_row = find(browser, '#namespaces-rows tr[data-ns="demo"]')
    assert ns_row.find_element("css selector", "td.num").text.endswith(("B", "KiB", "MiB"))
    assert ns_row.find_element("css selector", "a").get_attribute("href").endswith("/_/data?ns=demo")
    find(browser, "#history-chart")
    assert [li.text for li in browser.find_elements("css selector", "#history-legend li")] == ["Requests / s", "Writes / s"]

    # Steady writes while the page is open (about 20 a second from another client): the writes per second and the
    # chart's history show them without a reload.
    stop = threading.Event()
    written = []

    def writer():
        session = requests.Session()
        while not stop.is_set() and len(written) < 400:
            r = session.patch(f"{url}/counters.json", json={f"c{len(written) % 50}": len(written)}, headers=ADMIN_HEADERS, timeout=10)
            written.append(r.status_code)
            stop.wait(0.05)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        wait_until(browser, lambda b: number(b.find_element("css selector", "#stat-writes").text) >= 2,
                   message="writes per second stayed below 2 under about 20 writes a second")
        wait_until(browser, lambda b: " 0.00 writes/s" not in b.find_element("css selector", "#history-summary").text,
                   message="the history shows no writes")
        assert find(browser, '#history-chart path[data-series="writes"]').get_attribute("d").startswith("M")
        assert len(browser.find_elements("css selector", "#namespaces-rows tr[data-ns]")) == 2

        # It keeps refreshing: the status line's time moves on.
        first = find(browser, "#overview-status", text="Updated").text
        wait_until(browser, lambda b: b.find_element("css selector", "#overview-status").text != first, timeout=8,
                   message="the page did not refresh within 8 seconds")
        browser.set_window_size(1280, 1200)
        try:
            find(browser, '#namespaces-rows tr[data-ns="shop"]')
            screenshot(browser, "overview")
        finally:
            browser.set_window_size(1280, 900)
    finally:
        stop.set()
        thread.join(15)
    assert written and set(written) == {200}

    # The endpoint agrees with the page: every write is in the history (counted where the database commits).
    overview = admin("GET", f"{url}/.hearth/overview").json()
    assert sum(b["writes"] for b in overview["history"]) >= 40 + len(written)
    assert overview["databaseBytes"] == sum(ns["bytes"] for ns in overview["namespaces"]) > 0

    # Leaving the page for another one works (the refresh stops with it).
    find(browser, '#nav a[data-page="links"]').click()
    find(browser, "#page-title", text="Links")
    assert browser_errors(browser) == []


def test_overview_needs_the_admin(console_server):
    url = console_server
    assert requests.get(f"{url}/.hearth/overview", timeout=10).status_code == 401
    r = admin("POST", f"{url}/.hearth/overview")
    assert r.status_code == 405
    body = admin("GET", f"{url}/.hearth/overview").json()
    assert set(body) >= {"connections", "listeners", "requestsPerSecond", "writesPerSecond", "databaseBytes", "storageBytes",
                         "namespaces", "history"}
    json.dumps(body)
