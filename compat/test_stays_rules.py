"""Stays (Examples/Stays): its database rules, checked case by case with ``hearth rules test``, and its storage
rules, checked and enforced on a live server.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import requests

from hearth_helpers import OWNER_HEADERS
from hearth_process import assert_rules_cases_pass, hearth_binary, hearth_process

EXAMPLE = Path(__file__).resolve().parent.parent / "Examples" / "Stays"
JPEG = b"\xff\xd8\xff\xe0" + b"0" * 1000


def test_the_rules_cases_pass_with_hearth_rules_test():
    assert_rules_cases_pass(EXAMPLE)
    out = subprocess.run([hearth_binary(), "storage", "rules", "check", str(EXAMPLE / "storage.rules")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def upload(url: str, name: str, token: str | None, data: bytes, content_type: str, metadata: dict | None = None) -> requests.Response:
    boundary = uuid.uuid4().hex
    resource = {"name": name, "contentType": content_type, **({"metadata": metadata} if metadata else {})}
    body = (f"--{boundary}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{json.dumps(resource)}\r\n"
            f"--{boundary}\r\nContent-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--".encode()
    headers = {"X-Goog-Upload-Protocol": "multipart", "Content-Type": f"multipart/related; boundary={boundary}"}
    if token:
        headers["Authorization"] = f"Firebase {token}"
    quoted = requests.utils.quote(name, safe="")
    return requests.post(f"{url}/v0/b/demo.appspot.com/o?name={quoted}", data=body, headers=headers, timeout=30)


def test_couch_photos_are_images_under_10_mb_named_by_their_uploader(tmp_path):
    with hearth_process(["--dev"], tmp_path / "data", tmp_path / "server.log", probe="/.json", probe_headers=OWNER_HEADERS) as (url, _, _):
        body = {"rules": {"files": [{"name": "storage.rules", "content": (EXAMPLE / "storage.rules").read_text()}]}}
        assert requests.put(f"{url}/internal/setRules", json=body, timeout=10).status_code == 200
        r = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={"returnSecureToken": True}, timeout=10)
        uid, token = r.json()["localId"], r.json()["idToken"]
        r = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", json={"returnSecureToken": True}, timeout=10)
        other = r.json()["idToken"]
        name = "couches/c1/p1.jpg"
        assert upload(url, name, token, JPEG, "image/jpeg", {"uploader": uid}).status_code == 200
        assert upload(url, "couches/c1/p2.jpg", token, JPEG, "image/jpeg").status_code == 403  # no uploader
        assert upload(url, "couches/c1/p3.jpg", token, JPEG, "image/jpeg", {"uploader": "someone"}).status_code == 403
        assert upload(url, "couches/c1/p4.jpg", token, b"hello", "text/plain", {"uploader": uid}).status_code == 403
        assert upload(url, "couches/c1/p5.png", token, JPEG, "image/jpeg", {"uploader": uid}).status_code == 403
        assert upload(url, "couches/c1/p6.jpg", token, b"\xff" * (10 * 1024 * 1024), "image/jpeg", {"uploader": uid}).status_code == 403
        assert upload(url, name, other, JPEG, "image/jpeg", {"uploader": uid}).status_code == 403  # not theirs to replace
        quoted = requests.utils.quote(name, safe="")
        r = requests.get(f"{url}/v0/b/demo.appspot.com/o/{quoted}", headers={"Authorization": f"Firebase {other}"}, timeout=10)
        assert r.status_code == 200 and r.json()["metadata"] == {"uploader": uid}
        r = requests.delete(f"{url}/v0/b/demo.appspot.com/o/{quoted}", headers={"Authorization": f"Firebase {other}"}, timeout=10)
        assert r.status_code == 403
