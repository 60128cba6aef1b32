"""Firebase Storage v0 REST, driven the way the Firebase JS / iOS SDKs drive it.

Spec: shared/specs/auth-storage-links.md §B.1 (object model), §B.2 (v0 REST), §B.4 (storage
rules), §D.8-12 (pitfalls), §E scenarios 34-40.

Identities:

* a signed-in user: an ID token from ``accounts:signUp`` sent as ``Authorization: Firebase <t>``
  (what the SDKs send) or ``Bearer <t>``;
* the admin: ``Authorization: Bearer owner`` (the --dev admin token), which skips the rules;
* a signed-out client: no ``Authorization`` at all.

Object names always travel percent-encoded as ONE path segment (``quote(name, safe="")``,
``/`` -> ``%2F``), and in ``?name=`` the same way (the JS SDK uses encodeURIComponent).

Storage rules are global per server, so every test that installs rules runs on a server of its
own (``rules_server``, module scope, or ``fresh_server``, function scope). The tests on the shared
session server only rely on the default rules (``allow read, write: if request.auth != null``).

Every network call here has a timeout.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import re
import time
import uuid
from typing import Any
from urllib.parse import quote, urlsplit

import google_crc32c
import pytest
import requests

from hearth_helpers import OWNER_HEADERS
from hearth_process import hearth_process

TIMEOUT = 15.0
BIG_TIMEOUT = 90.0
API_KEY = "any-api-key"
DEFAULT_BUCKET = "demo.appspot.com"
KIB = 1024
MIB = 1024 * 1024
CHUNK = 256 * KIB
SDK_HEADERS = {"X-Firebase-Storage-Version": "webjs/10.12.0", "X-Firebase-GMPID": "1:1234:web:abcd"}
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


# ------------------------------------------------------------------------------------------
# Helpers


class Session(requests.Session):
    """A ``requests.Session`` whose every request has a timeout."""

    def request(self, method, url, **kwargs):  # type: ignore[override]
        kwargs.setdefault("timeout", TIMEOUT)
        return super().request(method, url, **kwargs)


def enc(text: str) -> str:
    """One percent-encoded path segment / query value (JS encodeURIComponent, stricter)."""
    return quote(text, safe="")


def uniq(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def md5_b64(data: bytes) -> str:
    return base64.b64encode(hashlib.md5(data).digest()).decode("ascii")


def crc32c_b64(data: bytes) -> str:
    return base64.b64encode(google_crc32c.value(data).to_bytes(4, "big")).decode("ascii")


def firebase_auth(id_token: str) -> dict[str, str]:
    return {"Authorization": f"Firebase {id_token}"}


def bearer_auth(id_token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {id_token}"}


def sign_up(base_url: str, email: str | None = None) -> tuple[str, str]:
    """A new email/password user on ``base_url``; returns ``(idToken, localId)``."""
    email = email or f"{uniq('u')}@example.com"
    resp = requests.post(
        f"{base_url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": API_KEY},
        json={"email": email, "password": "secret-pass-1", "returnSecureToken": True}, timeout=TIMEOUT)
    assert resp.status_code == 200, f"signUp failed: {resp.status_code} {resp.text!r}"
    body = resp.json()
    return body["idToken"], body["localId"]


def unsigned_token(uid: str, project: str = "demo", **claims: Any) -> str:
    """An ``alg: none`` ID token like the JS SDK's ``mockUserToken`` (accepted in --dev)."""
    now = int(time.time())
    payload = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": now, "exp": now + 3600,
               "auth_time": now, "sub": uid, "user_id": uid,
               "firebase": {"sign_in_provider": "custom", "identities": {}}, **claims}

    def b64(obj: Any) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{b64({'alg': 'none', 'type': 'JWT'})}.{b64(payload)}."


def set_rules(base_url: str, text: str) -> requests.Response:
    resp = requests.put(f"{base_url}/internal/setRules",
                        json={"rules": {"files": [{"name": "storage.rules", "content": text}]}}, timeout=TIMEOUT)
    assert resp.status_code == 200, f"setRules failed: {resp.status_code} {resp.text!r}"
    return resp


def get_rules(base_url: str) -> str:
    resp = requests.get(f"{base_url}/internal/getRules", timeout=TIMEOUT)
    assert resp.status_code == 200, f"getRules failed: {resp.status_code} {resp.text!r}"
    files = resp.json()["rules"]["files"]
    assert len(files) == 1, files
    return files[0]["content"]


def storage_rules(body: str) -> str:
    """A full rules file around ``body`` (placed inside ``match /b/{bucket}/o``)."""
    return ("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n"
            + body + "\n  }\n}\n")


def assert_denied(resp: requests.Response, verb: str) -> None:
    """§B.2 Errors / brief: 403 ``{"error":{"code":403,"message":"Permission denied. No VERB permission."}}``."""
    assert resp.status_code == 403, f"expected 403 (No {verb} permission), got {resp.status_code} {resp.text!r}"
    assert resp.json() == {"error": {"code": 403, "message": f"Permission denied. No {verb} permission."}}, resp.text


def ok(resp: requests.Response, status: int = 200) -> requests.Response:
    assert resp.status_code == status, f"expected {status}, got {resp.status_code} {resp.text[:500]!r}"
    return resp


class V0:
    """The Firebase Storage v0 surface of one server, as the client SDKs call it."""

    def __init__(self, base_url: str, bucket: str = DEFAULT_BUCKET):
        self.base = base_url
        self.bucket = bucket
        self.s = Session()
        self.s.headers.update(SDK_HEADERS)

    # -- URLs ---------------------------------------------------------------------------------

    def bucket_url(self, bucket: str | None = None) -> str:
        return f"{self.base}/v0/b/{enc(bucket or self.bucket)}/o"

    def object_url(self, name: str, bucket: str | None = None) -> str:
        return f"{self.bucket_url(bucket)}/{enc(name)}"

    # -- uploads ------------------------------------------------------------------------------

    def upload(self, name: str, data: bytes, content_type: str | None = "application/octet-stream",
               auth: dict[str, str] | None = None, bucket: str | None = None, **kw) -> requests.Response:
        """Media upload: POST ``/v0/b/B/o?name=<enc>`` with the raw bytes."""
        headers = dict(auth or {})
        if content_type is not None:
            headers["Content-Type"] = content_type
        return self.s.post(f"{self.bucket_url(bucket)}?name={enc(name)}", data=data, headers=headers, **kw)

    def multipart(self, name: str, data: bytes, metadata: dict[str, Any] | None = None,
                  content_type: str = "application/octet-stream", auth: dict[str, str] | None = None,
                  bucket: str | None = None, boundary: str | None = None, quoted: bool = False) -> requests.Response:
        """Multipart upload exactly as the JS SDK builds it (§B.2 "Multipart upload (JS)")."""
        boundary = boundary or "".join(random.choice("0123456789") for _ in range(20))
        resource = {"name": name, "contentType": content_type, **(metadata or {})}
        body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
                f"{json.dumps(resource)}\r\n--{boundary}\r\nContent-Type: {content_type}\r\n\r\n").encode() \
            + data + f"\r\n--{boundary}--".encode()
        b = f'"{boundary}"' if quoted else boundary
        headers = {**(auth or {}), "X-Goog-Upload-Protocol": "multipart",
                   "Content-Type": f"multipart/related; boundary={b}"}
        return self.s.post(f"{self.bucket_url(bucket)}?name={enc(name)}", data=body, headers=headers)

    def start_resumable(self, name: str, size: int | None, content_type: str = "application/octet-stream",
                        metadata: dict[str, Any] | None = None, auth: dict[str, str] | None = None,
                        bucket: str | None = None) -> requests.Response:
        headers = {**(auth or {}), "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                   "X-Goog-Upload-Header-Content-Type": content_type,
                   "Content-Type": "application/json; charset=utf-8"}
        if size is not None:
            headers["X-Goog-Upload-Header-Content-Length"] = str(size)
        resource = {"name": name, "contentType": content_type, **(metadata or {})}
        return self.s.post(f"{self.bucket_url(bucket)}?name={enc(name)}", data=json.dumps(resource), headers=headers)

    def command(self, upload_url: str, command: str, offset: int | None = None, data: bytes = b"",
                auth: dict[str, str] | None = None, timeout: float = TIMEOUT) -> requests.Response:
        headers = {**(auth or {}), "X-Goog-Upload-Command": command}
        if offset is not None:
            headers["X-Goog-Upload-Offset"] = str(offset)
        return self.s.post(upload_url, data=data, headers=headers, timeout=timeout)

    # -- reads / changes ------------------------------------------------------------------------

    def metadata(self, name: str, auth: dict[str, str] | None = None, bucket: str | None = None) -> requests.Response:
        return self.s.get(self.object_url(name, bucket), headers=auth or {})

    def download(self, name: str, auth: dict[str, str] | None = None, token: str | None = None,
                 bucket: str | None = None, headers: dict[str, str] | None = None, **kw) -> requests.Response:
        url = self.object_url(name, bucket) + "?alt=media" + (f"&token={enc(token)}" if token is not None else "")
        return self.s.get(url, headers={**(auth or {}), **(headers or {})}, **kw)

    def patch(self, name: str, body: Any, auth: dict[str, str] | None = None, via: str = "PATCH",
              bucket: str | None = None) -> requests.Response:
        headers = {**(auth or {}), "Content-Type": "application/json; charset=utf-8"}
        if via != "PATCH":
            headers["X-HTTP-Method-Override"] = "PATCH"
        return self.s.request(via, self.object_url(name, bucket), data=json.dumps(body), headers=headers)

    def delete(self, name: str, auth: dict[str, str] | None = None, bucket: str | None = None) -> requests.Response:
        return self.s.delete(self.object_url(name, bucket), headers=auth or {})

    def list(self, auth: dict[str, str] | None = None, bucket: str | None = None, **params: Any) -> requests.Response:
        query = "&".join(f"{k}={enc(str(v))}" for k, v in params.items())
        return self.s.get(self.bucket_url(bucket) + (f"?{query}" if query else ""), headers=auth or {})

    def list_all(self, auth: dict[str, str] | None = None, max_pages: int = 50, **params: Any) -> tuple[list[dict], list[str]]:
        """Follows ``nextPageToken`` (bounded); returns (items, prefixes) over all pages."""
        items: list[dict] = []
        prefixes: list[str] = []
        token = None
        for _ in range(max_pages):
            page_params = dict(params)
            if token:
                page_params["pageToken"] = token
            body = ok(self.list(auth=auth, **page_params)).json()
            items += body.get("items", [])
            prefixes += body.get("prefixes", [])
            token = body.get("nextPageToken")
            if not token:
                return items, prefixes
        raise AssertionError(f"still a nextPageToken after {max_pages} pages")

    def close(self) -> None:
        self.s.close()


def resumable_upload(v0: V0, name: str, data: bytes, content_type: str, auth: dict[str, str],
                     metadata: dict[str, Any] | None = None, first_chunk: int = CHUNK) -> requests.Response:
    """The JS SDK's resumable loop: chunk size starts at 256 KiB and doubles; last chunk finalizes."""
    start = ok(v0.start_resumable(name, len(data), content_type, metadata=metadata, auth=auth))
    url = start.headers["X-Goog-Upload-URL"]
    offset, size = 0, first_chunk
    while True:
        chunk = data[offset:offset + size]
        last = offset + len(chunk) >= len(data)
        resp = v0.command(url, "upload, finalize" if last else "upload", offset, chunk, auth=auth, timeout=BIG_TIMEOUT)
        if last:
            return resp
        ok(resp)
        assert resp.headers.get("X-Goog-Upload-Status") == "active", dict(resp.headers)
        offset += len(chunk)
        size = min(size * 2, 32 * MIB)


def gcs_media_upload(base_url: str, bucket: str, name: str, data: bytes, content_type: str = "text/plain") -> dict:
    """An admin upload over the Cloud Storage JSON API (no Firebase download token is made)."""
    resp = requests.post(f"{base_url}/upload/storage/v1/b/{enc(bucket)}/o?uploadType=media&name={enc(name)}",
                         data=data, headers={**OWNER_HEADERS, "Content-Type": content_type}, timeout=TIMEOUT)
    return ok(resp).json()


def gcs_get(base_url: str, bucket: str, name: str) -> requests.Response:
    return requests.get(f"{base_url}/storage/v1/b/{enc(bucket)}/o/{enc(name)}", headers=OWNER_HEADERS, timeout=TIMEOUT)


def assert_v0_metadata(meta: dict[str, Any], bucket: str, name: str, data: bytes, content_type: str) -> None:
    """§B.2 metadata JSON (v0 view, int64 as strings) and §B.1 object model."""
    assert meta["name"] == name
    assert meta["bucket"] == bucket
    assert meta["size"] == str(len(data)), "size is an int64 serialized as a JSON string"
    assert meta["contentType"] == content_type
    assert meta["md5Hash"] == md5_b64(data)
    assert meta["crc32c"] == crc32c_b64(data), "crc32c = base64(big-endian CRC32C) (§B.1, §B.2 'prefer base64')"
    assert isinstance(meta["generation"], str) and meta["generation"].isdigit() and int(meta["generation"]) > 0
    assert meta["metageneration"] == "1"
    assert meta["contentEncoding"] == "identity"
    assert meta["storageClass"] == "STANDARD"
    assert TIMESTAMP_RE.fullmatch(meta["timeCreated"]), meta["timeCreated"]
    assert TIMESTAMP_RE.fullmatch(meta["updated"]), meta["updated"]
    assert isinstance(meta["etag"], str) and meta["etag"]
    tokens = meta["downloadTokens"].split(",")
    assert tokens and all(UUID_RE.fullmatch(t) for t in tokens), meta["downloadTokens"]
    assert "firebaseStorageDownloadTokens" not in meta.get("metadata", {}), "tokens are lifted out of metadata (§B.1)"


def first_token(meta: dict[str, Any]) -> str:
    return meta["downloadTokens"].split(",")[0]


def stream_md5(resp: requests.Response) -> tuple[int, str]:
    digest = hashlib.md5()
    total = 0
    for chunk in resp.iter_content(chunk_size=1 << 16):
        digest.update(chunk)
        total += len(chunk)
    return total, base64.b64encode(digest.digest()).decode()


# ------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture
def v0(base_url):
    client = V0(base_url)
    yield client
    client.close()


@pytest.fixture(scope="module")
def user(base_url) -> dict[str, str]:
    """A signed-in user of the shared server: ``{"token", "uid", "auth"}`` (Firebase scheme)."""
    token, uid = sign_up(base_url)
    return {"token": token, "uid": uid, "auth": firebase_auth(token)}


@pytest.fixture(scope="module")
def rules_server(tmp_path_factory):
    """A ``hearth serve --dev`` of this module's own, for tests that install storage rules."""
    data_dir = tmp_path_factory.mktemp("storage-rules-data")
    log_path = tmp_path_factory.mktemp("storage-rules-log") / "server.log"
    with hearth_process(["--dev"], data_dir, log_path) as (url, _, _):
        yield url


@pytest.fixture
def rv0(rules_server):
    client = V0(rules_server)
    yield client
    client.close()


@pytest.fixture
def fresh_server(tmp_path):
    """A function-scoped ``--dev`` server (default rules untouched); yields (url, data_dir, log)."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    with hearth_process(["--dev"], data_dir, tmp_path / "server.log") as (url, _, log):
        yield url, data_dir, log


# ------------------------------------------------------------------------------------------
# 1. Uploads and the v0 metadata view (scenarios 34, 35)


def test_media_upload_returns_v0_metadata_and_get_metadata_agrees(v0, user):
    """§B.2 upload media + get metadata; §B.1 fields; a Firebase upload creates one download token."""
    name = f"{uniq('media')}/photo.png"
    data = os.urandom(3000)
    meta = ok(v0.upload(name, data, "image/png", auth=user["auth"])).json()
    assert_v0_metadata(meta, DEFAULT_BUCKET, name, data, "image/png")
    assert len(meta["downloadTokens"].split(",")) == 1, "a Firebase-API upload creates exactly one token"
    assert meta.get("metadata", {}) == {}

    again = ok(v0.metadata(name, auth=user["auth"])).json()
    for key in ("name", "bucket", "size", "md5Hash", "crc32c", "generation", "metageneration", "contentType",
                "downloadTokens", "timeCreated"):
        assert again[key] == meta[key], key
    assert ok(v0.download(name, auth=user["auth"])).content == data


def test_upload_with_name_in_path_and_bearer_id_token(v0, user):
    """§B.2: uploads may target ``/v0/b/B/o/{o}``; ``Bearer <idToken>`` is accepted like ``Firebase``."""
    name = f"{uniq('pathform')}/a b.txt"
    data = b"name in the path"
    resp = v0.s.post(v0.object_url(name), data=data, headers={**bearer_auth(user["token"]), "Content-Type": "text/plain"})
    meta = ok(resp).json()
    assert meta["name"] == name and meta["size"] == str(len(data)) and meta["contentType"] == "text/plain"
    assert ok(v0.download(name, auth=bearer_auth(user["token"]))).content == data


def test_signed_out_client_is_denied_by_default_rules(v0, user):
    """Default rules ``allow read, write: if request.auth != null``; v0 denials are 403 with Firebase's text."""
    folder = uniq("signedout")
    name = f"{folder}/x.bin"
    assert_denied(v0.upload(name, b"nope"), "WRITE")
    assert v0.metadata(name, auth=OWNER_HEADERS).status_code == 404, "a denied upload stores nothing"
    ok(v0.upload(name, b"yes", auth=user["auth"]))
    assert_denied(v0.metadata(name), "READ")
    assert_denied(v0.download(name), "READ")
    assert_denied(v0.list(prefix=f"{folder}/"), "LIST")
    assert_denied(v0.patch(name, {"metadata": {"k": "v"}}), "WRITE")
    assert_denied(v0.delete(name), "WRITE")
    assert ok(v0.download(name, auth=user["auth"])).content == b"yes", "the object survived the denied delete"


def test_overwrite_makes_a_new_generation_and_resets_metageneration(v0, user):
    """§B.1: overwrite = new generation, metageneration reset to 1, timeCreated reset."""
    name = f"{uniq('overwrite')}/f.txt"
    first = ok(v0.upload(name, b"one", "text/plain", auth=user["auth"])).json()
    ok(v0.patch(name, {"metadata": {"k": "v"}}, auth=user["auth"]))
    time.sleep(0.01)
    second = ok(v0.upload(name, b"second version", "text/plain", auth=user["auth"])).json()
    assert int(second["generation"]) > int(first["generation"])
    assert second["metageneration"] == "1"
    assert second["timeCreated"] >= first["timeCreated"]
    assert second["size"] == "14" and second["md5Hash"] == md5_b64(b"second version")
    assert ok(v0.download(name, auth=user["auth"])).content == b"second version"


def test_multipart_upload_js_style_with_custom_metadata(v0, user, base_url):
    """Scenario 35: JS multipart body → metadata echoes contentType, custom metadata, string size;
    the GCS view shows the same token under ``metadata.firebaseStorageDownloadTokens``."""
    name = f"{uniq('img')}/p.png"
    data = b"\x89PNG\r\n\x1a\n" + os.urandom(2048)
    custom = {"owner": "ann", "caption": "Zoë's café ☕"}
    resp = v0.multipart(name, data, {"metadata": custom, "cacheControl": "public, max-age=60"},
                        content_type="image/png", auth=user["auth"])
    meta = ok(resp).json()
    assert_v0_metadata(meta, DEFAULT_BUCKET, name, data, "image/png")
    assert meta["metadata"] == custom
    assert meta["cacheControl"] == "public, max-age=60"

    got = ok(v0.metadata(name, auth=user["auth"])).json()
    assert got["metadata"] == custom and got["contentType"] == "image/png" and got["size"] == str(len(data))

    gcs = ok(gcs_get(base_url, DEFAULT_BUCKET, name)).json()
    assert gcs["metadata"]["firebaseStorageDownloadTokens"] == got["downloadTokens"]
    assert {k: v for k, v in gcs["metadata"].items() if k != "firebaseStorageDownloadTokens"} == custom

    down = ok(v0.download(name, auth=user["auth"]))
    assert down.content == data
    assert down.headers["Content-Type"] == "image/png"
    assert down.headers.get("Cache-Control") == "public, max-age=60"


def test_multipart_with_quoted_boundary_and_binary_payload(v0, user):
    """§D.12: the boundary may be quoted; the data part holds arbitrary bytes (CRLF, dashes, NUL, invalid UTF-8)."""
    boundary = "1234567890"
    name = f"{uniq('mp')}/blob.bin"
    data = b"\r\n--123456789\r\n\x00\xff\xfe--" + os.urandom(4096) + b"\r\n--"
    meta = ok(v0.multipart(name, data, {"metadata": {"a": "1"}}, boundary=boundary, quoted=True, auth=user["auth"])).json()
    assert meta["size"] == str(len(data)) and meta["md5Hash"] == md5_b64(data)
    assert meta["metadata"] == {"a": "1"}
    assert ok(v0.download(name, auth=user["auth"])).content == data


def test_media_upload_without_content_type_defaults_to_octet_stream(v0, user):
    """§B.1: contentType defaults to application/octet-stream."""
    name = f"{uniq('notype')}/raw"
    meta = ok(v0.upload(name, b"\x00\x01", content_type=None, auth=user["auth"])).json()
    assert meta["contentType"] == "application/octet-stream"
    assert ok(v0.download(name, auth=user["auth"])).headers["Content-Type"] == "application/octet-stream"


def test_empty_objects_via_media_multipart_and_resumable(v0, user):
    """A 0-byte object (JS uploads empty blobs too): size "0", MD5 of nothing, CRC32C ``AAAAAA==`` (§D.9)."""
    folder = uniq("empty")
    empty_md5 = md5_b64(b"")
    for name, resp in [
        (f"{folder}/media", lambda n: v0.upload(n, b"", "text/plain", auth=user["auth"])),
        (f"{folder}/multi", lambda n: v0.multipart(n, b"", content_type="text/plain", auth=user["auth"])),
    ]:
        meta = ok(resp(name)).json()
        assert meta["size"] == "0" and meta["md5Hash"] == empty_md5 and meta["crc32c"] == "AAAAAA==", (name, meta)
        down = ok(v0.download(name, auth=user["auth"]))
        assert down.content == b""
    name = f"{folder}/resumable"
    url = ok(v0.start_resumable(name, 0, "text/plain", auth=user["auth"])).headers["X-Goog-Upload-URL"]
    final = ok(v0.command(url, "upload, finalize", 0, b"", auth=user["auth"]))
    assert final.headers.get("X-Goog-Upload-Status") == "final"
    assert final.json()["size"] == "0" and final.json()["crc32c"] == "AAAAAA=="


def test_gzip_content_encoding_served_per_accept_encoding(v0, user):
    """§B.2 download: stored ``contentEncoding: gzip`` is served compressed with ``Content-Encoding: gzip``
    to a client that accepts gzip, otherwise decompressed (no Content-Encoding)."""
    import gzip

    name = f"{uniq('gz')}/data.json"
    plain = json.dumps({"hello": "world " * 200}).encode()
    packed = gzip.compress(plain)
    meta = ok(v0.multipart(name, packed, {"contentEncoding": "gzip"}, content_type="application/json",
                           auth=user["auth"])).json()
    assert meta["contentEncoding"] == "gzip" and meta["size"] == str(len(packed))

    with v0.download(name, auth=user["auth"], headers={"Accept-Encoding": "gzip"}, stream=True) as resp:
        ok(resp)
        raw = resp.raw.read(decode_content=False)
        assert resp.headers.get("Content-Encoding") == "gzip"
    assert raw == packed

    with v0.download(name, auth=user["auth"], headers={"Accept-Encoding": "identity"}, stream=True) as resp:
        ok(resp)
        raw = resp.raw.read(decode_content=False)
        encoding = resp.headers.get("Content-Encoding")
    assert encoding in (None, "identity"), f"a client without gzip gets no Content-Encoding: {encoding!r}"
    assert raw == plain, f"a client without gzip gets the decompressed bytes ({len(raw)} bytes, want {len(plain)})"


def test_gzip_object_much_larger_than_its_compressed_form_inflates_completely(v0, user):
    """A 6 MB text that gzips to a few KB: one stored chunk expands into many output pieces."""
    import gzip

    name = f"{uniq('gzbig')}/log.txt"
    plain = b"the same line of a very repetitive log\n" * 150_000
    packed = gzip.compress(plain, compresslevel=9)
    assert len(packed) * 20 < len(plain)
    ok(v0.multipart(name, packed, {"contentEncoding": "gzip"}, content_type="text/plain", auth=user["auth"]))
    with v0.download(name, auth=user["auth"], headers={"Accept-Encoding": "identity"}, stream=True) as resp:
        ok(resp)
        raw = resp.raw.read(decode_content=False)
    assert len(raw) == len(plain) and raw == plain


# ------------------------------------------------------------------------------------------
# 2. Downloads and download tokens (scenarios 36, 37)


def test_download_with_token_range_and_headers(v0, user):
    """Scenario 36 + §B.2 download semantics."""
    name = f"{uniq('dl')}/notes file.txt"
    data = b"0123456789abcdefghij"
    meta = ok(v0.upload(name, data, "text/plain", auth=user["auth"])).json()
    token = first_token(meta)

    resp = ok(v0.download(name, token=token))
    assert resp.content == data
    assert resp.headers["Content-Type"] == "text/plain"
    assert resp.headers.get("Accept-Ranges") == "bytes"
    assert resp.headers.get("x-goog-generation") == meta["generation"]
    assert resp.headers.get("x-goog-metageneration") == meta["metageneration"]
    assert resp.headers.get("ETag")
    hashes = dict(part.split("=", 1) for part in resp.headers.get("x-goog-hash", "").split(","))
    assert hashes == {"crc32c": crc32c_b64(data), "md5": md5_b64(data)}
    assert resp.headers.get("Content-Disposition", "").endswith("; filename*=UTF-8''notes%20file.txt"), \
        resp.headers.get("Content-Disposition")

    assert_denied(v0.download(name, token=str(uuid.uuid4())), "READ")
    # An unknown token falls back to the rules with the Authorization header (Pyrebase sends both).
    assert ok(v0.download(name, token="not-a-token", auth=user["auth"])).content == data

    part = v0.download(name, token=token, headers={"Range": "bytes=0-3"})
    assert part.status_code == 206, part.status_code
    assert part.content == b"0123"
    assert part.headers.get("Content-Range") == f"bytes 0-3/{len(data)}"
    tail = v0.download(name, auth=user["auth"], headers={"Range": "bytes=-5"})
    assert tail.status_code == 206 and tail.content == data[-5:]
    assert tail.headers.get("Content-Range") == f"bytes {len(data) - 5}-{len(data) - 1}/{len(data)}"


def test_download_content_disposition_defaults_to_attachment(v0, user):
    """§B.2 download semantics: ``Content-Disposition: <stored or "attachment">; filename*=UTF-8''<last segment>``."""
    name = f"{uniq('disp')}/report.pdf"
    ok(v0.upload(name, b"%PDF-1.4", "application/pdf", auth=user["auth"]))
    resp = ok(v0.download(name, auth=user["auth"]))
    assert resp.headers.get("Content-Disposition") == "attachment; filename*=UTF-8''report.pdf"
    ok(v0.patch(name, {"contentDisposition": "inline"}, auth=user["auth"]))
    resp = ok(v0.download(name, auth=user["auth"]))
    assert resp.headers.get("Content-Disposition") == "inline; filename*=UTF-8''report.pdf"


def test_missing_object_is_404_on_every_read(v0, user):
    """§B.2 errors: 404 → storage/object-not-found, for a caller the rules let see the object. A caller
    they do not (signed out, default rules) gets 403 whether the object exists or not, so the
    rules decide what a caller learns about names."""
    name = f"{uniq('missing')}/none.txt"
    assert v0.metadata(name, auth=user["auth"]).status_code == 404
    assert v0.download(name, auth=user["auth"]).status_code == 404
    assert v0.patch(name, {"metadata": {"a": "b"}}, auth=user["auth"]).status_code == 404
    assert v0.delete(name, auth=user["auth"]).status_code == 404
    assert v0.download(name, token=str(uuid.uuid4())).status_code == 403
    assert v0.metadata(name).status_code == 403
    assert v0.delete(name).status_code == 403
    existing = f"{uniq('present')}/file.txt"
    ok(v0.upload(existing, b"x", "text/plain", auth=user["auth"]))
    assert v0.metadata(existing).status_code == 403 and v0.delete(existing).status_code == 403


def test_admin_uploaded_token_via_python_storage_serves_public_url(base_url):
    """Scenario 37: python-storage upload with ``metadata={"firebaseStorageDownloadTokens": uuid}`` →
    ``/v0/b/B/o/<enc>?alt=media&token=uuid`` downloads without auth."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    client = storage.Client(project="demo", credentials=AnonymousCredentials(),
                            client_options={"api_endpoint": base_url})
    token = str(uuid.uuid4())
    name = f"{uniq('admin')}/ü p.txt"
    blob = client.bucket(DEFAULT_BUCKET).blob(name)
    blob.metadata = {"firebaseStorageDownloadTokens": token, "k": "v"}
    blob.upload_from_string(b"admin bytes", content_type="text/plain", timeout=TIMEOUT)

    url = f"{base_url}/v0/b/{enc(DEFAULT_BUCKET)}/o/{enc(name)}?alt=media&token={token}"
    resp = requests.get(url, timeout=TIMEOUT)
    assert resp.status_code == 200 and resp.content == b"admin bytes", (resp.status_code, resp.text)
    meta = ok(requests.get(f"{base_url}/v0/b/{enc(DEFAULT_BUCKET)}/o/{enc(name)}", headers=OWNER_HEADERS,
                           timeout=TIMEOUT)).json()
    assert meta["downloadTokens"] == token
    assert meta["metadata"] == {"k": "v"}


def test_metadata_get_creates_a_token_for_a_tokenless_object(v0, user, base_url):
    """§B.1: a Firebase-API metadata GET on an object with zero tokens creates one (getDownloadURL)."""
    name = f"{uniq('tokenless')}/admin.txt"
    gcs = gcs_media_upload(base_url, DEFAULT_BUCKET, name, b"from admin")
    assert "firebaseStorageDownloadTokens" not in gcs.get("metadata", {}), gcs
    meta = ok(v0.metadata(name, auth=user["auth"])).json()
    token = meta["downloadTokens"]
    assert UUID_RE.fullmatch(token), token
    assert ok(v0.metadata(name, auth=user["auth"])).json()["downloadTokens"] == token, "created once, then kept"
    assert ok(gcs_get(base_url, DEFAULT_BUCKET, name)).json()["metadata"]["firebaseStorageDownloadTokens"] == token
    assert ok(v0.download(name, token=token)).content == b"from admin"


def test_create_and_delete_token_are_admin_only(v0, user):
    """§B.2 create_token / delete_token (admin); a fresh token is added when the last one is deleted."""
    name = f"{uniq('tokens')}/t.txt"
    meta = ok(v0.upload(name, b"tok", "text/plain", auth=user["auth"])).json()
    t1 = first_token(meta)
    refused = v0.s.post(v0.object_url(name) + "?create_token=true", headers=user["auth"])
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["message"] == "Missing admin credentials."
    refused = v0.s.post(v0.object_url(name) + f"?delete_token={t1}", headers=user["auth"])
    assert refused.status_code == 403, refused.text

    created = ok(v0.s.post(v0.object_url(name) + "?create_token=true", headers=OWNER_HEADERS)).json()
    tokens = created["downloadTokens"].split(",")
    assert len(tokens) == 2 and tokens[0] == t1 and UUID_RE.fullmatch(tokens[1]) and tokens[1] != t1, tokens
    t2 = tokens[1]

    after = ok(v0.s.post(v0.object_url(name) + f"?delete_token={t1}", headers=OWNER_HEADERS)).json()
    assert after["downloadTokens"] == t2
    assert_denied(v0.download(name, token=t1), "READ")
    assert ok(v0.download(name, token=t2)).content == b"tok"

    last = ok(v0.s.post(v0.object_url(name) + f"?delete_token={t2}", headers=OWNER_HEADERS)).json()
    fresh = last["downloadTokens"]
    assert UUID_RE.fullmatch(fresh) and fresh not in (t1, t2), fresh
    assert v0.s.post(v0.object_url(f"{name}.missing") + "?create_token=true", headers=OWNER_HEADERS).status_code == 404


# ------------------------------------------------------------------------------------------
# 3. Metadata updates


@pytest.mark.parametrize("via", ["PATCH", "PUT", "POST"])
def test_patch_metadata_bumps_metageneration_and_null_deletes(v0, user, via):
    """§B.2 update metadata (PATCH, or PUT/POST + ``X-HTTP-Method-Override: PATCH``); §B.1
    metageneration +1 per change; explicit null deletes a custom key (metadata merges key by key)."""
    name = f"{uniq('patch')}/doc.txt"
    data = b"patch me"
    meta = ok(v0.upload(name, data, "text/plain", auth=user["auth"])).json()
    changed = ok(v0.patch(name, {"contentType": "text/markdown", "cacheControl": "no-cache",
                                 "contentLanguage": "de", "metadata": {"a": "1", "b": "2"}},
                          auth=user["auth"], via=via)).json()
    assert changed["metageneration"] == "2"
    assert changed["generation"] == meta["generation"], "a metadata change keeps the generation"
    assert changed["contentType"] == "text/markdown"
    assert changed["cacheControl"] == "no-cache" and changed["contentLanguage"] == "de"
    assert changed["metadata"] == {"a": "1", "b": "2"}
    assert changed["downloadTokens"] == meta["downloadTokens"], "a PATCH keeps the download tokens"
    assert changed["md5Hash"] == meta["md5Hash"] and changed["size"] == meta["size"]
    assert changed["updated"] >= meta["updated"]

    third = ok(v0.patch(name, {"metadata": {"a": None, "c": "3"}, "cacheControl": None}, auth=user["auth"], via=via)).json()
    assert third["metageneration"] == "3"
    assert third["metadata"] == {"b": "2", "c": "3"}
    assert "cacheControl" not in third, third
    assert third["contentType"] == "text/markdown"

    got = ok(v0.metadata(name, auth=user["auth"])).json()
    assert got["metadata"] == {"b": "2", "c": "3"} and got["metageneration"] == "3"
    down = ok(v0.download(name, auth=user["auth"]))
    assert down.content == data and down.headers["Content-Type"] == "text/markdown"
    assert down.headers.get("Content-Language") == "de"
    assert down.headers.get("x-goog-metageneration") == "3"


def test_patch_cannot_change_name_size_or_hash(v0, user):
    """Only writable fields change (§B.1); read-only fields in the body are ignored, not applied."""
    name = f"{uniq('ro')}/f.txt"
    meta = ok(v0.upload(name, b"abc", "text/plain", auth=user["auth"])).json()
    resp = ok(v0.patch(name, {"name": "elsewhere.txt", "size": "999", "bucket": "other", "generation": "1",
                              "metadata": {"x": "y"}}, auth=user["auth"])).json()
    assert resp["name"] == name and resp["size"] == "3" and resp["bucket"] == DEFAULT_BUCKET
    assert resp["generation"] == meta["generation"]
    assert resp["metadata"] == {"x": "y"}
    assert v0.metadata("elsewhere.txt", auth=OWNER_HEADERS).status_code == 404


def test_patch_metadata_null_clears_custom_metadata_but_keeps_tokens(v0, user):
    """§0: null means delete for Storage metadata; ``"metadata": null`` drops every custom key;
    download tokens are not custom metadata in the v0 view (§B.1) and stay."""
    name = f"{uniq('clear')}/f.txt"
    meta = ok(v0.multipart(name, b"abc", {"metadata": {"a": "1", "b": "2"}}, content_type="text/plain",
                           auth=user["auth"])).json()
    cleared = ok(v0.patch(name, {"metadata": None}, auth=user["auth"])).json()
    assert cleared.get("metadata", {}) == {}, cleared
    assert cleared["downloadTokens"] == meta["downloadTokens"]
    assert cleared["metageneration"] == "2"
    assert ok(v0.download(name, token=first_token(meta))).content == b"abc"


# ------------------------------------------------------------------------------------------
# 4. Delete (scenario 40)


def test_delete_is_204_then_404(v0, user):
    """Scenario 40: DELETE with auth → 204 (empty body); GET metadata → 404; gone from listings."""
    folder = uniq("del")
    name = f"{folder}/gone.txt"
    ok(v0.upload(name, b"bye", "text/plain", auth=user["auth"]))
    ok(v0.upload(f"{folder}/stays.txt", b"hi", "text/plain", auth=user["auth"]))
    resp = v0.delete(name, auth=user["auth"])
    assert resp.status_code == 204, (resp.status_code, resp.text)
    assert resp.content == b""
    assert v0.metadata(name, auth=user["auth"]).status_code == 404
    assert v0.download(name, auth=user["auth"]).status_code == 404
    assert v0.delete(name, auth=user["auth"]).status_code == 404
    items, _ = v0.list_all(auth=user["auth"], prefix=f"{folder}/")
    assert [i["name"] for i in items] == [f"{folder}/stays.txt"]


def test_delete_with_name_query_pyrebase_form(v0, user):
    """§B.2: Pyrebase deletes with ``DELETE /v0/b/B/o?name={path}``."""
    name = f"{uniq('pyrebase')}/x y.txt"
    ok(v0.upload(name, b"x", "text/plain", auth=user["auth"]))
    resp = v0.s.delete(f"{v0.bucket_url()}?name={enc(name)}", headers=user["auth"])
    assert resp.status_code in (200, 204), (resp.status_code, resp.text)
    assert v0.metadata(name, auth=user["auth"]).status_code == 404


# ------------------------------------------------------------------------------------------
# 5. Listing (scenario 39)


def test_list_prefix_and_delimiter(v0, user):
    """Scenario 39: items[].name sorted, prefixes with trailing slash; prefix without slash → 400."""
    bucket = f"{uniq('list')}.appspot.com"
    names = ["img/b.png", "img/a.png", "img/sub/c.png", "img/sub/deep/d.png", "other/e.txt", "root.txt"]
    for n in names:
        ok(v0.upload(n, n.encode(), "image/png", auth=user["auth"], bucket=bucket))

    body = ok(v0.list(auth=user["auth"], bucket=bucket, prefix="img/", delimiter="/")).json()
    assert [i["name"] for i in body["items"]] == ["img/a.png", "img/b.png"]
    assert all(i["bucket"] == bucket for i in body["items"])
    assert body["prefixes"] == ["img/sub/"]
    assert "nextPageToken" not in body

    root = ok(v0.list(auth=user["auth"], bucket=bucket, delimiter="/")).json()
    assert [i["name"] for i in root["items"]] == ["root.txt"]
    assert root["prefixes"] == ["img/", "other/"]

    everything = ok(v0.list(auth=user["auth"], bucket=bucket, prefix="img/")).json()
    assert [i["name"] for i in everything["items"]] == sorted(n for n in names if n.startswith("img/"))
    assert everything["prefixes"] == []

    empty = ok(v0.list(auth=user["auth"], bucket=bucket, prefix="nothing/", delimiter="/")).json()
    assert empty["items"] == [] and empty["prefixes"] == []

    bad = v0.list(auth=user["auth"], bucket=bucket, prefix="img", delimiter="/")
    assert bad.status_code == 400, (bad.status_code, bad.text)


def test_list_paging_with_max_results_one_yields_every_name_once_in_order(v0, user):
    """Scenario 39 / 27 (v0): maxResults=1 pages through every name once, in lexical order."""
    bucket = f"{uniq('page')}.appspot.com"
    names = ["d/a.txt", "d/b b.txt", "d/c.txt", "d/sub/x.txt", "d/sub/y.txt", "d/z.txt", "d/ä.txt"]
    for n in random.sample(names, len(names)):
        ok(v0.upload(n, b"p", "text/plain", auth=user["auth"], bucket=bucket))

    seen: list[str] = []
    token = None
    pages = 0
    for _ in range(30):
        params = {"prefix": "d/", "maxResults": 1}
        if token:
            params["pageToken"] = token
        body = ok(v0.list(auth=user["auth"], bucket=bucket, **params)).json()
        pages += 1
        assert len(body["items"]) <= 1, body
        seen += [i["name"] for i in body["items"]]
        token = body.get("nextPageToken")
        if not token:
            break
    else:
        raise AssertionError("paging did not end")
    assert seen == sorted(names, key=lambda s: s.encode()), seen
    assert pages >= len(names)

    # With a delimiter: items and the one prefix each appear once across all pages.
    items, prefixes = v0.list_all(auth=user["auth"], bucket=bucket, prefix="d/", delimiter="/", maxResults=1)
    assert [i["name"] for i in items] == sorted((n for n in names if "sub/" not in n), key=lambda s: s.encode())
    assert prefixes == ["d/sub/"]

    bad = v0.list(auth=user["auth"], bucket=bucket, prefix="d/", pageToken="garbage!!")
    assert bad.status_code == 400, (bad.status_code, bad.text)


def test_list_drops_names_with_empty_segments(v0, user, base_url):
    """§B.2 list: drop names with empty segments (the SDKs cannot address them)."""
    bucket = f"{uniq('empty')}.appspot.com"
    gcs_media_upload(base_url, bucket, "f/a//b.txt", b"x")
    ok(v0.upload("f/ok.txt", b"y", "text/plain", auth=user["auth"], bucket=bucket))
    items, _ = v0.list_all(auth=user["auth"], bucket=bucket, prefix="f/")
    assert [i["name"] for i in items] == ["f/ok.txt"]


# ------------------------------------------------------------------------------------------
# 6. Odd names (§0 percent-encoding, §D.8)

ODD_NAMES = [
    "with space.txt",
    "ünïcødé 日本語.txt",
    "100%.txt",
    "%41%2F.txt",
    "hash#tag.txt",
    "what?x=1&y=2.txt",
    "a+b=c.txt",
    "sub dir/ü%.txt",
    "semi;colon,comma'quote\".txt",
    "emoji 😀/file~!*().txt",
]


@pytest.mark.parametrize("odd", ODD_NAMES)
def test_odd_names_round_trip(v0, user, odd):
    """Upload (``?name=`` encoded), metadata, download, token download, list and delete with the name
    percent-encoded as one segment; the stored name is decoded exactly once (§0, §D.8)."""
    folder = uniq("odd")
    name = f"{folder}/{odd}"
    data = ("payload of " + odd).encode()
    meta = ok(v0.upload(name, data, "text/plain", auth=user["auth"])).json()
    assert meta["name"] == name
    got = ok(v0.metadata(name, auth=user["auth"])).json()
    assert got["name"] == name and got["size"] == str(len(data))
    assert ok(v0.download(name, auth=user["auth"])).content == data
    assert ok(v0.download(name, token=first_token(meta))).content == data
    items, prefixes = v0.list_all(auth=user["auth"], prefix=f"{folder}/")
    assert [i["name"] for i in items] == [name]
    if "/" in odd:
        _, pre = v0.list_all(auth=user["auth"], prefix=f"{folder}/", delimiter="/")
        assert pre == [f"{folder}/{odd.split('/')[0]}/"]
        sub_items, _ = v0.list_all(auth=user["auth"], prefix=f"{folder}/{odd.split('/')[0]}/", delimiter="/")
        assert [i["name"] for i in sub_items] == [name]
    patched = ok(v0.patch(name, {"metadata": {"n": odd}}, auth=user["auth"])).json()
    assert patched["name"] == name and patched["metadata"] == {"n": odd}
    assert v0.delete(name, auth=user["auth"]).status_code == 204
    assert v0.metadata(name, auth=user["auth"]).status_code == 404


def test_odd_names_via_multipart_and_resumable(v0, user):
    """The name in a multipart metadata part and in a resumable start round-trips too."""
    folder = uniq("oddup")
    n1 = f"{folder}/multi part #1 ?+%.bin"
    n2 = f"{folder}/resum able ü #2 ?+%.bin"
    meta = ok(v0.multipart(n1, b"mp", auth=user["auth"])).json()
    assert meta["name"] == n1
    final = resumable_upload(v0, n2, b"rs" * 1000, "application/octet-stream", user["auth"])
    assert ok(final).json()["name"] == n2
    items, _ = v0.list_all(auth=user["auth"], prefix=f"{folder}/")
    assert sorted(i["name"] for i in items) == sorted([n1, n2])
    assert ok(v0.download(n1, auth=user["auth"])).content == b"mp"
    assert ok(v0.download(n2, auth=user["auth"])).content == b"rs" * 1000


def test_name_is_decoded_exactly_once(v0, user):
    """``%2541`` in the path is the name ``%41`` — not ``A`` (decode once, §0 / §D.8)."""
    folder = uniq("once")
    ok(v0.upload(f"{folder}/%41", b"percent", auth=user["auth"]))
    ok(v0.upload(f"{folder}/A", b"letter", auth=user["auth"]))
    assert ok(v0.download(f"{folder}/%41", auth=user["auth"])).content == b"percent"
    assert ok(v0.download(f"{folder}/A", auth=user["auth"])).content == b"letter"


# ------------------------------------------------------------------------------------------
# 7. Resumable uploads (scenario 38)


def test_resumable_chunks_query_and_overlapping_resend(v0, user, base_url):
    """Scenario 38 + §B.2 resumable: start → URL; 256 KiB chunks; query reports bytes received;
    a resent overlapping chunk does not duplicate bytes; ``upload, finalize`` → final + metadata."""
    name = f"{uniq('resumable')}/video.mp4"
    data = os.urandom(3 * CHUNK + 1000)
    custom = {"k": "v", "camera": "x100"}
    start = v0.start_resumable(name, len(data), "video/mp4", metadata={"metadata": custom}, auth=user["auth"])
    ok(start)
    assert start.headers.get("X-Goog-Upload-Status") == "active"
    url = start.headers.get("X-Goog-Upload-URL", "")
    assert url.startswith(base_url + "/"), f"the session URL must be absolute on this server: {url!r} (§D.10)"
    assert "upload_id=" in urlsplit(url).query
    assert start.headers.get("X-Goog-Upload-Chunk-Granularity", "").isdigit()
    assert v0.metadata(name, auth=OWNER_HEADERS).status_code == 404, "nothing exists before finalize"

    r = ok(v0.command(url, "upload", 0, data[:CHUNK], auth=user["auth"]))
    assert r.headers.get("X-Goog-Upload-Status") == "active"
    q = ok(v0.command(url, "query", auth=user["auth"]))
    assert q.headers.get("X-Goog-Upload-Status") == "active"
    assert q.headers.get("X-Goog-Upload-Size-Received") == str(CHUNK)

    ok(v0.command(url, "upload", CHUNK, data[CHUNK:2 * CHUNK], auth=user["auth"]))
    # The client did not see the reply and resends the same chunk.
    ok(v0.command(url, "upload", CHUNK, data[CHUNK:2 * CHUNK], auth=user["auth"]))
    q = ok(v0.command(url, "query", auth=user["auth"]))
    assert q.headers.get("X-Goog-Upload-Size-Received") == str(2 * CHUNK), "a resent chunk is not appended twice"
    # A chunk that starts inside what was received: only its new tail counts.
    ok(v0.command(url, "upload", CHUNK + CHUNK // 2, data[CHUNK + CHUNK // 2:3 * CHUNK], auth=user["auth"]))
    q = ok(v0.command(url, "query", auth=user["auth"]))
    assert q.headers.get("X-Goog-Upload-Size-Received") == str(3 * CHUNK)

    final = ok(v0.command(url, "upload, finalize", 3 * CHUNK, data[3 * CHUNK:], auth=user["auth"]))
    assert final.headers.get("X-Goog-Upload-Status") == "final"
    meta = final.json()
    assert_v0_metadata(meta, DEFAULT_BUCKET, name, data, "video/mp4")
    assert meta["metadata"] == custom
    assert ok(v0.download(name, token=first_token(meta))).content == data

    q = ok(v0.command(url, "query", auth=user["auth"]))
    assert q.headers.get("X-Goog-Upload-Status") == "final"
    assert q.headers.get("X-Goog-Upload-Size-Received") == str(len(data))


def test_resumable_url_uses_the_host_the_client_used(base_url, user):
    """§D.10: X-Goog-Upload-URL is absolute on the host:port the client used (here ``localhost``)."""
    port = urlsplit(base_url).port
    local = V0(f"http://localhost:{port}")
    try:
        start = ok(local.start_resumable(f"{uniq('host')}/h.bin", 3, auth=user["auth"]))
        url = start.headers.get("X-Goog-Upload-URL", "")
        assert url.startswith(f"http://localhost:{port}/v0/b/"), url
        final = ok(local.command(url, "upload, finalize", 0, b"abc", auth=user["auth"]))
        assert final.json()["size"] == "3"
    finally:
        local.close()


def test_resumable_separate_finalize_and_repeat(v0, user):
    """A bare ``finalize`` after the chunks; finalizing again repeats the result (§B.2 step 4)."""
    name = f"{uniq('finalize')}/f.bin"
    data = os.urandom(CHUNK + 10)
    url = ok(v0.start_resumable(name, len(data), auth=user["auth"])).headers["X-Goog-Upload-URL"]
    ok(v0.command(url, "upload", 0, data[:CHUNK], auth=user["auth"]))
    ok(v0.command(url, "upload", CHUNK, data[CHUNK:], auth=user["auth"]))
    first = ok(v0.command(url, "finalize", auth=user["auth"]))
    assert first.headers.get("X-Goog-Upload-Status") == "final"
    meta = first.json()
    assert meta["size"] == str(len(data)) and meta["md5Hash"] == md5_b64(data)
    again = ok(v0.command(url, "finalize", auth=user["auth"]))
    assert again.headers.get("X-Goog-Upload-Status") == "final"
    assert again.json()["generation"] == meta["generation"], "a repeated finalize does not write a new generation"
    assert ok(v0.download(name, auth=user["auth"])).content == data


def test_resumable_type_from_header_and_open_ended_range(v0, user):
    """§B.2 step 1: ``X-Goog-Upload-Header-Content-Type`` gives the type when the JSON body has none."""
    name = f"{uniq('rtype')}/anim.gif"
    data = os.urandom(CHUNK + 77)
    headers = {**user["auth"], "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
               "X-Goog-Upload-Header-Content-Type": "image/gif",
               "X-Goog-Upload-Header-Content-Length": str(len(data)),
               "Content-Type": "application/json; charset=utf-8"}
    start = ok(v0.s.post(f"{v0.bucket_url()}?name={enc(name)}", data=json.dumps({"name": name}), headers=headers))
    url = start.headers["X-Goog-Upload-URL"]
    ok(v0.command(url, "upload", 0, data[:CHUNK], auth=user["auth"]))
    final = ok(v0.command(url, "upload, finalize", CHUNK, data[CHUNK:], auth=user["auth"])).json()
    assert final["contentType"] == "image/gif"
    part = v0.download(name, auth=user["auth"], headers={"Range": f"bytes={CHUNK}-"})
    assert part.status_code == 206 and part.content == data[CHUNK:]
    assert part.headers.get("Content-Range") == f"bytes {CHUNK}-{len(data) - 1}/{len(data)}"


def test_resumable_cancel_then_commands_404(v0, user):
    """§B.2 step 4: cancel → 200; later commands on that session → 404; nothing is stored."""
    name = f"{uniq('cancel')}/c.bin"
    data = os.urandom(2 * CHUNK)
    url = ok(v0.start_resumable(name, len(data), auth=user["auth"])).headers["X-Goog-Upload-URL"]
    ok(v0.command(url, "upload", 0, data[:CHUNK], auth=user["auth"]))
    ok(v0.command(url, "cancel", auth=user["auth"]))
    assert v0.command(url, "query", auth=user["auth"]).status_code == 404
    assert v0.command(url, "upload", CHUNK, data[CHUNK:], auth=user["auth"]).status_code == 404
    assert v0.command(url, "upload, finalize", CHUNK, data[CHUNK:], auth=user["auth"]).status_code == 404
    assert v0.command(url, "finalize", auth=user["auth"]).status_code == 404
    assert v0.command(url, "cancel", auth=user["auth"]).status_code == 404
    assert v0.metadata(name, auth=OWNER_HEADERS).status_code == 404


def test_resumable_unknown_upload_id_is_404(v0, user):
    url = f"{v0.bucket_url()}?name=x&upload_id={uuid.uuid4().hex}&upload_protocol=resumable"
    assert v0.command(url, "query", auth=user["auth"]).status_code == 404
    assert v0.command(url, "upload", 0, b"abc", auth=user["auth"]).status_code == 404
    assert v0.command(url, "upload, finalize", 0, b"abc", auth=user["auth"]).status_code == 404


def test_large_resumable_upload_20_mib_is_byte_identical(v0, user):
    """20 MiB of random bytes with the JS chunk schedule (256 KiB doubling); download matches, MD5 too."""
    name = f"{uniq('large')}/big.bin"
    data = os.urandom(20 * MIB)
    final = ok(resumable_upload(v0, name, data, "application/octet-stream", user["auth"]))
    assert final.headers.get("X-Goog-Upload-Status") == "final"
    meta = final.json()
    assert meta["size"] == str(20 * MIB)
    assert meta["md5Hash"] == md5_b64(data)
    assert meta["crc32c"] == crc32c_b64(data)
    with v0.download(name, token=first_token(meta), stream=True, timeout=BIG_TIMEOUT) as resp:
        ok(resp)
        total, digest = stream_md5(resp)
    assert total == len(data) and digest == md5_b64(data)
    part = v0.download(name, auth=user["auth"], headers={"Range": f"bytes={10 * MIB}-{10 * MIB + 99}"}, timeout=BIG_TIMEOUT)
    assert part.status_code == 206 and part.content == data[10 * MIB:10 * MIB + 100]


# ------------------------------------------------------------------------------------------
# 8. CORS (§0)


def test_cors_preflight_and_exposed_upload_headers(v0, user):
    origin = "http://localhost:5173"
    pre = v0.s.options(f"{v0.bucket_url()}?name=x", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,x-goog-upload-protocol,x-goog-upload-command",
        "Access-Control-Request-Private-Network": "true"})
    assert pre.status_code in (200, 204), pre.status_code
    assert pre.headers.get("Access-Control-Allow-Origin") in (origin, "*")
    assert pre.headers.get("Access-Control-Allow-Private-Network") == "true"
    allowed = pre.headers.get("Access-Control-Allow-Headers", "").lower()
    assert allowed == "*" or "x-goog-upload-protocol" in allowed, allowed

    start = ok(v0.start_resumable(f"{uniq('cors')}/x.bin", 10, auth={**user["auth"], "Origin": origin}))
    exposed = {h.strip().lower() for h in start.headers.get("Access-Control-Expose-Headers", "").split(",")}
    for h in ("x-goog-upload-url", "x-goog-upload-status", "x-goog-upload-size-received", "x-goog-upload-chunk-granularity"):
        assert h in exposed, (h, exposed)


# ------------------------------------------------------------------------------------------
# 9. Storage rules (§B.4; scenario 34) — on servers of their own


SCENARIO_34_RULES = storage_rules("""
    match /{allPaths=**} {
      allow read: if request.auth != null;
      allow write: if request.auth != null && request.resource.size < 1024 * 1024
                   && request.resource.contentType.matches('image/.*');
    }""")


def test_default_rules_on_a_fresh_server(fresh_server):
    """Brief / §B.4: default ``allow read, write: if request.auth != null``."""
    url, _, _ = fresh_server
    text = get_rules(url)
    assert "request.auth != null" in text, text
    client = V0(url)
    try:
        token, _ = sign_up(url)
        assert_denied(client.upload("d/x.txt", b"x", "text/plain"), "WRITE")
        ok(client.upload("d/x.txt", b"x", "text/plain", auth=firebase_auth(token)))
        assert_denied(client.metadata("d/x.txt"), "READ")
        assert ok(client.download("d/x.txt", auth=firebase_auth(token))).content == b"x"
    finally:
        client.close()


def test_set_rules_rejects_invalid_rules_and_keeps_the_old(rv0):
    base = rv0.base
    good = storage_rules("    match /{allPaths=**} {\n      allow read, write: if request.auth.uid == 'nobody';\n    }")
    set_rules(base, good)
    assert get_rules(base) == good
    bad = storage_rules("    match /{allPaths=**} {\n      allow read: if request.auth != ;\n    }")
    # The broken condition sits on line 5 of `bad` (3 header lines from storage_rules, then the body).
    resp = requests.put(f"{base}/internal/setRules",
                        json={"rules": {"files": [{"name": "storage.rules", "content": bad}]}}, timeout=TIMEOUT)
    assert resp.status_code == 400, (resp.status_code, resp.text)
    message = json.dumps(resp.json())
    # The ';' is at line 5, column 38; accept "5:38" or "line 5, column 38".
    assert re.search(r"(?<!\d)5:38(?!\d)|line 5, column 38(?!\d)", message), f"the error names line:column 5:38: {message}"
    assert get_rules(base) == good, "invalid rules leave the old rules in force"
    token, _ = sign_up(base)
    assert_denied(rv0.upload("k/x.txt", b"x", "text/plain", auth=firebase_auth(token)), "WRITE")
    ok(rv0.upload("k/x.txt", b"x", "text/plain", auth=unsigned_token_auth("nobody")))


def unsigned_token_auth(uid: str, **claims: Any) -> dict[str, str]:
    return firebase_auth(unsigned_token(uid, **claims))


def test_scenario_34_image_rules_media_upload(rv0):
    """Scenario 34: image/png with ID token → 200 + downloadTokens; no auth → 403; text/plain or ≥1 MiB → 403."""
    set_rules(rv0.base, SCENARIO_34_RULES)
    token, _ = sign_up(rv0.base)
    auth = firebase_auth(token)
    folder = uniq("img")
    png = b"\x89PNG" + os.urandom(1000)
    meta = ok(rv0.upload(f"{folder}/p.png", png, "image/png", auth=auth)).json()
    assert UUID_RE.fullmatch(first_token(meta))
    assert_denied(rv0.upload(f"{folder}/anon.png", png, "image/png"), "WRITE")
    assert_denied(rv0.upload(f"{folder}/t.txt", b"text", "text/plain", auth=auth), "WRITE")
    ok(rv0.upload(f"{folder}/edge.png", b"\0" * (MIB - 1), "image/png", auth=auth))
    big = rv0.upload(f"{folder}/big.png", b"\0" * MIB, "image/png", auth=auth)
    assert_denied(big, "WRITE")
    # The same without Content-Length (chunked transfer): the size is only known after the bytes.
    chunks = (b"\0" * CHUNK for _ in range(5))
    assert_denied(rv0.upload(f"{folder}/chunked.png", chunks, "image/png", auth=auth), "WRITE")
    small = (b"\1" * 1000 for _ in range(3))
    assert ok(rv0.upload(f"{folder}/chunked-ok.png", small, "image/png", auth=auth)).json()["size"] == "3000"
    for n in ("anon.png", "t.txt", "big.png", "chunked.png"):
        assert rv0.metadata(f"{folder}/{n}", auth=OWNER_HEADERS).status_code == 404, n
    assert ok(rv0.download(f"{folder}/p.png", auth=auth)).content == png


def test_scenario_34_image_rules_multipart_and_patch(rv0):
    """The same rules via multipart (type from the metadata part) and PATCH (request.resource after the change)."""
    set_rules(rv0.base, SCENARIO_34_RULES)
    token, _ = sign_up(rv0.base)
    auth = firebase_auth(token)
    folder = uniq("mpimg")
    ok(rv0.multipart(f"{folder}/a.jpg", b"jpeg", {"metadata": {"x": "1"}}, content_type="image/jpeg", auth=auth))
    assert_denied(rv0.multipart(f"{folder}/a.txt", b"text", content_type="text/plain", auth=auth), "WRITE")
    assert_denied(rv0.multipart(f"{folder}/big.jpg", b"\1" * (MIB + 10), content_type="image/jpeg", auth=auth), "WRITE")
    assert_denied(rv0.patch(f"{folder}/a.jpg", {"contentType": "text/plain"}, auth=auth), "WRITE")
    assert ok(rv0.metadata(f"{folder}/a.jpg", auth=auth)).json()["contentType"] == "image/jpeg"
    changed = ok(rv0.patch(f"{folder}/a.jpg", {"contentType": "image/webp"}, auth=auth)).json()
    assert changed["contentType"] == "image/webp" and changed["metageneration"] == "2"
    # write covers delete, and request.resource is null on delete → the rule errors → denied.
    assert_denied(rv0.delete(f"{folder}/a.jpg", auth=auth), "WRITE")


def test_scenario_34_image_rules_resumable(rv0):
    """§B.2 resumable: rules are evaluated at finalize; a denial is 403 JSON with ``X-Goog-Upload-Status: final``."""
    set_rules(rv0.base, SCENARIO_34_RULES)
    token, _ = sign_up(rv0.base)
    auth = firebase_auth(token)
    folder = uniq("rsimg")
    small = os.urandom(CHUNK + 5)
    final = ok(resumable_upload(rv0, f"{folder}/ok.png", small, "image/png", auth))
    assert final.headers.get("X-Goog-Upload-Status") == "final" and final.json()["size"] == str(len(small))

    # No length declared, then 1 MiB arrives: the chunk that passes the size rule's bound is refused at
    # once (not after the rest is on disk), the session ends, and a finalize repeats the denial.
    name = f"{folder}/grows.png"
    data = os.urandom(MIB + CHUNK)
    url = ok(rv0.start_resumable(name, None, "image/png", auth=auth)).headers["X-Goog-Upload-URL"]
    for off in range(0, MIB - CHUNK, CHUNK):
        ok(rv0.command(url, "upload", off, data[off:off + CHUNK], auth=auth))
    refused = rv0.command(url, "upload", MIB - CHUNK, data[MIB - CHUNK:MIB], auth=auth)
    assert_denied(refused, "WRITE")
    assert refused.headers.get("X-Goog-Upload-Status") == "final", dict(refused.headers)
    refused = rv0.command(url, "finalize", auth=auth)
    assert_denied(refused, "WRITE")
    assert refused.headers.get("X-Goog-Upload-Status") == "final", dict(refused.headers)
    assert rv0.metadata(name, auth=OWNER_HEADERS).status_code == 404

    # Declared text/plain: refused (at start or at finalize), nothing stored.
    name = f"{folder}/t.txt"
    start = rv0.start_resumable(name, 4, "text/plain", auth=auth)
    if start.status_code == 200:
        refused = rv0.command(start.headers["X-Goog-Upload-URL"], "upload, finalize", 0, b"text", auth=auth)
        assert_denied(refused, "WRITE")
        assert refused.headers.get("X-Goog-Upload-Status") == "final"
    else:
        assert_denied(start, "WRITE")
    assert rv0.metadata(name, auth=OWNER_HEADERS).status_code == 404


def test_resumable_denied_finalize_repeats_its_answer(rv0):
    """§B.2 step 4: "finalize of a finalized upload repeats its code" — after a finalize the rules refused,
    finalizing again is the same 403 (the JS SDK retries 5xx, so a 500 here means minutes of retries),
    and other commands on that session do not fail with a server error."""
    set_rules(rv0.base, SCENARIO_34_RULES)
    token, _ = sign_up(rv0.base)
    auth = firebase_auth(token)
    name = f"{uniq('again')}/t.png"
    url = ok(rv0.start_resumable(name, None, "image/png", auth=auth)).headers["X-Goog-Upload-URL"]
    ok(rv0.command(url, "upload", 0, b"\0" * CHUNK, auth=auth))
    # The type changes nothing; 1 MiB passes the size rule's bound, so that chunk is refused at once.
    assert_denied(rv0.command(url, "upload", CHUNK, b"\0" * (3 * CHUNK), auth=auth), "WRITE")
    assert_denied(rv0.command(url, "upload, finalize", MIB, b"\0", auth=auth), "WRITE")
    again = rv0.command(url, "finalize", auth=auth)
    assert_denied(again, "WRITE")
    query = rv0.command(url, "query", auth=auth)
    assert query.status_code < 500, (query.status_code, query.text)
    more = rv0.command(url, "upload", 0, b"x", auth=auth)
    assert more.status_code < 500, (more.status_code, more.text)
    assert rv0.metadata(name, auth=OWNER_HEADERS).status_code == 404


OWNER_RULES = storage_rules("""
    match /users/{uid}/{file} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
    match /staff/{file} {
      allow read: if request.auth != null;
      allow write: if request.auth.token.email.matches('.*@example[.]com');
    }""")


def test_owner_only_paths(rv0):
    """§B.4: ``match /users/{uid}/{file}`` with ``request.auth.uid == uid``; ``{file}`` is one segment."""
    set_rules(rv0.base, OWNER_RULES)
    alice_token, alice = sign_up(rv0.base)
    bob_token, bob = sign_up(rv0.base)
    a, b = firebase_auth(alice_token), bearer_auth(bob_token)
    meta = ok(rv0.upload(f"users/{alice}/avatar.png", b"alice", "image/png", auth=a)).json()
    assert_denied(rv0.upload(f"users/{alice}/evil.png", b"bob", "image/png", auth=b), "WRITE")
    assert_denied(rv0.upload(f"users/{alice}/avatar.png", b"bob", "image/png", auth=b), "WRITE")
    assert_denied(rv0.metadata(f"users/{alice}/avatar.png", auth=b), "READ")
    assert_denied(rv0.download(f"users/{alice}/avatar.png", auth=b), "READ")
    assert_denied(rv0.download(f"users/{alice}/avatar.png"), "READ")
    assert_denied(rv0.patch(f"users/{alice}/avatar.png", {"metadata": {"x": "y"}}, auth=b), "WRITE")
    assert_denied(rv0.delete(f"users/{alice}/avatar.png", auth=b), "WRITE")
    # The download token still lets anyone read (the URL is the capability).
    assert ok(rv0.download(f"users/{alice}/avatar.png", token=first_token(meta))).content == b"alice"
    ok(rv0.upload(f"users/{bob}/mine.png", b"bob", "image/png", auth=b))
    # {file} matches a single segment: a deeper path matches no rule.
    assert_denied(rv0.upload(f"users/{alice}/sub/deep.png", b"x", "image/png", auth=a), "WRITE")
    assert_denied(rv0.upload(f"other/{alice}.png", b"x", "image/png", auth=a), "WRITE")
    assert ok(rv0.download(f"users/{alice}/avatar.png", auth=a)).content == b"alice"
    assert rv0.delete(f"users/{alice}/avatar.png", auth=a).status_code == 204


def test_owner_rules_accept_unsigned_mock_user_token_in_dev(rv0):
    """§B.2: ``connectStorageEmulator(..., {mockUserToken})`` sends an unsigned JWT; --dev accepts it."""
    set_rules(rv0.base, OWNER_RULES)
    mock = unsigned_token_auth("mock-uid-1")
    ok(rv0.upload("users/mock-uid-1/m.txt", b"mock", "text/plain", auth=mock))
    assert_denied(rv0.upload("users/someone-else/m.txt", b"mock", "text/plain", auth=mock), "WRITE")
    assert ok(rv0.download("users/mock-uid-1/m.txt", auth=mock)).content == b"mock"


def test_rules_see_token_claims(rv0):
    """``request.auth.token`` holds the ID token's claims (email)."""
    set_rules(rv0.base, OWNER_RULES)
    com_token, _ = sign_up(rv0.base, f"{uniq('staff')}@example.com")
    org_token, _ = sign_up(rv0.base, f"{uniq('guest')}@example.org")
    ok(rv0.upload(f"staff/{uniq('f')}.txt", b"s", "text/plain", auth=firebase_auth(com_token)))
    assert_denied(rv0.upload(f"staff/{uniq('f')}.txt", b"g", "text/plain", auth=firebase_auth(org_token)), "WRITE")
    assert_denied(rv0.upload(f"staff/{uniq('f')}.txt", b"g", "text/plain"), "WRITE")


RESOURCE_RULES = storage_rules("""
    match /docs/{file} {
      allow read: if request.auth != null;
      allow create: if request.auth != null && request.resource.metadata.owner == request.auth.uid;
      allow update: if request.auth != null && resource.metadata.owner == request.auth.uid
                    && request.resource.metadata.owner == resource.metadata.owner;
      allow delete: if request.auth != null && resource.metadata.owner == request.auth.uid;
    }""")


def test_resource_metadata_on_update_and_delete(rv0):
    """§B.4: ``resource`` = the existing object, ``request.resource`` = the object after the write.
    An upload over an existing object is an ``update`` (production semantics, §B.4 / §F)."""
    set_rules(rv0.base, RESOURCE_RULES)
    alice_token, alice = sign_up(rv0.base)
    bob_token, bob = sign_up(rv0.base)
    a, b = firebase_auth(alice_token), firebase_auth(bob_token)
    name = f"docs/{uniq('d')}.txt"
    ok(rv0.multipart(name, b"v1", {"metadata": {"owner": alice, "tag": "one"}}, content_type="text/plain", auth=a))
    assert_denied(rv0.multipart(f"docs/{uniq('d')}.txt", b"x", {"metadata": {"owner": alice}}, auth=b), "WRITE")

    assert_denied(rv0.patch(name, {"metadata": {"tag": "bob"}}, auth=b), "WRITE")
    changed = ok(rv0.patch(name, {"metadata": {"tag": "two"}}, auth=a)).json()
    assert changed["metadata"] == {"owner": alice, "tag": "two"}
    assert_denied(rv0.patch(name, {"metadata": {"owner": bob}}, auth=a), "WRITE")
    assert_denied(rv0.patch(name, {"metadata": {"owner": None}}, auth=a), "WRITE")

    # Bob overwrites with himself as owner: create would allow it; update (resource.metadata.owner) must not.
    assert_denied(rv0.multipart(name, b"stolen", {"metadata": {"owner": bob}}, content_type="text/plain", auth=b), "WRITE")
    ok(rv0.multipart(name, b"v2", {"metadata": {"owner": alice}}, content_type="text/plain", auth=a))
    assert ok(rv0.download(name, auth=OWNER_HEADERS)).content == b"v2"

    assert_denied(rv0.delete(name, auth=b), "WRITE")
    assert rv0.delete(name, auth=a).status_code == 204
    assert rv0.metadata(name, auth=OWNER_HEADERS).status_code == 404


def test_list_rules_and_list_denial(rv0):
    """§B.4: ``list`` is its own method (``read`` = get + list); denial → ``No LIST permission.``."""
    set_rules(rv0.base, storage_rules("""
    match /{allPaths=**} {
      allow list: if request.auth != null;
      allow get: if false;
      allow write: if request.auth != null;
    }"""))
    token, _ = sign_up(rv0.base)
    auth = firebase_auth(token)
    folder = uniq("lst")
    ok(rv0.upload(f"{folder}/a.txt", b"a", "text/plain", auth=auth))
    body = ok(rv0.list(auth=auth, prefix=f"{folder}/", delimiter="/")).json()
    assert [i["name"] for i in body["items"]] == [f"{folder}/a.txt"]
    assert_denied(rv0.list(prefix=f"{folder}/", delimiter="/"), "LIST")
    assert_denied(rv0.metadata(f"{folder}/a.txt", auth=auth), "READ")
    assert_denied(rv0.download(f"{folder}/a.txt", auth=auth), "READ")


def test_admin_and_tokens_bypass_rules_and_gcs_ignores_them(rv0):
    """§B.2/§B.4: ``Bearer owner`` skips v0 rules; a valid token bypasses reads; GCS routes ignore rules."""
    set_rules(rv0.base, storage_rules("    match /{allPaths=**} {\n      allow read, write: if false;\n    }"))
    token, _ = sign_up(rv0.base)
    user_auth = firebase_auth(token)
    folder = uniq("adm")
    name = f"{folder}/a.txt"
    meta = ok(rv0.upload(name, b"admin", "text/plain", auth=OWNER_HEADERS)).json()
    ok(rv0.metadata(name, auth=OWNER_HEADERS))
    assert [i["name"] for i in ok(rv0.list(auth=OWNER_HEADERS, prefix=f"{folder}/")).json()["items"]] == [name]
    ok(rv0.patch(name, {"metadata": {"a": "b"}}, auth=OWNER_HEADERS))
    assert ok(rv0.download(name, token=first_token(meta))).content == b"admin"
    assert_denied(rv0.download(name, auth=user_auth), "READ")
    assert_denied(rv0.upload(f"{folder}/u.txt", b"u", "text/plain", auth=user_auth), "WRITE")
    assert_denied(rv0.list(auth=user_auth, prefix=f"{folder}/"), "LIST")
    # The Cloud Storage JSON API is not subject to storage rules (open in --dev, like the emulator).
    gcs = requests.get(f"{rv0.base}/download/storage/v1/b/{enc(DEFAULT_BUCKET)}/o/{enc(name)}?alt=media", timeout=TIMEOUT)
    assert gcs.status_code == 200 and gcs.content == b"admin", (gcs.status_code, gcs.text)
    assert rv0.delete(name, auth=OWNER_HEADERS).status_code == 204


def test_rules_and_objects_survive_a_restart(tmp_path):
    """Rules set over /internal/setRules are kept in the data folder; so are objects."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    rules = storage_rules("    match /{allPaths=**} {\n      allow read: if true;\n      allow write: if false;\n    }")
    with hearth_process(["--dev"], data_dir, tmp_path / "one.log") as (url, _, _):
        set_rules(url, rules)
        first = V0(url)
        meta = ok(first.upload("keep/me.txt", b"persist", "text/plain", auth=OWNER_HEADERS)).json()
        first.close()
    with hearth_process(["--dev"], data_dir, tmp_path / "two.log") as (url, _, _):
        assert get_rules(url) == rules
        client = V0(url)
        got = ok(client.metadata("keep/me.txt")).json()
        assert got["generation"] == meta["generation"] and got["downloadTokens"] == meta["downloadTokens"]
        assert ok(client.download("keep/me.txt")).content == b"persist"
        assert_denied(client.upload("keep/other.txt", b"x", "text/plain", auth=unsigned_token_auth("u")), "WRITE")
        client.close()
