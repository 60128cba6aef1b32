"""The console's Data page in a real browser: a live tree (expand, edit inline, add and delete children) while a
second client writes, read a level and a page at a time so a big node next to small ones costs little, a live query,
and import/export of JSON."""

from __future__ import annotations

import http.client
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from console_browser import (admin, browser, browser_errors, console_server, find, screenshot, signed_in,  # noqa: F401
                             wait_until)

SHOP = {
    "products": {
        "p1": {"name": "Kettle", "price": 29, "stock": 12},
        "p2": {"name": "Teapot", "price": 18, "stock": 0},
        "p3": {"name": "Mug", "price": 7, "stock": 140},
    },
    "settings": {"currency": "EUR", "open": True, "motd": "Welcome!"},
    "scores": {"ada": 31, "bob": 12, "cyd": 58, "dee": 44},
}


def db(url: str, path: str) -> str:
    return f"{url}/{path.strip('/')}.json" if path.strip("/") else f"{url}/.json"


def line(browser, path: str, text: str | None = None):
    return find(browser, f'.data-line[data-path="{path}"]', text=text)


def test_tree_edit_add_delete_while_another_client_writes(console_server, browser):
    url = console_server
    assert admin("PUT", db(url, "shop"), json=SHOP).status_code == 200
    signed_in(browser, url, page="/_/data?path=/shop")
    assert "path=/shop" in browser.current_url
    find(browser, "#data-status", text="3 children")
    # Expand two nodes.
    line(browser, "/shop/settings").find_element("css selector", ".data-toggle").click()
    line(browser, "/shop/products").find_element("css selector", ".data-toggle").click()
    line(browser, "/shop/products/p1").find_element("css selector", ".data-toggle").click()
    assert '"Kettle"' in line(browser, "/shop/products/p1/name").text
    assert '"EUR"' in line(browser, "/shop/settings/currency").text

    # Edit a value inline: invalid JSON is refused with a message and nothing written.
    line(browser, "/shop/settings/motd").find_element("css selector", ".data-value").click()
    field = find(browser, ".data-edit")
    field.clear()
    field.send_keys("Hello without quotes\n")
    assert "Not valid JSON" in find(browser, "#data-edit-error").text
    assert admin("GET", db(url, "shop/settings/motd")).json() == "Welcome!"
    field = find(browser, ".data-edit")
    field.clear()
    field.send_keys('"Spring sale"\n')
    wait_until(browser, lambda b: admin("GET", db(url, "shop/settings/motd")).json() == "Spring sale", message="edit not saved")
    line(browser, "/shop/settings/motd", text='"Spring sale"')

    # A second client writes: the change shows within a couple of seconds, highlighted.
    started = time.monotonic()
    assert admin("PATCH", db(url, "shop/products/p1"), json={"price": 25}).status_code == 200
    changed = line(browser, "/shop/products/p1/price", text="25")
    assert time.monotonic() - started < 2.5
    assert "flash" in changed.get_attribute("class")
    assert admin("PUT", db(url, "shop/products/p4"), json={"name": "Saucer", "price": 5, "stock": 30}).status_code == 200
    added = line(browser, "/shop/products/p4", text="object")
    assert "flash" in added.get_attribute("class")

    # Add a child through the dialog (a bad key is refused first), then delete it.
    line(browser, "/shop/settings").find_element("css selector", "button[aria-label='Add a child to settings']").click()
    find(browser, "#data-new-key").send_keys("bad.key")
    find(browser, "#data-new-value").send_keys("3")
    find(browser, "dialog button.primary").click()
    assert "cannot be empty or hold" in find(browser, "#data-new-error").text
    key = find(browser, "#data-new-key")
    key.clear()
    key.send_keys("delivery")
    value = find(browser, "#data-new-value")
    value.clear()
    value.send_keys('{"days": 2}')
    find(browser, "dialog button.primary").click()
    wait_until(browser, lambda b: admin("GET", db(url, "shop/settings/delivery")).json() == {"days": 2}, message="child not added")
    line(browser, "/shop/settings/delivery", text="object")
    screenshot(browser, "data")

    line(browser, "/shop/settings/delivery").find_element("css selector", ".data-delete").click()
    find(browser, "dialog button.danger").click()
    wait_until(browser, lambda b: admin("GET", db(url, "shop/settings/delivery")).json() is None, message="child not deleted")
    wait_until(browser, lambda b: not b.find_elements("css selector", '.data-line[data-path="/shop/settings/delivery"]'),
               message="deleted child still shown")
    # Deleted from elsewhere: the row goes too.
    assert admin("DELETE", db(url, "shop/products/p2")).status_code == 200
    wait_until(browser, lambda b: not b.find_elements("css selector", '.data-line[data-path="/shop/products/p2"]'),
               message="row deleted by another client still shown")
    assert browser_errors(browser) == []


def test_paging_a_node_with_many_children(console_server, browser):
    url = console_server
    assert admin("PUT", db(url, "big"), json={f"k{i:05d}": i for i in range(2000)}).status_code == 200
    browser.get(url + "/_/data?path=/big")
    find(browser, "#data-status", text="50+ children")
    assert len(browser.find_elements("css selector", "#data-tree > li")) == 50
    find(browser, "#data-load-more").click()
    wait_until(browser, lambda b: len(b.find_elements("css selector", "#data-tree > li")) == 100, message="no second page")
    line(browser, "/big/k00099", text="99")


class CountingProxy:
    """A tiny HTTP proxy in front of the server that counts the bytes of database answers (paths ending in .json)
    sent to the browser, streams included (it relays as it reads, so an EventSource's events count as they pass)."""

    def __init__(self, upstream: str):
        target = urlsplit(upstream)
        self.bytes = 0
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # bodies end when the connection closes: streams relay as they come

            def relay(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive", "content-length")}
                upstream_conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                upstream_conn.request(self.command, self.path, body=body, headers=headers)
                answer = upstream_conn.getresponse()
                self.send_response(answer.status)
                for k, v in answer.getheaders():
                    if k.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length"):
                        self.send_header(k, v)
                self.end_headers()
                counted = urlsplit(self.path).path.endswith(".json")
                try:
                    while chunk := answer.read1(65536):
                        if counted:
                            with proxy.lock:
                                proxy.bytes += len(chunk)
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except OSError:
                    pass
                finally:
                    upstream_conn.close()

            do_GET = do_PUT = do_PATCH = do_POST = do_DELETE = relay

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_big_node_is_not_read_until_expanded_and_then_a_page_at_a_time(console_server, browser):
    url = console_server
    profile = "x" * 200  # each of 3,000 children ~250 bytes: the node is ~750 KB
    big = {f"u{i:04d}": {"name": f"User {i}", "bio": profile} for i in range(3000)}
    assert admin("PUT", db(url, "users"), json=big).status_code == 200
    assert admin("PUT", db(url, "motd"), json="Spring sale").status_code == 200
    assert admin("PUT", db(url, "open"), json=True).status_code == 200
    proxy = CountingProxy(url)
    try:
        read_big_node(url, proxy, browser)
    finally:
        proxy.close()
    for path in ("users", "motd", "open"):
        assert admin("DELETE", db(url, path)).status_code == 200


def read_big_node(url, proxy, browser):
    signed_in(browser, proxy.url, page="/_/data")
    # The siblings show, the big node shows as an unread object, and the page read far less than the node holds.
    line(browser, "/motd", text='"Spring sale"')
    line(browser, "/open", text="true")
    line(browser, "/users", text="object")
    find(browser, "#data-live", text="Live")
    # Let a couple of live checks run too.
    wait_until(browser, lambda b: b.execute_script(
        "return performance.getEntriesByType('resource').filter((e) => e.name.includes('shallow=values')).length") >= 3,
        message="no live checks")
    read = proxy.bytes
    print(f"opening the root read {read} bytes of database answers")
    assert 0 < read < 100_000, read
    # Expanding it shows its first 50 keys (unread objects too) and a "Load 50 more" button.
    line(browser, "/users").find_element("css selector", ".data-toggle").click()
    line(browser, "/users/u0049", text="object")
    assert len(browser.find_elements("css selector", '.data-line[data-path^="/users/"]')) == 50
    more = find(browser, "button[aria-label='Load 50 more children of users']")
    assert browser.find_elements("css selector", '.data-line[data-path="/users/u0050"]') == []
    more.click()
    line(browser, "/users/u0099", text="object")
    assert len(browser.find_elements("css selector", '.data-line[data-path^="/users/"]')) == 100
    assert proxy.bytes - read < 100_000, proxy.bytes - read
    # A child deep in the big node expands on its own; a change there shows live and highlighted.
    line(browser, "/users/u0060").find_element("css selector", ".data-toggle").click()
    line(browser, "/users/u0060/name", text='"User 60"')
    assert admin("PATCH", db(url, "users/u0060"), json={"name": "Ada"}).status_code == 200
    changed = line(browser, "/users/u0060/name", text='"Ada"')
    assert "flash" in changed.get_attribute("class")
    # Collapsing forgets the level; the tree is back to its small root.
    line(browser, "/users").find_element("css selector", ".data-toggle").click()
    wait_until(browser, lambda b: not b.find_elements("css selector", '.data-line[data-path^="/users/"]'), message="still expanded")
    assert browser_errors(browser) == []


def test_live_query(console_server, browser):
    url = console_server
    rules = {"rules": {".read": False, ".write": False, "shop": {"scores": {".indexOn": ".value"}}}}
    assert admin("PUT", f"{url}/.settings/rules.json", json=rules).status_code == 200
    browser.get(url + "/_/data?path=/shop/scores")
    find(browser, "#data-status", text="4 children")
    # A top-3 by score (the rules index the values), highest last.
    field = find(browser, "#q-orderby")
    field.clear()
    field.send_keys("$value")
    find(browser, "#q-startAt").send_keys("20")
    find(browser, "#q-limit-kind").send_keys("Last")
    limit = find(browser, "#q-limit")
    limit.clear()
    limit.send_keys("3")
    find(browser, "#q-run").click()
    find(browser, "#q-status", text="3 children")

    def keys(b):
        return [tr.get_attribute("data-key") for tr in b.find_elements("css selector", "#q-rows tr[data-key]")]

    assert keys(browser) == ["ada", "dee", "cyd"]
    # Data written elsewhere enters the result, which stays ordered and live.
    assert admin("PUT", db(url, "shop/scores/eve"), json=50).status_code == 200
    wait_until(browser, lambda b: keys(b) == ["dee", "eve", "cyd"], timeout=3, message="query result not updated")
    row = find(browser, '#q-rows tr[data-key="eve"]')
    assert "flash" in row.get_attribute("class")
    browser.execute_script("document.querySelector('.data-query').scrollIntoView()")
    screenshot(browser, "data-query")

    # An unindexed child order is refused by the server, and said so.
    field = find(browser, "#q-orderby")
    field.clear()
    field.send_keys("price")
    find(browser, "#q-run").click()
    assert "Index not defined" in find(browser, "#q-error", text="Index").text
    # A bad range value is refused before asking.
    field.clear()
    field.send_keys("$key")
    start = find(browser, "#q-startAt")
    start.clear()
    start.send_keys("ada")
    find(browser, "#q-run").click()
    assert "startAt: Not valid JSON" in find(browser, "#q-error", text="startAt").text
    assert browser_errors(browser) == []


def test_import_and_export(console_server, browser, tmp_path):
    url = console_server
    browser.get(url + "/_/data?path=/catalog")
    find(browser, "#data-tree .empty")
    source = tmp_path / "catalog.json"
    source.write_text(json.dumps({"books": {"b1": {"title": "Dune"}, "b2": {"title": "Emma"}}, "count": 2}))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    find(browser, "#data-import-file").send_keys(str(bad))
    find(browser, "#data-import").click()
    assert "not valid JSON" in find(browser, "#data-import-status.error").text
    assert admin("GET", db(url, "catalog")).json() is None

    find(browser, "#data-import-file").send_keys(str(source))
    find(browser, "#data-import").click()
    find(browser, "#data-import-status.ok", text="Imported catalog.json")
    assert admin("GET", db(url, "catalog")).json() == {"books": {"b1": {"title": "Dune"}, "b2": {"title": "Emma"}}, "count": 2}
    line(browser, "/catalog/books", text="object")
    line(browser, "/catalog/count", text="2")

    find(browser, "#data-export").click()
    link = find(browser, "#data-export-link")
    assert link.get_attribute("download") == "default-catalog.json" or link.get_attribute("download").endswith("-catalog.json")
    exported = browser.execute_async_script(
        "const done = arguments[0]; document.getElementById('data-export-link').exportedBlob.text().then(done, (e) => done(String(e)));")
    assert json.loads(exported) == admin("GET", db(url, "catalog")).json()
    assert "Exported /catalog" in find(browser, "#data-export-status.ok").text
    assert browser_errors(browser) == []
