"""google-cloud-storage and firebase_admin.storage, unmodified, against Hearth's Cloud Storage JSON API.

``STORAGE_EMULATOR_HOST`` points the client at the session's ``--dev`` server (which, like the
emulator, takes the JSON API without credentials). A separate production-mode server checks that
the API then needs the admin credential.
"""

from __future__ import annotations

import base64
import hashlib
import os
import uuid
import xml.etree.ElementTree as ET

import firebase_admin
import google_crc32c
import pytest
import requests
from firebase_admin import credentials as fb_credentials
from firebase_admin import storage as fb_storage
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from google.oauth2.credentials import Credentials as TokenCredentials

from hearth_process import hearth_process


@pytest.fixture
def client(base_url, monkeypatch):
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", base_url)
    return storage.Client(project="demo", credentials=AnonymousCredentials())


@pytest.fixture
def bucket(client):
    """A fresh bucket per test, so listings see only this test's objects."""
    return client.create_bucket(f"b-{uuid.uuid4().hex[:12]}")


def _crc32c_b64(data: bytes) -> str:
    return base64.b64encode(google_crc32c.Checksum(data).digest()).decode()


def test_upload_get_and_download_small_text(bucket):
    blob = bucket.blob("dir/hello.txt")
    blob.upload_from_string("Hello World")
    got = bucket.get_blob("dir/hello.txt")
    assert got is not None
    assert got.size == 11
    assert got.content_type == "text/plain"
    assert got.md5_hash == base64.b64encode(hashlib.md5(b"Hello World").digest()).decode()
    assert got.crc32c == _crc32c_b64(b"Hello World") == "aR2qLw=="
    assert got.generation > 0 and got.metageneration == 1
    assert got.download_as_bytes() == b"Hello World"
    assert bucket.blob("dir/hello.txt").download_as_bytes() == b"Hello World"  # without the mediaLink
    assert got.download_as_bytes(start=6, end=10) == b"World"
    assert bucket.get_blob("dir/missing.txt") is None
    assert bucket.blob("dir/hello.txt").exists() and not bucket.blob("nope").exists()


def test_list_with_delimiter_and_pages(bucket):
    for name in ["dir/a", "dir/b", "dir/sub/c", "dir/sub/d", "other/e", "top"]:
        bucket.blob(name).upload_from_string(name)
    it = bucket.list_blobs(prefix="dir/", delimiter="/")
    names = [b.name for b in it]
    assert names == ["dir/a", "dir/b"]
    assert it.prefixes == {"dir/sub/"}
    paged = [b.name for b in bucket.client.list_blobs(bucket, max_results=100, page_size=1)]
    assert paged == ["dir/a", "dir/b", "dir/sub/c", "dir/sub/d", "other/e", "top"]
    window = [b.name for b in bucket.list_blobs(start_offset="dir/b", end_offset="other/")]
    assert window == ["dir/b", "dir/sub/c", "dir/sub/d"]
    globbed = [b.name for b in bucket.list_blobs(match_glob="dir/**/[cd]")]
    assert globbed == ["dir/sub/c", "dir/sub/d"]


def test_patch_update_and_metadata_deletes(bucket):
    blob = bucket.blob("meta.bin")
    blob.upload_from_string(b"\x00\x01", content_type="application/x-thing")
    blob.metadata = {"k": "v", "other": "x"}
    blob.patch()
    fresh = bucket.get_blob("meta.bin")
    assert fresh.metadata == {"k": "v", "other": "x"}
    assert fresh.metageneration == 2
    assert fresh.content_type == "application/x-thing"
    fresh.metadata = {"k": None}
    fresh.content_type = "image/png"
    fresh.patch()
    again = bucket.get_blob("meta.bin")
    assert again.metadata == {"other": "x"}
    assert again.content_type == "image/png"
    assert again.metageneration == 3
    assert again.generation == fresh.generation, "metadata changes keep the generation"
    again.cache_control = "no-cache"
    again.metadata = {"only": "this"}
    again.update()
    final = bucket.get_blob("meta.bin")
    assert final.cache_control == "no-cache" and final.metadata == {"only": "this"}


def test_delete_then_not_found(bucket):
    bucket.blob("gone.txt").upload_from_string("x")
    bucket.delete_blob("gone.txt")
    assert bucket.get_blob("gone.txt") is None
    with pytest.raises(exceptions.NotFound):
        bucket.delete_blob("gone.txt")


def test_resumable_upload_in_chunks(bucket):
    data = os.urandom(9 * 1024 * 1024 + 123)
    blob = bucket.blob("big/random.bin", chunk_size=1024 * 1024)  # forces 308s between chunks
    blob.upload_from_string(data, content_type="application/octet-stream")
    got = bucket.get_blob("big/random.bin")
    assert got.size == len(data)
    assert got.crc32c == _crc32c_b64(data)
    assert got.download_as_bytes() == data

    whole = bucket.blob("big/one-put.bin")  # default 100 MiB chunk: one PUT ends the session
    whole.upload_from_string(data[: 9 * 1024 * 1024])
    assert bucket.get_blob("big/one-put.bin").size == 9 * 1024 * 1024


def test_checksum_mismatch_is_refused(bucket, base_url):
    body = (b"--BOUNDARY\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n"
            b'{"name":"bad.txt","crc32c":"AAAAAA=="}\r\n'
            b"--BOUNDARY\r\ncontent-type: text/plain\r\n\r\nhello\r\n--BOUNDARY--")
    resp = requests.post(f"{base_url}/upload/storage/v1/b/{bucket.name}/o", params={"uploadType": "multipart"},
                         headers={"Content-Type": 'multipart/related; boundary="BOUNDARY"'}, data=body, timeout=15)
    assert resp.status_code == 400, resp.text
    assert "CRC32C" in resp.json()["error"]["message"]
    assert bucket.get_blob("bad.txt") is None


def test_generation_preconditions(bucket):
    blob = bucket.blob("pre.txt")
    blob.upload_from_string("one", if_generation_match=0)
    with pytest.raises(exceptions.PreconditionFailed):
        bucket.blob("pre.txt").upload_from_string("two", if_generation_match=0)
    current = bucket.get_blob("pre.txt")
    bucket.blob("pre.txt").upload_from_string("three", if_generation_match=current.generation)
    assert bucket.blob("pre.txt").download_as_bytes() == b"three"


def test_odd_names_round_trip(bucket):
    names = ["a b/ü%.txt", "q?x#y.txt", "plus+and&amp.txt", "emoji/😀.txt", "..", "dots/../x"]
    for name in names[:4] + names[5:]:
        bucket.blob(name).upload_from_string(name)
    for name in names[:4] + names[5:]:
        assert bucket.blob(name).download_as_bytes() == name.encode()
    listed = {b.name for b in bucket.list_blobs()}
    assert listed == set(names[:4] + names[5:])
    with pytest.raises(exceptions.BadRequest):
        bucket.blob("..").upload_from_string("nope")


def test_copy_rename_and_rewrite(bucket, client):
    src = bucket.blob("orig.txt")
    src.upload_from_string("copy me")
    src.metadata = {"keep": "1"}
    src.patch()
    other = client.create_bucket(f"b-{uuid.uuid4().hex[:12]}")
    copied = bucket.copy_blob(src, other, "copied.txt")
    assert copied.download_as_bytes() == b"copy me"
    assert other.get_blob("copied.txt").metadata == {"keep": "1"}
    renamed = bucket.rename_blob(bucket.blob("orig.txt"), "renamed.txt")
    assert renamed.name == "renamed.txt" and bucket.get_blob("orig.txt") is None
    target = other.blob("rewritten.txt")
    token, done, total = target.rewrite(bucket.blob("renamed.txt"))
    assert token is None and done == total == 7
    assert target.download_as_bytes() == b"copy me"


def test_buckets(client):
    assert client.bucket("non.existing").exists() is False
    name = f"b-{uuid.uuid4().hex[:12]}"
    created = client.create_bucket(name)
    assert created.exists()
    with pytest.raises(exceptions.Conflict):
        client.create_bucket(name)
    assert name in {b.name for b in client.list_buckets()}
    created.blob("x").upload_from_string("x")
    with pytest.raises(exceptions.Conflict):
        created.delete()
    created.delete_blob("x")
    created.delete()
    assert not client.bucket(name).exists()


class _Anonymous(fb_credentials.Base):
    def get_credential(self):
        return AnonymousCredentials()


def test_firebase_admin_storage_and_download_tokens(base_url, monkeypatch):
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", base_url)
    app = firebase_admin.initialize_app(
        _Anonymous(), {"projectId": "demo", "storageBucket": "demo.appspot.com"}, name=f"storage-{uuid.uuid4().hex}")
    try:
        bucket = fb_storage.bucket(app=app)
        token = str(uuid.uuid4())
        blob = bucket.blob(f"admin/{uuid.uuid4().hex}.txt")
        blob.metadata = {"firebaseStorageDownloadTokens": token}
        blob.upload_from_string("public bytes")
        quoted = requests.utils.quote(blob.name, safe="")
        url = f"{base_url}/v0/b/demo.appspot.com/o/{quoted}"
        resp = requests.get(url, params={"alt": "media", "token": token}, timeout=15)
        assert resp.status_code == 200 and resp.content == b"public bytes"
        assert requests.get(url, params={"alt": "media"}, timeout=15).status_code == 403
        meta = requests.get(url, timeout=15, headers={"Authorization": "Bearer owner"}).json()
        assert meta["downloadTokens"] == token and "firebaseStorageDownloadTokens" not in meta["metadata"]
    finally:
        firebase_admin.delete_app(app)


def test_production_mode_requires_the_admin_credential(tmp_path, monkeypatch):
    with hearth_process([], tmp_path / "data", tmp_path / "server.log") as (base_url, _, _):
        admin_token = (tmp_path / "data" / "admin-token").read_text().strip()
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", base_url)
        refused = requests.get(f"{base_url}/storage/v1/b/demo.appspot.com/o", timeout=15)
        assert refused.status_code == 401 and refused.json()["error"]["message"] == "Missing admin credentials."
        wrong = requests.get(f"{base_url}/storage/v1/b/demo.appspot.com/o", headers={"Authorization": "Bearer owner"}, timeout=15)
        assert wrong.status_code == 401, "the --dev token means nothing outside --dev"
        admin = storage.Client(project="demo", credentials=TokenCredentials(token=admin_token))
        blob = admin.bucket("demo.appspot.com").blob("x.txt")
        blob.upload_from_string("x")
        assert blob.download_as_bytes() == b"x"


def test_public_url_serves_the_bytes(bucket, client, base_url):
    """blob.public_url (`{endpoint}/{bucket}/{name}`) serves the object; an unknown object is 404 in
    the XML API's shape. A `.json` path under a bucket name without a dot is a Realtime Database path,
    and stays one (Firebase's buckets are always dotted: `<project>.appspot.com`)."""
    blob = bucket.blob("dir/a b+c.txt")
    blob.upload_from_string('{"x":1}', content_type="application/json")
    resp = requests.get(blob.public_url, timeout=15)
    assert resp.status_code == 200 and resp.content == b'{"x":1}'
    assert resp.headers["Content-Type"].startswith("application/json")
    ranged = requests.get(blob.public_url, headers={"Range": "bytes=1-3"}, timeout=15)
    assert ranged.status_code == 206 and ranged.content == b'"x"'
    # A v4 signed URL's query parameters do not change what is served.
    signed = requests.get(blob.public_url + "?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=abcd", timeout=15)
    assert signed.status_code == 200 and signed.content == b'{"x":1}'
    # These URLs are the XML API: an error is an <Error> document with the XML API's code.
    missing = requests.get(f"{base_url}/{bucket.name}/nope.txt", timeout=15)
    assert missing.status_code == 404 and missing.headers["Content-Type"].startswith("application/xml")
    assert ET.fromstring(missing.content).findtext("Code") == "NoSuchKey"
    beyond = requests.get(blob.public_url, headers={"Range": "bytes=100-"}, timeout=15)
    assert beyond.status_code == 416 and ET.fromstring(beyond.content).findtext("Code") == "InvalidRange"
    # In a dotted bucket a `.json` object is served too.
    dotted = client.bucket("demo.appspot.com").blob(f"pub/{uuid.uuid4().hex}.json")
    dotted.upload_from_string("[1]")
    assert requests.get(dotted.public_url, timeout=15).content == b"[1]"
    # Paths of buckets that do not exist, and `.json` paths under dotless names, stay with the database.
    for path in ["nobucket/x.json", f"{bucket.name}/dir/x.json"]:
        rtdb = requests.get(f"{base_url}/{path}", headers={"Authorization": "Bearer owner"}, timeout=15)
        assert rtdb.status_code == 200 and rtdb.json() is None, path


def test_public_url_needs_the_admin_credential_outside_dev(tmp_path):
    with hearth_process([], tmp_path / "data", tmp_path / "server.log") as (base_url, _, _):
        admin_token = (tmp_path / "data" / "admin-token").read_text().strip()
        headers = {"Authorization": f"Bearer {admin_token}"}
        upload = requests.post(f"{base_url}/upload/storage/v1/b/demo.appspot.com/o",
                               params={"uploadType": "media", "name": "p/x.txt"}, data=b"secret",
                               headers=headers, timeout=15)
        assert upload.status_code == 200, upload.text
        url = f"{base_url}/demo.appspot.com/p/x.txt"
        refused = requests.get(url, timeout=15)
        assert refused.status_code == 401 and b"secret" not in refused.content
        assert ET.fromstring(refused.content).findtext("Code") == "AuthenticationRequired"
        assert requests.get(url + "?X-Goog-Signature=abcd", timeout=15).status_code == 401
        assert requests.get(url, headers=headers, timeout=15).content == b"secret"


def test_compose_concatenates_sources(bucket):
    parts = [bucket.blob(f"part-{i}") for i in range(3)]
    for i, part in enumerate(parts):
        part.upload_from_string(f"<{i}>" * (i + 1), content_type="text/plain")
    whole = bucket.blob("whole.txt")
    whole.compose(parts)
    assert whole.download_as_bytes() == b"<0><1><1><2><2><2>"
    got = bucket.get_blob("whole.txt")
    assert got.content_type == "text/plain" and got.crc32c == _crc32c_b64(b"<0><1><1><2><2><2>")
    with pytest.raises(exceptions.NotFound):
        bucket.blob("broken.txt").compose([parts[0], bucket.blob("missing")])


def test_resumable_preconditions_apply_at_finalize(bucket):
    bucket.blob("guarded.bin").upload_from_string(b"first")
    data = os.urandom(2 * 1024 * 1024)
    blob = bucket.blob("guarded.bin", chunk_size=1024 * 1024)
    with pytest.raises(exceptions.PreconditionFailed):
        blob.upload_from_string(data, if_generation_match=0)
    assert bucket.blob("guarded.bin").download_as_bytes() == b"first"
