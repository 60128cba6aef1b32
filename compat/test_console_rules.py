"""The console's Rules page (/_/rules) in a real browser, and the admin endpoints behind it (/.hearth/rules/…):
errors with line:column as you type, publishing, the simulator explaining a denial with the deciding rule highlighted,
a cases file, and the same for storage rules."""

from __future__ import annotations

import json

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from console_browser import (admin, browser, browser_errors, console_server, find, screenshot, signed_in,  # noqa: F401
                             wait_until)

PUBLISHED = '{\n  "rules": {\n    ".read": false,\n    ".write": false\n  }\n}\n'

DRAFT = """{
  // Profiles: everyone signed in reads them, each user writes only their own.
  "rules": {
    "users": {
      "$uid": {
        ".read": "auth != null",
        ".write": "auth != null && auth.uid === $uid",
        ".validate": "newData.hasChildren(['name'])",
        "name": { ".validate": "newData.isString() && newData.val().length <= 40" }
      }
    },
    "posts": {
      "$post": {
        ".read": "data.child('published').val() === true"
      }
    }
  }
}
"""

CASES = {
    "data": {"posts": {"p1": {"published": True}, "p2": {"published": False}}},
    "cases": [
        {"name": "alice writes her profile", "auth": {"uid": "alice"}, "op": "set", "path": "/users/alice",
         "value": {"name": "Alice"}, "expect": "allow"},
        {"name": "bob cannot write alice's", "auth": {"uid": "bob"}, "op": "set", "path": "/users/alice",
         "value": {"name": "Bob"}, "expect": "deny"},
        {"name": "a published post is public", "op": "read", "path": "/posts/p1", "expect": "allow"},
        {"name": "a draft is public too (wrong)", "op": "read", "path": "/posts/p2", "expect": "allow"},
    ],
}


def set_draft(browser, text: str) -> None:
    """Replaces the editor's text the way a paste would (an input event follows)."""
    browser.execute_script(
        "const t = document.getElementById('rules-editor'); t.focus(); t.value = arguments[0];"
        "t.dispatchEvent(new Event('input', {bubbles: true}));", text)


def caret_after(browser, needle: str) -> None:
    """Puts the editor's caret right after the first `needle`."""
    browser.execute_script(
        "const t = document.getElementById('rules-editor'); const i = t.value.indexOf(arguments[0]) + arguments[0].length;"
        "t.focus(); t.setSelectionRange(i, i);", needle)


def line_column(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first `needle` in `text`."""
    before = text[: text.index(needle)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def full_screenshot(browser, name: str) -> None:
    """A screenshot tall enough to show the whole page (toasts cleared), then the usual window again."""
    browser.execute_script("document.getElementById('toasts').replaceChildren()")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, max(900, min(int(height) + 20, 2000)))
    try:
        screenshot(browser, name)
    finally:
        browser.set_window_size(1280, 900)


def fill(browser, css: str, text: str) -> None:
    element = find(browser, css)
    element.clear()
    element.send_keys(text)


def confirm_dialog(browser) -> None:
    find(browser, "dialog.dialog button.danger").click()
    wait_until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, "dialog.dialog"), message="the dialog stayed open")


def simulate(browser, op: str, path: str, auth: str | None, value: str | None = None) -> str:
    """Fills the simulator, runs it and returns the verdict's text once a new one shows."""
    browser.execute_script("document.getElementById('sim-result').replaceChildren()")
    Select(find(browser, "#sim-op")).select_by_value(op)
    fill(browser, "#sim-path", path)
    signed_out = find(browser, "#sim-signed-out")
    if signed_out.is_selected() != (auth is None):
        signed_out.click()
    if auth is not None:
        fill(browser, "#sim-auth", auth)
    if value is not None:
        fill(browser, "#sim-value", value)
    find(browser, "#sim-run").click()
    return find(browser, "#sim-verdict").text


def test_database_rules_editor_simulator_and_cases(browser, console_server):
    url = console_server
    assert admin("PUT", f"{url}/.settings/rules.json?ns=demo", data=PUBLISHED).status_code == 200
    assert admin("PUT", f"{url}/.json", json={"users": {"alice": {"name": "Alice"}},
                                               "posts": {"p1": {"published": True, "title": "Hello"}, "p2": {"published": False}}}).ok
    signed_in(browser, url, page="/_/rules")
    editor = find(browser, "#rules-editor")
    wait_until(browser, lambda b: editor.get_attribute("value") == PUBLISHED, message="the published rules were not loaded")
    find(browser, "#rules-status", text="Published")
    assert find(browser, "#rules-publish").get_attribute("disabled") is not None  # nothing changed yet

    # Type a mistake into an expression: the checker's line:column message appears and the line is marked.
    set_draft(browser, DRAFT)
    find(browser, "#rules-status", text="not published")
    caret_after(browser, '"auth != null')
    editor.send_keys(" && bogus")
    typed = DRAFT.replace('"auth != null', '"auth != null && bogus', 1)
    line, column = line_column(typed, "bogus")
    error = find(browser, "#rules-editor-errors li", text="bogus")
    assert error.text.startswith(f"{line}:{column}"), error.text
    assert "Unknown variable 'bogus'" in error.text
    marked = find(browser, ".rules-editor .line.err")
    assert marked.get_attribute("data-line") == str(line)
    assert "bogus" in marked.get_attribute("textContent")
    assert find(browser, "#rules-publish").get_attribute("disabled") is not None
    assert "1 error" in find(browser, "#rules-status").text
    full_screenshot(browser, "rules")
    # Highlighting: the keys, $variables, auth and operators are coloured.
    for css in (".t-rule", ".t-var", ".t-auth", ".t-op", ".t-com", ".t-key"):
        assert browser.find_elements(By.CSS_SELECTOR, f".rules-editor {css}"), css

    # Fix it: the message goes away and publishing is possible.
    for _ in " && bogus":
        editor.send_keys(Keys.BACKSPACE)
    wait_until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, "#rules-editor-errors li"), message="the error stayed")
    assert not browser.find_elements(By.CSS_SELECTOR, ".rules-editor .line.err")
    assert editor.get_attribute("value") == DRAFT
    publish = find(browser, "#rules-publish")
    wait_until(browser, lambda b: publish.get_attribute("disabled") is None, message="Publish stayed disabled")
    publish.click()
    confirm_dialog(browser)
    find(browser, "#rules-status", text="Published")
    assert admin("GET", f"{url}/.settings/rules.json?ns=demo").text == DRAFT

    # The simulator explains a denial, highlighting the rule that decided.
    verdict = simulate(browser, "set", "/users/alice", '{"uid": "bob", "token": {"email": "bob@example.com"}}', '{"name": "Bob"}')
    assert verdict == "Denied"
    assert "auth != null && auth.uid === $uid was false" in find(browser, "#sim-reason").text
    hit = find(browser, ".rules-editor .line.hit")
    expected_line, _ = line_column(DRAFT, '".write": "auth != null && auth.uid === $uid"')
    assert hit.get_attribute("data-line") == str(expected_line)
    assert "auth.uid === $uid" in hit.get_attribute("textContent")
    assert "/users/$uid/.write" in find(browser, "#sim-result").text
    full_screenshot(browser, "rules-simulator")

    # An allowed read, decided by the database's own data (p1 is published).
    assert simulate(browser, "read", "/posts/p1", None) == "Allowed"
    assert "/posts/$post/.read" in find(browser, "#sim-reason").text
    assert "published" in find(browser, ".rules-editor .line.hit").get_attribute("textContent")
    assert simulate(browser, "read", "/posts/p2", None) == "Denied"
    # A write that fails .validate points at it.
    assert simulate(browser, "set", "/users/alice", '{"uid": "alice"}', '{"nick": "A"}') == "Denied"
    assert ".validate" in find(browser, "#sim-reason").text
    # Bad JSON is a clear message, not a silent failure.
    fill(browser, "#sim-auth", "{uid: alice")
    find(browser, "#sim-run").click()
    assert "Auth is not valid JSON" in find(browser, ".toast.error", text="Auth").text
    browser.execute_script("document.getElementById('toasts').replaceChildren()")

    # A cases file: a table of results, the mismatch shown as failed.
    text = find(browser, "#cases-text")
    browser.execute_script("arguments[0].value = arguments[1]", text, json.dumps(CASES, indent=1))
    find(browser, "#cases-run").click()
    assert "3 of 4 cases as expected" in find(browser, "#cases-summary").text
    rows = browser.find_elements(By.CSS_SELECTOR, "#cases-table tbody tr")
    assert [r.find_element(By.CSS_SELECTOR, "th").text for r in rows] == [c["name"] for c in CASES["cases"]]
    assert "failed" in rows[3].get_attribute("class")
    assert "denied" in rows[3].text and "denied" in rows[1].text and "allowed" in rows[0].text
    assert browser_errors(browser) == []


def test_storage_rules_error_and_simulation(browser, console_server):
    url = console_server
    signed_in(browser, url, page="/_/rules")
    find(browser, "#rules-tab-storage").click()
    wait_until(browser, lambda b: "tab=storage" in b.current_url, message="the tab is not in the address")
    editor = find(browser, "#rules-editor")
    wait_until(browser, lambda b: "service firebase.storage" in (editor.get_attribute("value") or ""),
               message="the storage rules were not loaded")
    source = editor.get_attribute("value")
    assert find(browser, "#rules-tab-storage").get_attribute("aria-selected") == "true"

    # Drop a semicolon: the error names its place.
    caret_after(browser, "request.auth != null;")
    editor.send_keys(Keys.BACKSPACE)
    error = find(browser, "#rules-editor-errors li")
    broken = source.replace("request.auth != null;", "request.auth != null", 1)
    line, _ = line_column(broken, "request.auth != null")
    assert error.text.split(":")[0] in {str(line), str(line + 1)}, error.text
    assert "Expected ';'" in error.text
    assert find(browser, ".rules-editor .line.err")
    assert find(browser, "#rules-publish").get_attribute("disabled") is not None
    editor.send_keys(";")
    wait_until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, "#rules-editor-errors li"), message="the error stayed")

    # Signed out, a download is denied by the `allow read, write: if request.auth != null` line.
    assert simulate(browser, "get", "users/alice/avatar.png", None) == "Denied"
    hit = find(browser, ".rules-editor .line.hit")
    assert "request.auth != null" in hit.get_attribute("textContent")
    assert "was false" in find(browser, "#sim-reason").text
    full_screenshot(browser, "rules-storage")
    assert simulate(browser, "create", "users/alice/avatar.png", '{"uid": "alice"}', '{"size": 2048, "contentType": "image/png"}') == "Allowed"
    assert "granted" in find(browser, "#sim-reason").text

    # An unpublished edit survives a trip to the other tab; Revert brings the published rules back.
    editor.send_keys(Keys.CONTROL, Keys.END)
    editor.send_keys("\n// kept while away")
    find(browser, "#rules-status", text="not published")
    find(browser, "#rules-tab-database").click()
    find(browser, "#rules-editor-title", text="Rules of demo")
    find(browser, "#rules-tab-storage").click()
    editor = find(browser, "#rules-editor")
    wait_until(browser, lambda b: "// kept while away" in (editor.get_attribute("value") or ""), message="the draft was lost")
    find(browser, "#rules-revert").click()
    confirm_dialog(browser)
    wait_until(browser, lambda b: editor.get_attribute("value") == source, message="Revert did not restore the published rules")
    find(browser, "#rules-status", text="Published")
    assert browser_errors(browser) == []


def test_rules_endpoints(console_server):
    url = console_server
    base = f"{url}/.hearth/rules"
    # Admin only.
    assert requests.post(f"{base}/check", json={"source": "{}"}, timeout=10).status_code == 401
    assert admin("GET", f"{base}/check").status_code == 405
    assert admin("POST", f"{base}/nothing", json={}).status_code == 404
    assert admin("POST", f"{base}/check", data="not json").status_code == 400
    assert admin("POST", f"{base}/check", json={"kind": "firestore", "source": ""}).status_code == 400
    assert admin("POST", f"{base}/check", json={"kind": "database"}).status_code == 400

    r = admin("POST", f"{base}/check", json={"kind": "database", "source": '{"rules": {".read": true}}'})
    assert r.status_code == 200 and r.json() == {"ok": True}
    r = admin("POST", f"{base}/check", json={"kind": "database", "source": '{"rules": {\n  ".read": "auth.uid ==="}}'})
    body = r.json()
    assert body["ok"] is False and body["errors"][0]["line"] == 2 and isinstance(body["errors"][0]["column"], int)
    assert body["errors"][0]["message"]
    r = admin("POST", f"{base}/check", json={"kind": "storage", "source": "service firebase.storage {"})
    assert r.json()["ok"] is False and r.json()["errors"][0]["line"] == 1

    # Simulate against given data, not the database's.
    rules = '{"rules": {"a": {".read": "data.child(\'open\').val() === true"}}}'
    r = admin("POST", f"{base}/simulate", json={"kind": "database", "source": rules, "operation": "read", "path": "/a",
                                                "auth": None, "data": {"a": {"open": True}}})
    assert r.status_code == 200 and r.json()["allowed"] is True
    assert r.json()["rule"] == {"location": "/a/.read", "text": "data.child('open').val() === true", "line": 1, "column": 27}
    r = admin("POST", f"{base}/simulate", json={"kind": "database", "source": rules, "operation": "read", "path": "/b"})
    assert r.json() == {"allowed": False, "reason": "no .read rule on the way to /b", "rule": None}
    assert admin("POST", f"{base}/simulate", json={"kind": "database", "operation": "delete", "path": "/"}).status_code == 400
    r = admin("POST", f"{base}/simulate", json={"kind": "database", "source": '{"rules": {', "operation": "read", "path": "/"})
    assert r.status_code == 400 and "line 1" in r.json()["error"]
    assert admin("POST", f"{base}/simulate", json={"kind": "database", "namespace": "nosuch", "operation": "read", "path": "/"}).status_code == 404

    r = admin("POST", f"{base}/simulate", json={"kind": "storage", "operation": "write", "path": "/x/y.txt", "auth": {"uid": "u"},
                                                "resource": {"size": 10}})
    assert r.status_code == 200 and r.json()["allowed"] is True and r.json()["operation"] == "create"
    assert isinstance(r.json()["line"], int)
    assert admin("POST", f"{base}/simulate", json={"kind": "storage", "operation": "get", "path": "x", "auth": {}}).status_code == 400

    r = admin("POST", f"{base}/test", json={"kind": "database", "source": '{"rules": {".read": "auth != null"}}', "cases": [
        {"name": "in", "auth": {"uid": "a"}, "op": "read", "path": "/", "expect": "allow"},
        {"name": "out", "op": "read", "path": "/", "expect": "allow"},
        {"name": "broken", "op": "read", "expect": "deny"},
    ]})
    body = r.json()
    assert (body["passed"], body["failed"]) == (1, 2)
    assert [x["ok"] for x in body["results"]] == [True, False, False]
    assert body["results"][1]["expected"] == "allow" and body["results"][1]["allowed"] is False
    assert "path" in body["results"][2]["error"]
    assert admin("POST", f"{base}/test", json={"kind": "database", "cases": 3}).status_code == 400
    assert admin("POST", f"{base}/test", json={"kind": "storage", "cases": []}).status_code == 400
