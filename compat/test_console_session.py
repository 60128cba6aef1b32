"""The console's session: signing in and out in a real browser, every page refusing without a session, and every
change refusing without the CSRF token (docs/console.md)."""

from __future__ import annotations

import requests

from console_browser import (ADMIN_TOKEN, browser, browser_errors, console_server, find, screenshot, signed_in,  # noqa: F401
                             wait_until)

PAGES = ["overview", "data", "rules", "users", "storage", "functions", "links"]


def test_sign_in_and_out_in_the_browser(browser, console_server):
    url = console_server
    browser.delete_all_cookies()
    browser.get(url + "/_/data")
    wait_until(browser, lambda b: "/_/login" in b.current_url, message="no redirect to the sign-in page")
    assert "next=/_/data" in browser.current_url
    find(browser, "#credential").send_keys("not-the-token")
    find(browser, "#signin").click()
    assert "not the admin credential" in find(browser, "#login-error", text="admin credential").text
    screenshot(browser, "login")

    field = find(browser, "#credential")
    field.clear()
    field.send_keys(ADMIN_TOKEN)
    find(browser, "#signin").click()
    wait_until(browser, lambda b: b.current_url.endswith("/_/data"), message="not sent on to the page asked for")
    find(browser, "#nav")
    cookie = browser.get_cookie("hearth_console")
    assert cookie is not None
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict"
    assert cookie["path"] == "/"
    # Not readable by the page's scripts.
    assert "hearth_console" not in browser.execute_script("return document.cookie")

    find(browser, "#signout").click()
    wait_until(browser, lambda b: "/_/login" in b.current_url and "signedOut=1" in b.current_url, message="no sign-out")
    assert browser.get_cookie("hearth_console") is None
    browser.get(url + "/_/users")
    wait_until(browser, lambda b: "/_/login" in b.current_url, message="a page opened after signing out")
    assert browser_errors(browser) == []


def test_every_page_refuses_without_a_session(console_server):
    url = console_server
    for page in PAGES:
        r = requests.get(f"{url}/_/{page}", allow_redirects=False, timeout=10)
        assert r.status_code == 303, page
        assert r.headers["Location"] == f"/_/login?next=/_/{page}"
        assert "hearth-csrf" not in r.text
    # A forged or expired cookie is no session either.
    r = requests.get(f"{url}/_/data", cookies={"hearth_console": "AAAA.BBBB"}, allow_redirects=False, timeout=10)
    assert r.status_code == 303
    r = requests.get(f"{url}/.hearth/console/session", timeout=10)
    assert r.status_code == 401
    for path in ["/.hearth/overview", "/.hearth/links", "/.hearth/functions", "/.hearth/rules/check"]:
        assert requests.get(url + path, timeout=10).status_code == 401, path


def _session(url: str) -> tuple[requests.Session, str]:
    s = requests.Session()
    r = s.post(f"{url}/.hearth/console/session", json={"credential": ADMIN_TOKEN}, timeout=10)
    assert r.status_code == 200, r.text
    assert "HttpOnly" in r.headers["Set-Cookie"] and "SameSite=Strict" in r.headers["Set-Cookie"]
    return s, r.json()["csrfToken"]


def test_every_change_refuses_without_the_csrf_token(console_server):
    url = console_server
    s, csrf = _session(url)
    # Reads work with the cookie alone.
    assert s.get(f"{url}/.json", timeout=10).status_code == 200
    assert s.get(f"{url}/.settings/rules.json", timeout=10).status_code == 200

    changes = [
        ("PUT", "/console-csrf.json", {"data": b'{"a":1}'}),
        ("PATCH", "/console-csrf.json", {"data": b'{"a":1}'}),
        ("POST", "/console-csrf.json", {"data": b'{"a":1}'}),
        ("DELETE", "/console-csrf.json", {}),
        ("PUT", "/.settings/rules.json", {"data": b'{"rules":{".read":true}}'}),
        ("POST", "/identitytoolkit.googleapis.com/v1/projects/demo/accounts", {"json": {"email": "x@example.com", "password": "secret12"}}),
        ("POST", "/identitytoolkit.googleapis.com/v1/projects/demo/accounts:delete", {"json": {"localId": "nobody"}}),
        ("POST", "/upload/storage/v1/b/demo.appspot.com/o?uploadType=media&name=x.txt", {"data": b"hi"}),
        ("DELETE", "/storage/v1/b/demo.appspot.com/o/x.txt", {}),
        ("PUT", "/internal/setRules", {"json": {"rules": {"files": [{"name": "storage.rules", "content": "x"}]}}}),
        ("POST", "/v1/shortLinks?key=k", {"json": {"longDynamicLink": "https://x.page.link/?link=https://example.com"}}),
        ("POST", "/.hearth/rules/simulate", {"json": {}}),
        ("DELETE", "/.hearth/links/abc", {}),
        ("DELETE", "/.hearth/console/session", {}),
    ]
    for method, path, kwargs in changes:
        r = s.request(method, url + path, timeout=10, **kwargs)
        assert r.status_code == 403, f"{method} {path}: {r.status_code} {r.text[:200]}"
        assert "CSRF" in r.text, f"{method} {path}: {r.text[:200]}"
        # A wrong token is no better than none.
        r = s.request(method, url + path, timeout=10, headers={"X-Hearth-CSRF": csrf[:-2] + "xx"}, **kwargs)
        assert r.status_code == 403, f"{method} {path} with a wrong token: {r.status_code}"
    # Nothing above was written.
    assert s.get(f"{url}/console-csrf.json", timeout=10).json() is None
    # With the token the same change goes through.
    r = s.put(f"{url}/console-csrf.json", data=b'{"a":1}', headers={"X-Hearth-CSRF": csrf}, timeout=10)
    assert r.status_code == 200, r.text
    assert s.get(f"{url}/console-csrf.json", timeout=10).json() == {"a": 1}
    cookie = s.cookies.get("hearth_console")
    r = s.delete(f"{url}/.hearth/console/session", headers={"X-Hearth-CSRF": csrf}, timeout=10)
    assert r.status_code == 204
    assert "Max-Age=0" in r.headers["Set-Cookie"]
    # Signed out: the old cookie no longer stands for the admin.
    r = requests.get(f"{url}/console-csrf.json", cookies={"hearth_console": cookie}, timeout=10)
    assert r.status_code in (401, 403)


def test_sign_in_is_rate_limited(console_server):
    url = console_server
    statuses = [requests.post(f"{url}/.hearth/console/session", json={"credential": f"wrong-{i}"}, timeout=10).status_code
                for i in range(12)]
    # Ten wrong credentials per address in five minutes (the browser test above sent one).
    first = statuses.index(429)
    assert 9 <= first <= 10 and set(statuses[:first]) == {401}
    assert set(statuses[first:]) == {429}
    # The right credential waits too, so guessing cannot go on.
    assert requests.post(f"{url}/.hearth/console/session", json={"credential": ADMIN_TOKEN}, timeout=10).status_code == 429
