"""Barcode Comments (Examples/BarcodeComments): its database and storage rules, enforced by a real
server against signed-in users — not only by the app. (Issue 8's first slice; the app core comes next.)
"""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest
import requests

from hearth_helpers import OWNER_HEADERS
from hearth_process import assert_rules_cases_pass, hearth_binary, hearth_process

EXAMPLE = Path(__file__).resolve().parent.parent / "Examples" / "BarcodeComments"
CODE = "4006381333931"  # a valid EAN-13
TS = {".sv": "timestamp"}
JPEG = b"\xff\xd8\xff\xe0" + b"0" * 1000


def test_the_rules_cases_pass_with_hearth_rules_test():
    assert_rules_cases_pass(EXAMPLE)
    out = subprocess.run([hearth_binary(), "storage", "rules", "check", str(EXAMPLE / "storage.rules")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("barcode")
    with hearth_process(["--dev"], tmp / "data", tmp / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        r = requests.put(f"{url}/.settings/rules.json", data=(EXAMPLE / "rules.json").read_bytes(), headers=OWNER_HEADERS, timeout=10)
        assert r.status_code == 200, r.text
        body = {"rules": {"files": [{"name": "storage.rules", "content": (EXAMPLE / "storage.rules").read_text()}]}}
        r = requests.put(f"{url}/internal/setRules", json=body, timeout=10)
        assert r.status_code == 200, r.text
        yield url


def user(url: str) -> tuple[str, str]:
    r = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={"returnSecureToken": True}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["localId"], r.json()["idToken"]


def db(url: str, method: str, path: str, token: str, body=None) -> requests.Response:
    return requests.request(method, f"{url}/{path}.json?auth={token}", data=None if body is None else json.dumps(body), timeout=10)


def comment_update(code: str, cid: str, uid: str, count: int, text: str = "Great") -> dict:
    return {
        f"comments/{code}/{cid}": {"code": code, "userId": uid, "displayName": "Bob", "commentText": text, "commentDate": TS},
        f"topics/{code}/commentCount": count,
        f"topics/{code}/lastCommentId": cid,
        f"feeds/{uid}/{cid}": {"feedType": "COMMENT_CREATED", "timestamp": TS, "topicCode": code, "commentText": text},
    }


def test_the_server_refuses_what_the_app_must_not_do(server):
    url = server
    alice, alice_token = user(url)
    bob, bob_token = user(url)
    assert db(url, "GET", "topics", "").status_code == 401
    topic = {"code": CODE, "firstScannedAt": TS, "commentCount": 0}
    assert db(url, "PUT", f"topics/{CODE}", alice_token, topic).status_code == 200
    assert db(url, "PUT", f"topics/{CODE}", bob_token, topic).status_code == 401  # no reset by a rescan

    # A comment with its counter and feed item, in one atomic update.
    assert db(url, "PATCH", "", bob_token, comment_update(CODE, "c1", bob, 1)).status_code == 200
    topic_now = db(url, "GET", f"topics/{CODE}", alice_token).json()
    assert topic_now["commentCount"] == 1 and topic_now["lastCommentId"] == "c1"
    # Forbidden: fake author, inflating the counter, a comment without the counter, editing another's comment.
    fake = comment_update(CODE, "c2", bob, 2)
    fake[f"comments/{CODE}/c2"]["userId"] = alice
    assert db(url, "PATCH", "", bob_token, fake).status_code == 401
    assert db(url, "PATCH", "", bob_token, {f"topics/{CODE}/commentCount": 5, f"topics/{CODE}/lastCommentId": "zz"}).status_code == 401
    no_counter = comment_update(CODE, "c3", bob, 2)
    del no_counter[f"topics/{CODE}/commentCount"], no_counter[f"topics/{CODE}/lastCommentId"]
    assert db(url, "PATCH", "", bob_token, no_counter).status_code == 401
    assert db(url, "PUT", f"comments/{CODE}/c1/commentText", alice_token, "mine now").status_code == 401
    assert db(url, "DELETE", f"comments/{CODE}/c1", bob_token).status_code == 401
    # Nothing of the refused writes landed.
    assert db(url, "GET", f"topics/{CODE}/commentCount", alice_token).json() == 1
    assert sorted(db(url, "GET", f"comments/{CODE}", alice_token).json()) == ["c1"]
    # Feeds are private; profiles are the owner's.
    assert db(url, "GET", f"feeds/{bob}", alice_token).status_code == 401
    assert db(url, "PUT", f"feeds/{bob}/x", alice_token, {"feedType": "TOPIC_SCANNED", "timestamp": TS, "topicCode": CODE}).status_code == 401
    assert db(url, "GET", f"feeds/{bob}", bob_token).status_code == 200
    assert db(url, "PUT", f"users/{alice}", alice_token, {"displayName": "Alice"}).status_code == 200
    assert db(url, "PUT", f"users/{alice}/displayName", bob_token, "Mallory").status_code == 401
    # The newest-first comment list is an indexed query.
    r = requests.get(f"{url}/comments/{CODE}.json", params={"orderBy": '"commentDate"', "limitToLast": "20", "auth": alice_token}, timeout=10)
    assert r.status_code == 200, r.text


def v0(url: str, name: str, token: str | None, data: bytes, content_type: str, metadata: dict | None = None) -> requests.Response:
    boundary = uuid.uuid4().hex
    resource = {"name": name, "contentType": content_type, **({"metadata": metadata} if metadata else {})}
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{json.dumps(resource)}\r\n"
            f"--{boundary}\r\nContent-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--".encode()
    headers = {"X-Goog-Upload-Protocol": "multipart", "Content-Type": f"multipart/related; boundary={boundary}"}
    if token:
        headers["Authorization"] = f"Firebase {token}"
    quoted = requests.utils.quote(name, safe="")
    return requests.post(f"{url}/v0/b/demo.appspot.com/o?name={quoted}", data=body, headers=headers, timeout=30)


def test_storage_rules_keep_avatars_and_photos_to_their_owners_and_to_images(server):
    url = server
    alice, alice_token = user(url)
    bob, bob_token = user(url)
    assert v0(url, f"users/{alice}/avatar.jpg", alice_token, JPEG, "image/jpeg").status_code == 200
    assert v0(url, f"users/{alice}/avatar.jpg", bob_token, JPEG, "image/jpeg").status_code == 403
    assert v0(url, f"users/{alice}/avatar.jpg", alice_token, b"hello", "text/plain").status_code == 403
    assert v0(url, f"users/{alice}/avatar.jpg", alice_token, b"\xff" * (5 * 1024 * 1024 + 1), "image/jpeg").status_code == 403
    assert v0(url, f"users/{alice}/avatar.jpg", None, JPEG, "image/jpeg").status_code == 403

    photo = f"comments/{CODE}/p{uuid.uuid4().hex[:8]}.jpg"
    assert v0(url, photo, bob_token, JPEG, "image/jpeg", {"uploader": alice}).status_code == 403  # names someone else
    assert v0(url, photo, bob_token, JPEG, "image/jpeg", {"uploader": bob}).status_code == 200
    assert v0(url, photo, bob_token, JPEG, "image/jpeg", {"uploader": bob}).status_code == 403  # never replaced
    r = requests.get(f"{url}/v0/b/demo.appspot.com/o/{requests.utils.quote(photo, safe='')}", headers={"Authorization": f"Firebase {alice_token}"}, timeout=10)
    assert r.status_code == 200 and r.json()["metadata"] == {"uploader": bob}
