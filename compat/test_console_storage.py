"""The console's Storage page in a real browser: uploading (file picker and drag and drop) with progress, the image
preview really loading, metadata edited and read back through the Cloud Storage API, the download link and the Firebase
download URL giving the same bytes, folders, paging, delete."""

from __future__ import annotations

import base64
import struct
import zlib
from urllib.parse import quote

from console_browser import (admin, browser, browser_errors, console_server, find, screenshot, signed_in,  # noqa: F401
                             wait_until)

BUCKET = "demo.appspot.com"


def png(width: int = 8, height: int = 8) -> bytes:
    """A valid RGB PNG: a small orange and blue checkerboard."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"".join((b"\xc2\x41\x0c" if (x + y) % 2 else b"\x25\x63\xeb") for x in range(width))
                    for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def object_url(url: str, name: str) -> str:
    return f"{url}/storage/v1/b/{BUCKET}/o/{quote(name, safe='')}"


def put(url: str, name: str, data: bytes, content_type: str) -> None:
    r = admin("POST", f"{url}/upload/storage/v1/b/{BUCKET}/o", params={"uploadType": "media", "name": name}, data=data,
              headers={"Content-Type": content_type})
    assert r.status_code == 200, r.text


def file_row(browser, name: str):
    return find(browser, f'tr.file-row[data-name="{name}"]')


def file_input(browser):
    from selenium.webdriver.common.by import By

    return wait_until(browser, lambda b: b.find_element(By.ID, "upload-input"), message="no file input")


def settled(browser):
    """Waits for the highlight animations to end (for a screenshot)."""
    wait_until(browser, lambda b: b.execute_script("return document.getAnimations().length === 0"), message="still animating")


def open_folder(browser, label: str):
    find(browser, "a.folder-link", text=label).click()


def test_upload_preview_metadata_download_and_delete(browser, console_server, tmp_path):
    url = console_server
    put(url, "notes/readme.txt", b"Hearth storage notes\nline two\n", "text/plain")
    put(url, "notes/todo.json", b'{"todo": ["ship the console"]}', "application/json")
    put(url, "reports/2026/q3.csv", b"month,visits\njuly,120\n", "text/csv")
    put(url, "logo.svg", b'<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>', "image/svg+xml")

    signed_in(browser, url, page="/_/storage")
    assert find(browser, "#page-title").text == "Storage"
    assert "(default)" in find(browser, "#bucket option").text
    find(browser, "a.folder-link", text="notes/")
    find(browser, "a.folder-link", text="reports/")
    file_row(browser, "logo.svg")

    # Upload a real PNG through the file input: its progress finishes and its row appears.
    image = png()
    path = tmp_path / "pixel.png"
    path.write_bytes(image)
    file_input(browser).send_keys(str(path))
    done = find(browser, '#uploads li.upload.done[data-name="pixel.png"]')
    assert "Uploaded" in done.text
    assert done.find_element("css selector", "progress").get_attribute("value") == "100"
    row = file_row(browser, "pixel.png")
    assert "image/png" in row.text and "B" in row.text
    stored = admin("GET", object_url(url, "pixel.png")).json()
    assert stored["contentType"] == "image/png" and stored["size"] == str(len(image))
    settled(browser)
    screenshot(browser, "storage")

    # Open it: the preview is the image itself, really loaded.
    row.find_element("css selector", "button.file-open").click()
    find(browser, "#object-title", text="pixel.png")
    width = wait_until(browser, lambda b: b.execute_script(
        "const i = document.querySelector('#preview-image'); return i && i.complete && i.naturalWidth"), message="no image preview")
    assert width == 8
    assert "pixel.png" in browser.current_url

    # The download link gives the same bytes (fetched by the browser, with its session).
    link = find(browser, "#object-download")
    assert link.get_attribute("download") == "pixel.png"
    fetched = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then((r) => r.arrayBuffer()).then((b) => {
          let s = ''; for (const x of new Uint8Array(b)) s += String.fromCharCode(x); done(btoa(s));
        }).catch((e) => done('error ' + e));""", link.get_attribute("href"))
    assert base64.b64decode(fetched) == image

    # The Firebase download URL works for anyone holding it (no credential).
    firebase_url = wait_until(browser, lambda b: b.find_element("css selector", "#object-url").get_attribute("value"),
                              message="no download URL")
    assert firebase_url.startswith(url + "/v0/b/demo.appspot.com/o/pixel.png?alt=media&token=")
    import requests
    r = requests.get(firebase_url, timeout=10)
    assert r.status_code == 200 and r.content == image

    # Edit metadata: the Cloud Storage API reads back what was saved.
    cache = find(browser, "#meta-cacheControl")
    cache.clear()
    cache.send_keys("public, max-age=60")
    find(browser, "#meta-add").click()
    key = browser.switch_to.active_element
    key.send_keys("owner")
    find(browser, ".meta-row:last-child .meta-value").send_keys("ada")
    find(browser, "#meta-save").click()
    find(browser, ".toast", text="Metadata saved")
    meta = admin("GET", object_url(url, "pixel.png")).json()
    assert meta["cacheControl"] == "public, max-age=60"
    assert meta["metadata"]["owner"] == "ada"
    assert meta["metadata"]["firebaseStorageDownloadTokens"]  # the token the URL above uses is kept
    browser.execute_script("window.scrollTo(0, 0); document.querySelector('#object-panel').scrollTop = 0")
    settled(browser)
    screenshot(browser, "storage-preview")
    # Removing the key and clearing the field removes them on the server.
    find(browser, '.meta-row button[aria-label^="Remove key"]').click()
    find(browser, "#meta-cacheControl").clear()
    find(browser, "#meta-save").click()
    wait_until(browser, lambda b: "owner" not in admin("GET", object_url(url, "pixel.png")).json().get("metadata", {}),
               message="the custom key was not removed")
    assert "cacheControl" not in admin("GET", object_url(url, "pixel.png")).json()
    # A value without a key is refused with a message, nothing sent.
    find(browser, "#meta-add").click()
    find(browser, ".meta-row:last-child .meta-value").send_keys("orphan")
    find(browser, "#meta-save").click()
    assert "needs a key" in find(browser, "#meta-error", text="key").text

    # Delete (confirmed): the row goes, and the object is gone on the server.
    find(browser, "#object-delete").click()
    find(browser, "dialog button.danger", text="Delete").click()
    wait_until(browser, lambda b: not b.find_elements("css selector", 'tr.file-row[data-name="pixel.png"]'), message="row still shown")
    assert admin("GET", object_url(url, "pixel.png")).status_code == 404
    wait_until(browser, lambda b: not b.find_element("css selector", "#object-panel").is_displayed(), message="panel still open")

    # A text file previews its contents.
    open_folder(browser, "notes/")
    find(browser, ".crumbs li", text="notes")
    file_row(browser, "notes/readme.txt").find_element("css selector", "button").click()
    assert "Hearth storage notes" in find(browser, "#preview-text", text="line two").text
    assert browser_errors(browser) == []


def test_folders_drag_and_drop_and_paging(browser, console_server, tmp_path):
    url = console_server
    signed_in(browser, url, page="/_/storage")
    find(browser, "a.folder-link", text="notes/")

    # "New folder" opens an empty prefix; a file uploaded there makes the folder exist.
    find(browser, "#new-folder").click()
    find(browser, "#folder-name").send_keys("photos/2026")
    find(browser, "dialog button.primary", text="Open folder").click()
    wait_until(browser, lambda b: "prefix=photos%2F2026%2F" in b.current_url, message="the new folder did not open")
    assert "empty" in find(browser, "#listing-status", text="empty").text
    path = tmp_path / "beach.png"
    path.write_bytes(png(3, 2))
    file_input(browser).send_keys(str(path))
    file_row(browser, "photos/2026/beach.png")
    assert admin("GET", object_url(url, "photos/2026/beach.png")).status_code == 200

    # Back to the top through the breadcrumb, then into the folder again by its links.
    find(browser, ".crumbs a", text=BUCKET).click()
    open_folder(browser, "photos/")
    open_folder(browser, "2026/")
    file_row(browser, "photos/2026/beach.png")
    assert [e.text for e in browser.find_elements("css selector", ".crumbs li")] == [BUCKET, "photos", "2026"]

    # Drag and drop: a drop event carrying a File uploads it into the folder shown.
    browser.execute_script("""
        const data = new DataTransfer();
        data.items.add(new File(['dropped by the test'], 'dropped.txt', { type: 'text/plain' }));
        const zone = document.querySelector('#dropzone');
        zone.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));""")
    find(browser, '#uploads li.upload.done[data-name="photos/2026/dropped.txt"]')
    file_row(browser, "photos/2026/dropped.txt")
    r = admin("GET", object_url(url, "photos/2026/dropped.txt"), params={"alt": "media"})
    assert r.status_code == 200 and r.content == b"dropped by the test"
    assert admin("GET", object_url(url, "photos/2026/dropped.txt")).json()["contentType"] == "text/plain"

    # A big folder comes a page at a time.
    for i in range(30):
        put(url, f"many/file-{i:02}.txt", f"file {i}".encode(), "text/plain")
    browser.get(url + "/_/storage?prefix=many%2F&pageSize=25")
    find(browser, "#listing-status", text="shown so far")
    assert len(browser.find_elements("css selector", "tr.file-row")) == 25
    find(browser, "#load-more").click()
    wait_until(browser, lambda b: len(b.find_elements("css selector", "tr.file-row")) == 30, message="no second page")
    wait_until(browser, lambda b: not b.find_element("css selector", "#load-more").is_displayed(), message="Load more still shown")
    assert "30 files." == find(browser, "#listing-status").text

    # Other buckets are listed, and picking one shows its folder.
    r = admin("POST", f"{url}/storage/v1/b", params={"project": "demo"}, json={"name": "archive-2026"})
    assert r.status_code == 200, r.text
    browser.get(url + "/_/storage")
    from selenium.webdriver.support.ui import Select
    Select(find(browser, "#bucket")).select_by_value("archive-2026")
    wait_until(browser, lambda b: "bucket=archive-2026" in b.current_url, message="the bucket was not opened")
    assert find(browser, "#listing-status", text="empty").text == "This bucket is empty: upload a file to start."
    assert find(browser, ".crumbs li").text == "archive-2026"

    # At a phone's width the folder and the open file stack, and nothing but the table scrolls sideways.
    browser.set_window_size(390, 844)
    try:
        browser.get(url + "/_/storage?prefix=photos%2F2026%2F&object=photos%2F2026%2Fbeach.png")
        wait_until(browser, lambda b: b.execute_script(
            "const i = document.querySelector('#preview-image'); return i && i.complete && i.naturalWidth") == 3, message="no preview")
        file_row(browser, "photos/2026/dropped.txt")
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        settled(browser)
        screenshot(browser, "storage-phone")
    finally:
        browser.set_window_size(1280, 900)
    assert browser_errors(browser) == []
