"""The console's Functions page (`/_/functions`) in a real browser, against the functions example
(`hearth-functions-example`): registered functions with their triggers and schedules, a trigger failing into the
dead letters until a switch in the database is flipped, retried from the page, and a schedule run by hand."""

from __future__ import annotations

import pytest

from console_browser import (ADMIN_HEADERS, ADMIN_TOKEN, admin, browser, browser_errors, find, screenshot,  # noqa: F401
                             signed_in, wait_until)
from hearth_process import hearth_process

EXAMPLE = "hearth-functions-example"


@pytest.fixture(scope="module")
def functions_server(tmp_path_factory):
    """The functions example (not --dev) with the console tests' admin token; yields its base URL."""
    tmp = tmp_path_factory.mktemp("console-functions")
    env = {"HEARTH_ADMIN_TOKEN": ADMIN_TOKEN}
    with hearth_process([], tmp / "data", tmp / "server.log", env=env, probe="/.json", probe_headers=ADMIN_HEADERS,
                        binary=EXAMPLE) as (url, _, _):
        yield url


def put(url: str, path: str, value) -> None:
    r = admin("PUT", f"{url}/{path}.json", json=value)
    assert r.status_code == 200, r.text


def get(url: str, path: str):
    r = admin("GET", f"{url}/{path}.json")
    assert r.status_code == 200, r.text
    return r.json()


def dead_letter_ids(url: str, paths: list[str]) -> dict[str, str]:
    """The dead-letter event ids (`db:demo/N`) of the orders at `paths`, once every one is dead."""
    def all_dead(_):
        r = admin("GET", f"{url}/.hearth/functions/deadLetters")
        found = {d["payload"]["path"]: f'{d["queue"]}/{d["id"]}' for d in r.json()["deadLetters"] if isinstance(d["payload"], dict)}
        return found if all(p in found for p in paths) else False
    return wait_until(None, all_dead, message=f"no dead letters for {paths}")


def test_registered_functions_show_their_triggers_and_schedules(browser, functions_server):
    url = functions_server
    signed_in(browser, url, page="/_/functions")
    assert find(browser, "#page-title").text == "Functions"
    ship = find(browser, '#functions-table tr[data-function="consoleDemoShip"]')
    assert "Database" in ship.text and "created /consoleDemo/orders/{id}" in ship.text
    report = find(browser, '#functions-table tr[data-function="consoleDemoDailyReport"]')
    assert "Schedule" in report.text and "0 6 * * * (UTC)" in report.text
    # A schedule shows when it runs next (a date, "in … h") and has a Run now button; other kinds have neither.
    assert " h" in report.text or "min" in report.text, report.text
    assert report.find_elements("css selector", "button.run-now")
    assert not ship.find_elements("css selector", "button.run-now")
    assert "POST /functions/createInvite" in find(browser, '#functions-table tr[data-function="createInvite"]').text
    assert "GET /api/v1/openapi.json" in find(browser, '#functions-table tr[data-function="GET /api/v1/openapi.json"]').text
    assert "account created" in find(browser, '#functions-table tr[data-function="rewardsUserCreated"]').text
    assert "object finalized" in find(browser, '#functions-table tr[data-function="staysPhotoUploaded"]').text
    assert find(browser, "#dead-empty").text.startswith("No dead letters")


def test_retrying_a_dead_letter(browser, functions_server):
    url = functions_server
    signed_in(browser, url, page="/_/functions")
    put(url, "consoleDemo/switch", False)
    put(url, "consoleDemo/orders/o-1001", {"item": "Espresso cups", "qty": 2})
    put(url, "consoleDemo/orders/o-1002", {"item": "Tea towel", "qty": 1})
    ids = dead_letter_ids(url, ["/consoleDemo/orders/o-1001", "/consoleDemo/orders/o-1002"])
    first, second = ids["/consoleDemo/orders/o-1001"], ids["/consoleDemo/orders/o-1002"]

    # The page shows both (it refreshes by itself): what failed, how often, and why.
    row = find(browser, f'#dead-letters tr[data-event="{first}"]')
    assert "consoleDemoShip" in row.text and "created /consoleDemo/orders/o-1001" in row.text
    assert "Shipping is switched off" in row.text
    assert row.find_element("css selector", "td.num").text == "2"
    find(browser, f'#dead-letters tr[data-event="{second}"]')
    # Both attempts are in the recent runs: the first will retry, the second made it a dead letter.
    find(browser, f'#runs-table tr[data-trigger="{first}"][data-outcome="retry"]')
    dead_run = find(browser, f'#runs-table tr[data-trigger="{first}"][data-outcome="dead"]')
    assert "dead letter" in dead_run.text and "attempt 2" in dead_run.text
    screenshot(browser, "functions")

    put(url, "consoleDemo/switch", True)
    row.find_element("css selector", "button.retry").click()
    wait_until(browser, lambda b: not b.find_elements("css selector", f'#dead-letters tr[data-event="{first}"]'),
               message="the retried dead letter is still listed")
    ok_run = find(browser, f'#runs-table tr[data-trigger="{first}"][data-outcome="ok"]')
    assert "consoleDemoShip" in ok_run.text
    find(browser, ".toast.ok", text=f"Retried {first}")
    assert get(url, "consoleDemo/shipped/o-1001") == {"item": "Espresso cups", "qty": 2}
    # The other one was not retried: still dead, not shipped.
    find(browser, f'#dead-letters tr[data-event="{second}"]')
    assert get(url, "consoleDemo/shipped/o-1002") is None
    screenshot(browser, "functions-retried")


def test_run_now_runs_a_schedule(browser, functions_server):
    url = functions_server
    signed_in(browser, url, page="/_/functions")
    assert get(url, "consoleDemo/report") is None
    shipped = len(get(url, "consoleDemo/shipped") or {})
    row = find(browser, '#functions-table tr[data-function="consoleDemoDailyReport"]')
    last_run = row.find_elements("css selector", "td")[3]
    assert last_run.text == "—"
    # By keyboard: focus the button and press Enter.
    button = find(browser, "#run-now-consoleDemoDailyReport")
    browser.execute_script("arguments[0].focus()", button)
    assert browser.switch_to.active_element == button
    button.send_keys("\n")
    run = find(browser, '#runs-table tr[data-function="consoleDemoDailyReport"][data-trigger="run now"]')
    assert run.get_attribute("data-outcome") == "ok" and "ok" in run.text
    find(browser, ".toast.ok", text="consoleDemoDailyReport ran in")
    report = get(url, "consoleDemo/report")
    assert report["shipped"] == shipped >= 1
    # The schedule's last run is now filled in, and the button has the focus back.
    wait_until(browser, lambda b: find(b, '#functions-table tr[data-function="consoleDemoDailyReport"]')
               .find_elements("css selector", "td")[3].text not in ("", "—"), message="no last run shown")
    wait_until(browser, lambda b: b.switch_to.active_element.get_attribute("id") == "run-now-consoleDemoDailyReport",
               message="focus not back on Run now")
    # An unknown schedule is a 404 with a message, not a silent success.
    r = admin("POST", f"{url}/.hearth/functions/schedules/noSuchJob:run")
    assert r.status_code == 404 and "noSuchJob" in r.json()["error"]
    assert browser_errors(browser) == []
