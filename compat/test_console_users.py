"""The console's Users page (`/_/users`) in a real browser: create, disable and enable, custom claims, search by
email, phone and uid, password reset link, revoke sessions, delete; export in firebase auth:export's JSON and import
into an empty server with the passwords still working (docs/console.md)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
import requests

from console_browser import (ADMIN_HEADERS, ADMIN_TOKEN, browser, browser_errors, find, screenshot,  # noqa: F401
                             signed_in, wait_until)
from hearth_process import hearth_binary, hearth_process

PROJECT = "demo"
ADMIN_API = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``hearth serve`` (not --dev) with the admin token; yields (url, data folder) so the CLI can read the folder."""
    tmp = tmp_path_factory.mktemp("console-users")
    env = {"HEARTH_ADMIN_TOKEN": ADMIN_TOKEN}
    with hearth_process([], tmp / "data", tmp / "server.log", env=env, probe="/.json", probe_headers=ADMIN_HEADERS) as (url, _, _):
        yield url, tmp / "data"


def call(url: str, op: str, body: dict) -> requests.Response:
    return requests.post(f"{url}{ADMIN_API}{op}", json=body, headers=ADMIN_HEADERS, timeout=10)


def lookup(url: str, uid: str) -> dict | None:
    r = call(url, ":lookup", {"localId": [uid]})
    assert r.status_code == 200, r.text
    return (r.json().get("users") or [None])[0]


def sign_in(url: str, email: str, password: str) -> requests.Response:
    return requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any",
                         json={"email": email, "password": password, "returnSecureToken": True}, timeout=10)


def row(browser, text: str):
    return find(browser, "#users-rows tr[data-uid]", text=text)


def click_action(browser, uid: str, action: str) -> None:
    find(browser, f'#users-rows tr[data-uid="{uid}"] button[data-action="{action}"]').click()


def confirm(browser, label: str) -> None:
    find(browser, "dialog.dialog .actions button.danger", text=label).click()
    wait_until(browser, lambda b: not b.find_elements("css selector", "dialog.dialog[open]"), message="the dialog stayed open")


def search(browser, text: str) -> None:
    field = find(browser, "#user-search")
    field.clear()
    field.send_keys(text)
    find(browser, "#user-search-go").click()


def no_toasts(browser) -> None:
    """Waits for the notices to go (they last 4 s), so a screenshot shows the page."""
    wait_until(browser, lambda b: not b.find_elements("css selector", "#toasts .toast"), timeout=12, message="toasts stay")


def seed(url: str) -> None:
    """A few users so the page shows realistic data."""
    people = [
        {"localId": "grace-h", "email": "grace@example.com", "password": "cobol-1959", "displayName": "Grace Hopper", "emailVerified": True},
        {"localId": "alan-t", "email": "alan@example.com", "password": "enigma-1936", "displayName": "Alan Turing"},
        {"localId": "phone-only", "phoneNumber": "+15555550123", "displayName": "Phone Person"},
    ]
    for p in people:
        r = requests.post(f"{url}{ADMIN_API}", json=p, headers=ADMIN_HEADERS, timeout=10)
        assert r.status_code == 200, r.text
    assert call(url, ":update", {"localId": "alan-t", "customAttributes": json.dumps({"role": "editor"})}).status_code == 200


def test_create_disable_claims_search_revoke_delete(browser, server):
    url, _ = server
    seed(url)
    signed_in(browser, url, page="/_/users")
    row(browser, "grace@example.com")

    # Create: the server's refusal shows in the form, then a good password creates the user.
    find(browser, "#new-user").click()
    find(browser, "#create-user input[name=email]").send_keys("ada@example.com")
    find(browser, "#create-user input[name=password]").send_keys("123")
    find(browser, "#create-user input[name=displayName]").send_keys("Ada Lovelace")
    find(browser, "#create-user-save").click()
    assert "WEAK_PASSWORD" in find(browser, "#create-user-error", text="WEAK_PASSWORD").text
    password = find(browser, "#create-user input[name=password]")
    password.clear()
    password.send_keys("analytical-1843")
    find(browser, "#create-user-save").click()
    ada = row(browser, "ada@example.com")
    uid = ada.get_attribute("data-uid")
    assert "Ada Lovelace" in ada.text and "Active" in ada.text
    user = lookup(url, uid)
    assert user["email"] == "ada@example.com" and user["displayName"] == "Ada Lovelace"
    assert sign_in(url, "ada@example.com", "analytical-1843").status_code == 200
    # The new user is shown alone (a search for its uid); "Show all" lists everyone again.
    assert find(browser, "#user-search").get_attribute("value") == uid
    find(browser, "#user-search-clear").click()
    row(browser, "grace@example.com")

    # The same email again: EMAIL_EXISTS, said in words.
    find(browser, "#new-user").click()
    find(browser, "#create-user input[name=email]").send_keys("ada@example.com")
    find(browser, "#create-user input[name=password]").send_keys("another-secret")
    find(browser, "#create-user-save").click()
    assert "already has this email" in find(browser, "#create-user-error", text="EMAIL_EXISTS").text
    find(browser, "#create-user .actions button", text="Cancel").click()

    # Disable: password sign-in fails with USER_DISABLED; enable: it works again.
    click_action(browser, uid, "disable")
    find(browser, f'#users-rows tr[data-uid="{uid}"] .badge.error', text="Disabled")
    r = sign_in(url, "ada@example.com", "analytical-1843")
    assert r.status_code == 400 and r.json()["error"]["message"].startswith("USER_DISABLED"), r.text
    assert lookup(url, uid)["disabled"] is True
    click_action(browser, uid, "enable")
    find(browser, f'#users-rows tr[data-uid="{uid}"] .badge.ok', text="Active")
    signed = sign_in(url, "ada@example.com", "analytical-1843")
    assert signed.status_code == 200, signed.text
    refresh_token, signed_at = signed.json()["refreshToken"], time.time()

    # Custom claims: bad JSON is refused in the form; a good object reaches the user.
    click_action(browser, uid, "edit")
    claims = find(browser, "#edit-claims")
    claims.send_keys('["admin"]')
    find(browser, "#edit-user-save").click()
    assert "JSON object" in find(browser, "#edit-user-error", text="JSON object").text
    claims.clear()
    claims.send_keys('{"admin": true, "tier": "gold", "iss": "me"}')
    find(browser, "#edit-user-save").click()
    assert "Reserved" in find(browser, "#edit-user-error", text="Reserved").text
    claims.clear()
    claims.send_keys('{"admin": true, "tier": "gold"}')
    assert browser.find_element("css selector", "#edit-user-error").text == ""  # editing clears the refusal
    screenshot(browser, "users-edit")
    find(browser, "#edit-user-save").click()
    find(browser, f'#users-rows tr[data-uid="{uid}"] .users-claims', text='"tier":"gold"')
    assert json.loads(lookup(url, uid)["customAttributes"]) == {"admin": True, "tier": "gold"}

    # Search: by email (any case), phone number and uid; an unknown one says so.
    search(browser, "GRACE@example.com")
    wait_until(browser, lambda b: len(b.find_elements("css selector", "#users-rows tr[data-uid]")) == 1
               and "grace@example.com" in b.find_element("css selector", "#users-rows").text, message="email search")
    assert "q=GRACE%40example.com" in browser.current_url
    search(browser, "+15555550123")
    wait_until(browser, lambda b: [r.get_attribute("data-uid") for r in b.find_elements("css selector", "#users-rows tr[data-uid]")] == ["phone-only"],
               message="phone search")
    search(browser, uid)
    wait_until(browser, lambda b: [r.get_attribute("data-uid") for r in b.find_elements("css selector", "#users-rows tr[data-uid]")] == [uid],
               message="uid search")
    search(browser, "nobody@example.com")
    assert "No user has the email" in find(browser, "#users-none").text
    find(browser, "#user-search-clear").click()
    row(browser, "alan@example.com")
    no_toasts(browser)
    screenshot(browser, "users")

    # Password reset: the link made here (no mail server in this test).
    click_action(browser, uid, "reset")
    find(browser, "#reset-link").click()
    find(browser, "#reset-user-save").click()
    link = find(browser, "#reset-oob-link").get_attribute("value")
    assert "mode=resetPassword" in link and "oobCode=" in link
    find(browser, "#reset-user-save", text="Close").click()

    # Revoke sessions: the refresh token from before stops working (validSince is in whole seconds).
    wait_until(browser, lambda _: time.time() > signed_at + 1.1, message="clock")
    refresh = lambda: requests.post(f"{url}/securetoken.googleapis.com/v1/token?key=any",  # noqa: E731
                                    data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=10)
    assert refresh().status_code == 200
    click_action(browser, uid, "revoke")
    confirm(browser, "Revoke")
    wait_until(browser, lambda _: refresh().status_code == 400, message="the refresh token still works")
    assert refresh().json()["error"]["message"].startswith("TOKEN_EXPIRED")

    # Delete, confirmed: the row goes, and so does the user.
    click_action(browser, uid, "delete")
    confirm(browser, "Delete")
    wait_until(browser, lambda b: not b.find_elements("css selector", f'#users-rows tr[data-uid="{uid}"]'), message="row still shown")
    assert lookup(url, uid) is None
    assert browser_errors(browser) == []


def test_export_then_import_into_an_empty_server(browser, server, tmp_path):
    url, data = server
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    assert call(url, ":update", {"localId": "grace-h", "disableUser": True}).status_code == 200
    signed_in(browser, url, page="/_/users")
    row(browser, "grace@example.com")
    find(browser, "#export-users").click()
    exported = downloads / f"users-{PROJECT}.json"
    wait_until(browser, lambda _: exported.exists() and exported.stat().st_size > 0, message="no download")
    users = {u["localId"]: u for u in json.loads(exported.read_text())["users"]}
    assert {"grace-h", "alan-t", "phone-only"} <= set(users)
    assert users["grace-h"]["email"] == "grace@example.com" and users["grace-h"]["disabled"] is True
    assert users["grace-h"]["emailVerified"] is True and users["grace-h"]["displayName"] == "Grace Hopper"
    assert json.loads(users["alan-t"]["customAttributes"]) == {"role": "editor"}
    assert users["phone-only"]["phoneNumber"] == "+15555550123"
    assert all("passwordHash" not in u for u in users.values())  # the API never hands hashes out
    assert all(k in users["alan-t"] for k in ("createdAt", "providerUserInfo", "emailVerified", "disabled"))

    # The hashes come from the server's own export (owner-only file), in the same format.
    hashes = tmp_path / "users-hashes.json"
    done = subprocess.run([hearth_binary(), "users", "export", "--password-hashes", "--data", str(data), str(hashes)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "STANDARD_SCRYPT, N 16384" in done.stderr

    # An empty second server: import the console's export with one broken entry, then the hashes file.
    broken = tmp_path / "with-a-bad-user.json"
    broken.write_text(json.dumps({"users": list(users.values()) + [{"localId": "bad-phone", "phoneNumber": "12"}]}))
    with hearth_process([], tmp_path / "data2", tmp_path / "server2.log", env={"HEARTH_ADMIN_TOKEN": ADMIN_TOKEN},
                        probe="/.json", probe_headers=ADMIN_HEADERS) as (url2, _, _):
        signed_in(browser, url2, page="/_/users")
        assert "No users yet" in find(browser, "#users-none").text
        find(browser, "#import-toggle").click()
        find(browser, "#import-file").send_keys(str(broken))
        find(browser, "#import-go").click()
        summary = find(browser, "#import-summary", text="Imported")
        assert summary.text.startswith(f"Imported {len(users)} of {len(users) + 1} users; 1 refused")
        assert "phone number format is invalid" in find(browser, "#import-errors").text
        assert "bad-phone" in find(browser, "#import-errors").text
        row(browser, "alan@example.com")
        assert json.loads(lookup(url2, "alan-t")["customAttributes"]) == {"role": "editor"}
        assert lookup(url2, "grace-h")["disabled"] is True
        assert lookup(url2, "bad-phone") is None

        # A file with hashes and no algorithm chosen is refused before anything is sent.
        find(browser, "#import-file").send_keys(str(hashes))
        find(browser, "#import-go").click()
        assert "choose how they were made" in find(browser, "#import-result .error").text
        from selenium.webdriver.support.ui import Select
        Select(find(browser, "#import-hash")).select_by_value("HEARTH")
        assert find(browser, "#import-memoryCost").get_attribute("value") == "16384"
        find(browser, "#import-go").click()
        find(browser, "#import-summary", text=f"Imported {len(users)} of {len(users)} users.")
        # The old passwords work on the new server; the disabled user stays disabled.
        r = sign_in(url2, "alan@example.com", "enigma-1936")
        assert r.status_code == 200, r.text
        assert r.json()["localId"] == "alan-t"
        assert sign_in(url2, "alan@example.com", "wrong-password").status_code == 400
        r = sign_in(url2, "grace@example.com", "cobol-1959")
        assert r.status_code == 400 and r.json()["error"]["message"].startswith("USER_DISABLED"), r.text
        assert browser_errors(browser) == []
