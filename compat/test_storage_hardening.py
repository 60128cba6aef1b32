"""Storage hardening found in review: what a signed-out or rule-limited client cannot do with
resumable sessions, chunked uploads and recursive listings, and repeated finalizes that must
never leave an object without its bytes."""

from __future__ import annotations

import concurrent.futures
import os
import uuid
from urllib.parse import quote

import pytest
import requests

from hearth_process import hearth_process

BUCKET = "demo.appspot.com"
TIMEOUT = 30


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hardening")
    with hearth_process(["--dev"], tmp / "data", tmp / "server.log") as (base_url, _, _):
        yield base_url


def set_rules(base_url: str, text: str) -> None:
    body = {"rules": {"files": [{"name": "storage.rules", "content": text}]}}
    resp = requests.put(f"{base_url}/internal/setRules", json=body, timeout=TIMEOUT)
    assert resp.status_code == 200, resp.text


def sign_up(base_url: str) -> dict[str, str]:
    resp = requests.post(f"{base_url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                         json={"email": f"{uuid.uuid4().hex[:10]}@x.io", "password": "secret1", "returnSecureToken": True},
                         timeout=TIMEOUT)
    return {"Authorization": f"Firebase {resp.json()['idToken']}"}


def start(base_url: str, name: str, headers: dict[str, str], total: int | None = None) -> requests.Response:
    h = {"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start", **headers}
    if total is not None:
        h["X-Goog-Upload-Header-Content-Length"] = str(total)
    return requests.post(f"{base_url}/v0/b/{BUCKET}/o", params={"name": name}, json={}, headers=h, timeout=TIMEOUT)


def command(url: str, cmd: str, headers: dict[str, str], offset: int | None = None, data: bytes = b"") -> requests.Response:
    h = {"X-Goog-Upload-Command": cmd, **headers}
    if offset is not None:
        h["X-Goog-Upload-Offset"] = str(offset)
    return requests.post(url, data=data, headers=h, timeout=TIMEOUT)


DEFAULT = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{all=**} { allow read, write: if request.auth != null; }
  }
}"""


def test_signed_out_clients_get_no_resumable_session_and_no_chunked_upload(server):
    set_rules(server, DEFAULT)
    assert start(server, "anon/big.bin", {}).status_code == 403, "no session without a declared length either"
    assert start(server, "anon/big.bin", {}, total=10).status_code == 403

    def body():
        for _ in range(64):
            yield os.urandom(64 * 1024)

    chunked = requests.post(f"{server}/v0/b/{BUCKET}/o", params={"name": "anon/chunked.bin"}, data=body(),
                            headers={"Content-Type": "application/octet-stream"}, timeout=TIMEOUT)
    assert chunked.status_code == 403
    assert requests.get(f"{server}/v0/b/{BUCKET}/o/anon%2Fchunked.bin", headers=sign_up(server), timeout=TIMEOUT).status_code == 404


def test_a_session_cannot_grow_past_its_declared_size(server):
    set_rules(server, DEFAULT)
    auth = sign_up(server)
    resp = start(server, "sized/file.bin", auth, total=1000)
    assert resp.status_code == 200
    url = resp.headers["X-Goog-Upload-URL"]
    assert command(url, "upload", auth, offset=0, data=b"a" * 600).status_code == 200
    over = command(url, "upload", auth, offset=600, data=b"b" * 600)
    assert over.status_code == 400 and "declared size" in over.json()["error"]["message"]
    done = command(url, "upload, finalize", auth, offset=600, data=b"c" * 400)
    assert done.status_code == 200, done.text
    assert done.json()["size"] == "1000"


def test_recursive_listing_hides_folders_whose_listing_is_closed(server):
    set_rules(server, """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /pub/{file} { allow list: if true; }
    match /{all=**} { allow write: if request.auth != null; }
  }
}""")
    auth = sign_up(server)
    for name in ["pub/open.txt", "pub/private/secret-name.txt"]:
        assert requests.post(f"{server}/v0/b/{BUCKET}/o", params={"name": name}, data=b"x",
                             headers={"Content-Type": "text/plain", **auth}, timeout=TIMEOUT).status_code == 200
    folder = requests.get(f"{server}/v0/b/{BUCKET}/o", params={"prefix": "pub/", "delimiter": "/"}, timeout=TIMEOUT).json()
    assert [i["name"] for i in folder["items"]] == ["pub/open.txt"] and folder["prefixes"] == ["pub/private/"]
    closed = requests.get(f"{server}/v0/b/{BUCKET}/o", params={"prefix": "pub/private/", "delimiter": "/"}, timeout=TIMEOUT)
    assert closed.status_code == 403
    recursive = requests.get(f"{server}/v0/b/{BUCKET}/o", params={"prefix": "pub/"}, timeout=TIMEOUT).json()
    assert [i["name"] for i in recursive["items"]] == ["pub/open.txt"], "no name from the closed folder"


def test_concurrent_finalizes_never_leave_an_object_without_its_bytes(server):
    set_rules(server, """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{all=**} {
      allow read: if request.auth != null;
      allow write: if request.auth != null && resource == null;
    }
  }
}""")
    auth = sign_up(server)
    for attempt in range(3):
        name = f"once/{uuid.uuid4().hex}.bin"
        data = os.urandom(8 * 1024 * 1024)
        resp = start(server, name, auth, total=len(data))
        url = resp.headers["X-Goog-Upload-URL"]
        assert command(url, "upload", auth, offset=0, data=data).status_code == 200
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(lambda _: command(url, "finalize", auth).status_code, range(8)))
        assert 200 in statuses, statuses
        assert all(s in (200, 403, 409) for s in statuses), statuses
        got = requests.get(f"{server}/v0/b/{BUCKET}/o/{quote(name, safe='')}", params={"alt": "media"}, headers=auth, timeout=TIMEOUT)
        assert got.status_code == 200 and got.content == data, f"attempt {attempt}: {statuses}"


def test_a_session_url_only_works_on_its_own_bucket_and_api(server):
    set_rules(server, DEFAULT)
    auth = sign_up(server)
    resp = start(server, "bound/file.bin", auth, total=4)
    url = resp.headers["X-Goog-Upload-URL"]
    upload_id = resp.headers["x-gupload-uploadid"]
    other_bucket = url.replace(f"/v0/b/{BUCKET}/", "/v0/b/other-bucket/")
    assert other_bucket != url
    assert command(other_bucket, "query", auth).status_code == 404
    cloud = requests.put(f"{server}/upload/storage/v1/b/{BUCKET}/o", params={"uploadType": "resumable", "upload_id": upload_id},
                         data=b"abcd", headers={"Content-Range": "bytes 0-3/4"}, timeout=TIMEOUT)
    assert cloud.status_code == 404, "a Firebase session is not a Cloud Storage session"
    done = command(url, "upload, finalize", auth, offset=0, data=b"abcd")
    assert done.status_code == 200 and done.json()["bucket"] == BUCKET
