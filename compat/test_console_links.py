"""The console's Links page in a real browser: make a short link in the page, click it from an iPhone, Android phones
and a desktop, see those clicks per platform in the link's chart, legend and table, and delete it
(docs/console.md, /.hearth/links)."""

from __future__ import annotations

import datetime

import pytest
import requests

from console_browser import ADMIN_HEADERS, ADMIN_TOKEN, browser, browser_errors, find, screenshot, signed_in, wait_until  # noqa: F401
from hearth_process import hearth_process

DOMAIN = "https://go.example.com"
HOST = "go.example.com"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36"
DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"


@pytest.fixture(scope="module")
def links_server(tmp_path_factory):
    """``hearth serve`` (not --dev) with a link domain and an authorized domain links may point to."""
    tmp = tmp_path_factory.mktemp("console-links")
    args = ["--link-domains", DOMAIN, "--authorized-domains", "app.example.com"]
    with hearth_process(args, tmp / "data", tmp / "server.log", env={"HEARTH_ADMIN_TOKEN": ADMIN_TOKEN}, probe="/.json",
                        probe_headers=ADMIN_HEADERS) as (url, _, _):
        yield url


def open_link(url: str, suffix: str, user_agent: str) -> requests.Response:
    """Opens the short link as a phone or a browser on the link's own domain, without following the redirect."""
    return requests.get(f"{url}/{suffix}", headers={"Host": HOST, "User-Agent": user_agent}, allow_redirects=False, timeout=10)


def row(browser, suffix: str):
    return find(browser, f'#links-rows tr[data-suffix="{suffix}"]')


def test_create_click_chart_and_delete(browser, links_server):
    url = links_server
    signed_in(browser, url, page="/_/links")
    find(browser, "#links-rows", text="No short links yet")

    # Refused input gets a message, not silence: a non-web address, then one outside the allowlist (the server's words).
    target = find(browser, "#link-target")
    target.send_keys("ftp://files.example.com/report.pdf")
    find(browser, "#link-create").click()
    find(browser, ".toast.error", text="http or https")
    target.clear()
    target.send_keys("https://elsewhere.example.net/")
    find(browser, "#link-create").click()
    find(browser, ".toast.error", text="allowlist")

    # A short link made in the page.
    target.clear()
    target.send_keys("https://app.example.com/welcome?from=console")
    find(browser, "#link-create").click()
    made = find(browser, "#link-created", text=f"Made {DOMAIN}/").text
    short_link = made.removeprefix("Made ").strip()
    suffix = short_link.rsplit("/", 1)[1]
    cells = row(browser, suffix).find_elements("css selector", "td")
    assert cells[0].text == short_link
    assert cells[1].text == "https://app.example.com/welcome?from=console"
    assert cells[3].text == "0"

    # Opened twice from an iPhone (the interstitial page), three times from Android and once from a desktop (redirects).
    for agent, times, status in ((IPHONE, 2, 200), (ANDROID, 3, 302), (DESKTOP, 1, 302)):
        for _ in range(times):
            r = open_link(url, suffix, agent)
            assert r.status_code == status, (agent, r.status_code, r.text[:200])
            if status == 302:
                assert r.headers["Location"] == "https://app.example.com/welcome?from=console"

    # The table counts them (clicks are read back with those not yet saved), and the link's chart splits them.
    browser.get(f"{url}/_/links")
    wait_until(browser, lambda b: row(b, suffix).find_elements("css selector", "td.clicks")[0].text == "6",
               message="the clicks column does not show 6")
    row(browser, suffix).find_element("css selector", f'button[aria-label="Clicks of {short_link}"]').click()
    chart = find(browser, "#stats-chart")
    # The row is drawn again with the button pressed, and the keyboard's place stays on it.
    assert browser.switch_to.active_element.get_attribute("aria-pressed") == "true"
    assert short_link in find(browser, "#link-stats-title").text
    assert f"link={suffix}" in browser.current_url

    bars: dict[str, int] = {}
    for rect in chart.find_elements("css selector", "rect.bar"):
        bars[rect.get_attribute("data-series")] = bars.get(rect.get_attribute("data-series"), 0) + int(rect.get_attribute("data-value"))
    assert bars == {"iOS": 2, "Android": 3, "Desktop": 1}
    # One bar today, stacked: its segments sit on top of each other.
    today = datetime.datetime.now(datetime.timezone.utc).date()
    labels = {rect.get_attribute("data-label") for rect in chart.find_elements("css selector", "rect.bar")}
    assert labels == {today.strftime("%m-%d")}
    legend = [li.text for li in browser.find_elements("css selector", "#stats-legend li")]
    assert legend == ["iOS: 2", "Android: 3", "Desktop: 1", "Other: 0"]
    table_row = find(browser, f'#stats-table tbody tr[data-date="{today.isoformat()}"]')
    assert [td.text for td in table_row.find_elements("css selector", "td")] == ["2", "3", "1", "0", "6"]
    assert find(browser, "#stats-total").text == "6"
    assert "iOS 2, Android 3, Desktop 1, Other 0; 6 in all" in find(browser, "#stats-summary").text
    # The same numbers as Firebase's linkStats, summed over the days.
    stats = requests.get(f"{url}/v1/{requests.utils.quote(short_link, safe='')}/linkStats", params={"durationDays": 7},
                         headers=ADMIN_HEADERS, timeout=10).json()
    clicks = {s["platform"]: int(s["count"]) for s in stats["linkEventStats"] if s["event"] == "CLICK"}
    assert clicks == {"IOS": 2, "ANDROID": 3, "DESKTOP": 1}

    # Redirects: phones and desktops that were sent on (the iPhone saw the interstitial page instead).
    find(browser, "#stats-event option[value='REDIRECT']").click()
    wait_until(browser, lambda b: b.find_elements("css selector", "#stats-total") and b.find_element("css selector", "#stats-total").text == "4",
               message="the redirects total is not 4")
    assert [li.text for li in browser.find_elements("css selector", "#stats-legend li")] == ["iOS: 0", "Android: 3", "Desktop: 1", "Other: 0"]
    find(browser, "#stats-event option[value='CLICK']").click()
    wait_until(browser, lambda b: b.find_elements("css selector", "#stats-total") and b.find_element("css selector", "#stats-total").text == "6",
               message="back to clicks: the total is not 6")

    # A second link, so the screenshot shows a list.
    target = find(browser, "#link-target")
    target.send_keys("https://app.example.com/offers/spring")
    find(browser, "#link-create").click()
    find(browser, "#link-created", text="Made")
    wait_until(browser, lambda b: len(b.find_elements("css selector", "#links-rows tr[data-suffix]")) == 2, message="no second link")
    find(browser, "#stats-days option[value='7']").click()
    wait_until(browser, lambda b: "from " + (today - datetime.timedelta(days=6)).isoformat() in b.find_element("css selector", "#stats-summary").text,
               message="the period did not change to 7 days")
    browser.set_window_size(1280, 1500)
    try:
        find(browser, "#stats-chart")
        screenshot(browser, "links")
    finally:
        browser.set_window_size(1280, 900)

    # Delete, confirmed in the dialog: the row goes and the short link no longer answers.
    row(browser, suffix).find_element("css selector", f'button[aria-label="Delete {short_link}"]').click()
    find(browser, "dialog.dialog", text="Delete short link")
    find(browser, "dialog.dialog button.danger").click()
    find(browser, ".toast.ok", text=f"Deleted {short_link}")
    wait_until(browser, lambda b: not b.find_elements("css selector", f'#links-rows tr[data-suffix="{suffix}"]'), message="the row stayed")
    assert not browser.find_element("css selector", "#link-stats").is_displayed()
    assert open_link(url, suffix, DESKTOP).status_code == 404
    r = requests.delete(f"{url}/.hearth/links/{suffix}", headers=ADMIN_HEADERS, timeout=10)
    assert r.status_code == 404
    assert browser_errors(browser) == []


def test_links_endpoints_refuse_bad_input(links_server):
    url = links_server
    r = requests.get(f"{url}/.hearth/links", params={"pageSize": 0}, headers=ADMIN_HEADERS, timeout=10)
    assert r.status_code == 400 and "pageSize" in r.json()["error"]
    r = requests.get(f"{url}/.hearth/links/NoSuchLink/stats", headers=ADMIN_HEADERS, timeout=10)
    assert r.status_code == 404
    r = requests.get(f"{url}/.hearth/links/a.b/stats", headers=ADMIN_HEADERS, timeout=10)
    assert r.status_code == 400
    assert requests.get(f"{url}/.hearth/links", timeout=10).status_code == 401
